import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Everything about the database file itself: creating it atomically with
/// owner-only permissions, recognizing a bad file before SQLite touches it,
/// verifying it once open — from its header and schema, in time that does not grow
/// with the store — and moving a bad one aside when asked.
enum StoreFile {
    /// Opens the store at `file`, creating it if it does not exist, and runs `prepare`
    /// on it (the schema's migrations). With the quarantine option, a file found bad on
    /// the way — by its header, its schema, or a damaged page `prepare` reads — is moved
    /// aside once and a new store started.
    static func open<Prepared>(
        _ file: URL, options: RecordStore.Options, prepare: (SQLiteBackend) throws(CoreError) -> Prepared
    ) throws(CoreError) -> (backend: SQLiteBackend, prepared: Prepared, quarantined: URL?) {
        guard options.memoryMapSize >= 0 else {
            throw CoreError(.invalidArgument, file: file, detail: "The memory map size is \(options.memoryMapSize) bytes; it cannot be negative.")
        }
        do {
            let (backend, prepared) = try openOnce(file, options: options, prepare: prepare)
            return (backend, prepared, nil)
        } catch  where options.recovery == .quarantine && quarantinable.contains(error.code) {
            let moved = try quarantine(file, at: options.clock.now)
            let (backend, prepared) = try openOnce(file, options: options, prepare: prepare)
            return (backend, prepared, moved)
        }
    }

    /// The codes whose file holds nothing this engine can read, so moving it aside loses nothing more.
    static let quarantinable: Set<CoreError.Code> = [.notADatabase, .corrupt, .truncated, .emptyFile, .foreignDatabase]

    private static func openOnce<Prepared>(
        _ file: URL, options: RecordStore.Options, prepare: (SQLiteBackend) throws(CoreError) -> Prepared
    ) throws(CoreError) -> (SQLiteBackend, Prepared) {
        try prepareDirectory(of: file)
        if !FileManager.default.fileExists(atPath: file.path) {
            try create(file, busyTimeout: options.busyTimeout)
        }
        try inspectHeader(of: file)
        let connection = try SQLiteConnection(file: file, busyTimeout: options.busyTimeout)
        do {
            try verify(connection, options: options)
            let backend = SQLiteBackend(connection: connection)
            return (backend, try prepare(backend))
        } catch {
            connection.close()
            throw error
        }
    }

