import Foundation
import TrainAuth
import TrainCore

/// The settings of a ``LocalMediaStore`` besides its context.
public struct MediaConfiguration: Sendable {
    /// The largest photo, in bytes; 10 MB by default.
    public var maximumSize = 10_000_000

    /// Creates a configuration.
    /// - Parameter maximumSize: The largest photo, in bytes; 10 MB by default.
    public init(maximumSize: Int = 10_000_000) {
        self.maximumSize = maximumSize
    }
}

/// TrainKit's ``MediaStore``: in memory, or one file per photo in a directory. The two
/// differ only in where the bytes go; the checks, paths and URLs are the same.
///
/// A photo is accepted when it is at most ``maximumSize`` bytes and its first bytes
/// are those of a JPEG, PNG, GIF, HEIC or WebP image, whatever it claims to be. Paths
/// hold the owner's ID in hexadecimal, so no user ID can reach outside its folder.
///
/// Given the auth service, the store checks every write and deletion as a backend's
/// storage rules would: a photo is added only to the signed-in user's own folder, and
/// deleted from it or from the folder of a user whose scheduled deletion is due or
/// whose account is gone (the purge) — anything else is `notAuthorized`. A photo is kept only if its owner is still signed in once
/// it is written, so an upload that raced an account deletion never outlives its purge.
/// Without it the store trusts its caller, as a server-side component does.
///
/// ```swift
/// let media = try LocalMediaStore(auth: auth, storage: .file(appSupport.appendingPathComponent("media")))
/// let photo = try await media.put(jpegData, kind: .postPhoto, for: user.id)
/// ```
public final class LocalMediaStore: MediaStore {
    public let maximumSize: Int
    /// The auth service writes and deletions are checked against; nil trusts the caller.
    public let auth: (any AuthService)?
    private let clock: any DateClock
    private let blobs: Blobs
    /// The root of the URLs: the directory, or a path no file is at for the in-memory store.
    private let root: URL
    /// The root as ``reference(for:)`` compares paths, with a slash at its end: worked
    /// out once, as resolving its symbolic links asks the file system.
    private let comparableRoot: String

    /// Where the bytes go.
    private enum Blobs: Sendable {
        case memory(Locked<[String: Data]>)
        case directory(URL)
    }

    /// Creates a store that keeps photos in memory. Its URLs are `file` URLs under
    /// `/trainkit-memory-media/<a new ID>/`, where no file is: read them with
    /// ``data(for:)``.
    /// - Parameters:
    ///   - auth: The auth service writes and deletions are checked against; nil trusts the caller.
    ///   - context: The clock a scheduled deletion's date is compared with, and the IDs
    ///     of the in-memory root; the live ones by default.
    ///   - configuration: The largest photo.
    public convenience init(
        auth: (any AuthService)? = nil, context: TrainContext = .live, configuration: MediaConfiguration = MediaConfiguration()
    ) {
        let root = URL(fileURLWithPath: "/trainkit-memory-media/\(context.ids.makeID().lowercased())", isDirectory: true)
        self.init(maximumSize: configuration.maximumSize, auth: auth, clock: context.clock, blobs: .memory(Locked([:])), root: root)
    }