    private static func prepareDirectory(of file: URL) throws(CoreError) {
        let directory = file.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CoreError(.io, file: file, detail: "The store's directory path names a file, not a directory.")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CoreError(.io, file: file, detail: "Could not create the store's directory: \(error.localizedDescription)")
        }
    }

    /// Builds a complete, empty store under a temporary name and links it into place,
    /// so no process ever sees a half-made or zero-length store at `file`.
    private static func create(_ file: URL, busyTimeout: Duration) throws(CoreError) {
        let directory = file.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).creating-\(UUID().uuidString)")
        let descriptor = posixOpen(temporary.path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CoreError(.io, file: file, detail: "Could not create the store file (\(String(cString: strerror(errno)))).")
        }
        close(descriptor)
        defer {
            for suffix in ["", "-wal", "-shm"] { unlink(temporary.path + suffix) }
        }
        let connection = try SQLiteConnection(file: temporary, busyTimeout: busyTimeout)
        _ = try connection.text("PRAGMA journal_mode = WAL")
        try connection.execute(SQLiteBackend.bootstrapSQL)
        connection.close()
        if link(temporary.path, file.path) != 0 && errno != EEXIST {
            throw CoreError(.io, file: file, detail: "Could not move the new store into place (\(String(cString: strerror(errno)))).")
        }
        syncDirectory(directory)
    }

    private static func syncDirectory(_ directory: URL) {
        let descriptor = posixOpen(directory.path, O_RDONLY | O_CLOEXEC, 0)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Reads the 100-byte SQLite header and checks it against the file's size.
    static func inspectHeader(of file: URL) throws(CoreError) {
        let size: Int
        let header: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            header = Array(try handle.read(upToCount: 100) ?? Data())
        } catch {
            throw CoreError(.io, file: file, detail: "Could not read the store file: \(error.localizedDescription)")
        }
        let magic = Array("SQLite format 3\0".utf8)
        guard size > 0 else {
            throw CoreError(.emptyFile, file: file, detail: "The store file is empty (zero bytes); whatever it held is gone.")
        }
        guard header.starts(with: magic) else {
            if header.count < magic.count && magic.starts(with: header) {
                throw CoreError(.truncated, file: file, detail: "The store file is cut off inside its header (\(size) bytes).")
            }
            throw CoreError(.notADatabase, file: file, detail: "The file is not a database.")
        }
        guard header.count == 100 else {
            throw CoreError(.truncated, file: file, detail: "The store file is cut off inside its header (\(size) bytes).")
        }
        func bigEndian(_ offset: Int, _ count: Int) -> Int {
            header[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw CoreError(.corrupt, file: file, detail: "The database header is damaged (page size \(rawPageSize)).")
        }
        guard size % pageSize == 0 else {
            throw CoreError(.truncated, file: file, detail: "The store file ends inside a page (\(size) bytes, pages of \(pageSize)).")
        }
        // While a write-ahead log holds pages, the main file may legitimately be shorter
        // than its header says (a checkpoint in progress); SQLite and quick_check judge then.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
        let headerPageCountIsValid = bigEndian(92, 4) == bigEndian(24, 4)
        let pageCount = bigEndian(28, 4)
        if walSize == 0 && headerPageCountIsValid && size < pageCount * pageSize {
            throw CoreError(.truncated, file: file, detail: "The store file is cut off: \(size / pageSize) of \(pageCount) pages are there.")
        }
    }

    /// Checks that an open file is a TrainKit store this version can read, and sets it up.
    private static func verify(_ connection: SQLiteConnection, options: RecordStore.Options) throws(CoreError) {
        let file = connection.file
        _ = try connection.integer("SELECT count(*) FROM sqlite_master")
        guard try connection.integer("PRAGMA application_id") == SQLiteBackend.applicationID else {
            throw CoreError(.foreignDatabase, file: file, detail: "The file is an SQLite database, but not a TrainKit store.")
        }
        let format = try connection.integer("PRAGMA user_version") ?? 0
        guard format <= SQLiteBackend.formatVersion else {
            throw CoreError(
                .newerSchema, file: file,
                detail: "The store was written in storage format \(format); this version reads up to \(SQLiteBackend.formatVersion).")
        }
        let mode = try connection.text("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw CoreError(.io, file: file, detail: "The store could not be switched to write-ahead logging (mode \(mode ?? "none")).")
        }
        try connection.execute(options.durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        try mapIntoMemory(connection, options: options)
        if options.checksIntegrityOnOpen { try SQLiteBackend(connection: connection).checkIntegrity() }
    }

    /// Opens one more connection to a store that ``open(_:options:)`` opened, for read
    /// transactions only.
    static func openReader(_ file: URL, options: RecordStore.Options) throws(CoreError) -> SQLiteBackend {
        let connection = try SQLiteConnection(file: file, busyTimeout: options.busyTimeout)
        do {
            try connection.execute("PRAGMA query_only = 1")
            try mapIntoMemory(connection, options: options)
            return SQLiteBackend(connection: connection)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Sets how much of the file `connection` reads through a memory map, 0 included:
    /// left unset, SQLite would use its process-wide default, which a build option or
    /// `sqlite3_config(SQLITE_CONFIG_MMAP_SIZE)` may have raised.
    private static func mapIntoMemory(_ connection: SQLiteConnection, options: RecordStore.Options) throws(CoreError) {
        try connection.execute("PRAGMA mmap_size = \(options.memoryMapSize)")
    }

    /// Moves `file` and its SQLite side files to `<name>.corrupt-<timestamp>`.
    /// - Returns: The new location of the main file.
    static func quarantine(_ file: URL, at date: Date) throws(CoreError) -> URL {
        let stamp = timestamp(date)
        let directory = file.deletingLastPathComponent()
        var target = directory.appendingPathComponent("\(file.lastPathComponent).corrupt-\(stamp)")
        var attempt = 1
        while FileManager.default.fileExists(atPath: target.path) {
            attempt += 1
            target = directory.appendingPathComponent("\(file.lastPathComponent).corrupt-\(stamp)-\(attempt)")
        }
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            guard rename(file.path + suffix, target.path + suffix) == 0 else {
                throw CoreError(.io, file: file, detail: "Could not move the damaged store aside (\(String(cString: strerror(errno)))).")
            }
        }
        syncDirectory(directory)
        return target
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(String(format: "%04d", c.year ?? 0))\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }
}

/// `open(2)` with a mode, under one name on every platform.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