    /// Creates a store that keeps photos in `storage`: in memory, or one file per photo
    /// under the folder at a file location's URL, created if missing (a location's
    /// `RecordStore.Options` do not apply to photos). Several stores may share a folder.
    /// - Parameters:
    ///   - auth: The auth service writes and deletions are checked against; nil trusts the caller.
    ///   - storage: In memory, or the folder of the photos.
    ///   - context: The clock a scheduled deletion's date is compared with; the live one by default.
    ///   - configuration: The largest photo.
    /// - Throws: ``SocialError`` `storage` if the folder cannot be created.
    public convenience init(
        auth: (any AuthService)? = nil, storage: StorageLocation, context: TrainContext = .live,
        configuration: MediaConfiguration = MediaConfiguration()
    ) throws(SocialError) {
        guard let directory = storage.file else {
            self.init(auth: auth, context: context, configuration: configuration)
            return
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: Self.folderAttributes)
        } catch {
            throw SocialError(.storage, detail: "The media directory \(directory.path) cannot be created: \(error.localizedDescription)")
        }
        let root = directory.standardizedFileURL
        self.init(maximumSize: configuration.maximumSize, auth: auth, clock: context.clock, blobs: .directory(root), root: root)
    }

    /// Creates a store that keeps photos in memory.
    /// - Parameters:
    ///   - maximumSize: The largest photo, in bytes.
    ///   - auth: The auth service writes and deletions are checked against; nil trusts the caller.
    ///   - clock: The clock a scheduled deletion's date is compared with.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use init(auth:context:configuration:); the clock comes in the context, the size in the configuration.")
    public convenience init(maximumSize: Int = 10_000_000, auth: (any AuthService)? = nil, clock: any DateClock = SystemClock()) {
        self.init(auth: auth, context: TrainContext(clock: clock), configuration: MediaConfiguration(maximumSize: maximumSize))
    }

    /// Creates a store that keeps each photo in a file under `directory`.
    /// - Parameters:
    ///   - directory: The root folder.
    ///   - maximumSize: The largest photo, in bytes.
    ///   - auth: The auth service writes and deletions are checked against; nil trusts the caller.
    ///   - clock: The clock a scheduled deletion's date is compared with.
    /// - Throws: ``SocialError`` `storage` if the directory cannot be created.
    @available(*, deprecated, message: "Use init(auth:storage:context:configuration:) with .file(directory).")
    public convenience init(
        directory: URL, maximumSize: Int = 10_000_000, auth: (any AuthService)? = nil, clock: any DateClock = SystemClock()
    ) throws {
        try self.init(
            auth: auth, storage: .file(directory), context: TrainContext(clock: clock), configuration: MediaConfiguration(maximumSize: maximumSize))
    }

    /// A store of the same photos whose writes and deletions are checked against
    /// another auth service: another device of one simulated world.
    /// - Parameter auth: The other device's auth service.
    /// - Returns: The store.
    package func sharing(with auth: any AuthService) -> LocalMediaStore {
        LocalMediaStore(maximumSize: maximumSize, auth: auth, clock: clock, blobs: blobs, root: root)
    }

    private init(maximumSize: Int, auth: (any AuthService)?, clock: any DateClock, blobs: Blobs, root: URL) {
        self.maximumSize = maximumSize
        self.auth = auth
        self.clock = clock
        self.blobs = blobs
        self.root = root
        comparableRoot = Self.comparableRoot(root)
    }

    public func put(_ data: Data, kind: MediaKind, for userID: String) async throws -> MediaReference {
        try Self.checkOwner(userID)
        // Only the owner adds a photo: a purge deletes, it never writes.
        if let auth, !(auth.currentUser.map { $0.id.utf8.elementsEqual(userID.utf8) } ?? false) {
            guard auth.currentUser != nil else { throw SocialError(.notSignedIn) }
            throw SocialError(.notAuthorized, detail: "Only the signed-in owner adds photos to their folder.")
        }
        guard data.count <= maximumSize else {
            throw SocialError(.mediaTooLarge, detail: "\(data.count) bytes is over the limit of \(maximumSize).")
        }
        guard let contentType = MediaContentType(sniffing: data) else {
            throw SocialError(.unsupportedMediaType, detail: "The data is not a JPEG, PNG, GIF, HEIC or WebP image.")
        }
        let reference = MediaReference(userID: userID, kind: kind, id: UUID(), contentType: contentType)
        try insert([(reference, data)])
        // Asked again once the bytes are in: an account deletion that ended the owner's
        // session meanwhile may have listed the folder already, so the photo goes now.
        if let auth, !(auth.currentUser.map { $0.id.utf8.elementsEqual(userID.utf8) } ?? false) {
            do {
                try discard(reference)
            } catch {
                throw SocialError(.storage, detail: "The owner's session ended while the photo was written, and it could not be removed: \(error)")
            }
            throw SocialError(.notSignedIn, detail: "The owner's session ended while the photo was written; it was not kept.")
        }
        return reference
    }

    public func data(for reference: MediaReference) async throws -> Data {
        try bytes(of: reference)
    }

    /// The bytes of a stored photo, read now: what ``data(for:)`` returns.
    /// - Throws: ``SocialError`` `mediaNotFound` or `storage`.
    package func bytes(of reference: MediaReference) throws(SocialError) -> Data {
        switch blobs {
        case .memory(let memory):
            guard let data = memory.withLock({ $0[reference.path] }) else { throw SocialError(.mediaNotFound) }
            return data
        case .directory:
            let file = url(for: reference)
            guard FileManager.default.fileExists(atPath: file.path) else { throw SocialError(.mediaNotFound) }
            do {
                return try Data(contentsOf: file)
            } catch {
                throw SocialError(.storage, detail: "\(file.path) cannot be read: \(error.localizedDescription)")
            }
        }
    }

    public func contains(_ reference: MediaReference) async throws -> Bool {
        switch blobs {
        case .memory(let memory): memory.withLock { $0[reference.path] != nil }
        case .directory: FileManager.default.fileExists(atPath: url(for: reference).path)
        }
    }

    public func list(for userID: String) async throws -> [MediaReference] {
        let folder = MediaReference.folder(of: userID) + "/"
        let paths: [String]
        switch blobs {
        case .memory(let memory):
            paths = memory.withLock { $0.keys.filter { $0.hasPrefix(folder) } }
        case .directory(let directory):
            paths = MediaKind.allCases.flatMap { kind in
                let names =
                    (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder + kind.rawValue).path)) ?? []
                return names.map { folder + kind.rawValue + "/" + $0 }
            }
        }
        // Files that are not photos this store wrote (a half-written temporary file) are left out.
        return paths.compactMap(MediaReference.init(path:)).filter { $0.userID == userID }.sorted { $0.path < $1.path }
    }

    public func delete(_ reference: MediaReference) async throws {
        try checkAccess(to: reference.userID)
        try discard(reference)
    }

    /// Stores photos as they are, without the auth check, as a server-side import
    /// does: a world's snapshot being imported. The caller has checked each one.
    /// - Throws: ``SocialError`` `storage` if a file cannot be written.
    package func insert(_ photos: [(reference: MediaReference, data: Data)]) throws(SocialError) {
        for (reference, data) in photos {
            switch blobs {
            case .memory(let memory):
                memory.withLock { $0[reference.path] = data }
            case .directory:
                try Self.write(data, to: url(for: reference))
            }
        }
    }

    /// Deletes a photo without the auth check: the feed's own clean-up of an upload
    /// whose post was not made, whoever is signed in by then.
    package func discard(_ reference: MediaReference) throws(SocialError) {
        switch blobs {
        case .memory(let memory):
            memory.withLock { $0[reference.path] = nil }
        case .directory:
            try Self.removeItem(at: url(for: reference))
        }
    }

    public func deleteAll(for userID: String) async throws -> Int {
        try checkAccess(to: userID)
        let references = try await list(for: userID)
        switch blobs {
        case .memory(let memory):
            memory.withLock { stored in for reference in references { stored[reference.path] = nil } }
        case .directory(let directory):
            try Self.removeItem(at: directory.appendingPathComponent(MediaReference.folder(of: userID), isDirectory: true))
        }
        return references.count
    }

    /// Throws `notAuthorized` unless the auth service, if there is one, lets the
    /// caller change `userID`'s folder: signed in as them, or their deletion is due.
    private func checkAccess(to userID: String) throws(SocialError) {
        guard let auth else { return }
        if let user = auth.currentUser, user.id.utf8.elementsEqual(userID.utf8) { return }
        let due: Bool
        do {
            due = try auth.isPurgeDue(of: userID, at: clock.now)
        } catch {
            throw SocialError(.storage, detail: "The scheduled deletions could not be read: \(error)")
        }
        guard due else {
            guard auth.currentUser != nil else { throw SocialError(.notSignedIn) }
            throw SocialError(.notAuthorized, detail: "Only the signed-in owner changes these photos.")
        }
    }

    public func url(for reference: MediaReference) -> URL {
        root.appendingPathComponent(reference.path, isDirectory: false)
    }

    public func reference(for url: URL) throws(SocialError) -> MediaReference? {
        guard url.isFileURL else { return nil }
        let path = Self.comparablePath(url)
        guard path.hasPrefix(comparableRoot) else { return nil }
        guard let reference = MediaReference(path: String(path.dropFirst(comparableRoot.count))) else {
            throw SocialError(.mediaNotFound, detail: "\(url.path) is inside the media store but names none of its photos.")
        }
        return reference
    }

    /// A file URL's path as two spellings of one file compare equal: percent-encoding
    /// decoded, `.` and `..` and symbolic links resolved, in Unicode's composed form
    /// and lower case, as a case-insensitive volume — Apple's default — compares names.
    /// Every path this store makes under its root is lower-case ASCII.
    static func comparablePath(_ url: URL) -> String {
        url.standardizedFileURL.resolvingSymlinksInPath().path.precomposedStringWithCanonicalMapping.lowercased()
    }

    /// `root` as ``comparablePath(_:)`` makes it, ending with a slash.
    private static func comparableRoot(_ root: URL) -> String {
        let path = comparablePath(root)
        return path.hasSuffix("/") ? path : path + "/"
    }

    /// Folders only the owner can open, as the stores' files are.
    static var folderAttributes: [FileAttributeKey: Any] { [.posixPermissions: 0o700] }

    /// Writes a photo only its owner can read: to a temporary file beside it, then
    /// renamed over, so a reader never sees half a photo.
    static func write(_ data: Data, to file: URL) throws(SocialError) {
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(UUID().uuidString.lowercased()).tmp")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: folderAttributes)
        } catch {
            throw SocialError(.storage, detail: "\(folder.path) cannot be created: \(error.localizedDescription)")
        }
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw SocialError(.storage, detail: "\(temporary.path) cannot be written.")
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw SocialError(.storage, detail: "\(file.path) cannot be written.")
        }
    }

    /// Throws `userNotFound` unless `userID` is 1 to 100 UTF-8 bytes.
    package static func checkOwner(_ userID: String) throws(SocialError) {
        guard (1...100).contains(userID.utf8.count) else {
            throw SocialError(.userNotFound, detail: "Media belongs to a user ID of 1 to 100 bytes.")
        }
    }

    /// Removes a file or folder; one that is not there is already removed.
    static func removeItem(at url: URL) throws(SocialError) {
        do {
            try FileManager.default.removeItem(at: url)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            return
        } catch {
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            throw SocialError(.storage, detail: "\(url.path) cannot be removed: \(error.localizedDescription)")
        }
    }
}
