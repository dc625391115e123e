/// The collections a service keeps and how they evolved: a name and an ordered list
/// of migrations.
///
/// Several services can share one database file; each opens it with its own
/// schema, whose name keeps its collections and its version apart from the others'.
///
/// ```swift
/// let schema = StoreSchema(name: "auth", migrations: [
///     .createCollections(version: 1, ["users", "sessions"]),
///     StoreMigration(version: 2, summary: "Add the settings collection") { migration in
///         try migration.createCollection("settings")
///     },
/// ])
/// ```
public struct StoreSchema: Sendable {
    /// The schema's name: letters, digits, `-`, `_` and `.`; unique among the
    /// schemas that share a file.
    public let name: String
    /// The migrations, versions 1, 2, 3… in order.
    public let migrations: [StoreMigration]

    /// Creates a schema. The list is checked when a store opens with it.
    /// - Parameters:
    ///   - name: The schema's name.
    ///   - migrations: The migrations, versions 1, 2, 3… in order.
    public init(name: String, migrations: [StoreMigration]) {
        self.name = name
        self.migrations = migrations
    }

    /// Whether a byte may appear in a schema or collection name: ASCII letters, digits, `-`, `_`, `.`.
    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// The version a store reaches once every migration has run.
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Throws unless the name is usable and the versions run 1, 2, 3… without gaps.
    func validate() throws(CoreError) {
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isNameByte) else {
            throw CoreError(.invalidArgument, detail: "The schema name '\(name)' must be non-empty letters, digits, '-', '_' or '.'.")
        }
        guard !migrations.isEmpty else {
            throw CoreError(.invalidMigrations, detail: "The schema '\(name)' has no migrations; version 1 must create its collections.")
        }
        for (index, migration) in migrations.enumerated() where migration.version != index + 1 {
            throw CoreError(
                .invalidMigrations,
                detail: "The migrations of schema '\(name)' must be versions 1, 2, 3… in order; "
                    + "position \(index + 1) holds version \(migration.version).")
        }
    }
}

/// One step of a schema's history: what changes between `version - 1` and `version`.
///
/// A migration runs inside the write transaction that records its version, so a
/// store is never left half-migrated.
public struct StoreMigration: Sendable {
    /// The version the store has once this migration has run.
    public let version: Int
    /// What the migration does, in a few words.
    public let summary: String
    /// The work: create or drop collections, rewrite records.
    public let apply: @Sendable (MigrationContext) throws -> Void

    /// Creates a migration.
    /// - Parameters:
    ///   - version: The version the store has once this migration has run.
    ///   - summary: What the migration does, in a few words.
    ///   - apply: The work, given a context that can create and drop collections and
    ///     read and write records.
    public init(version: Int, summary: String, apply: @escaping @Sendable (MigrationContext) throws -> Void) {
        self.version = version
        self.summary = summary
        self.apply = apply
    }

    /// A migration that creates the named collections.
    /// - Parameters:
    ///   - version: The version the store has once this migration has run.
    ///   - names: The collections to create.
    /// - Returns: The migration.
    public static func createCollections(version: Int, _ names: [String]) -> StoreMigration {
        StoreMigration(version: version, summary: "Create \(names.joined(separator: ", "))") { migration in
            for name in names { try migration.createCollection(name) }
        }
    }
}

/// What a migration can do: change the set of collections and, through
/// ``records``, read and rewrite any record of the schema.
public final class MigrationContext {
    /// The write transaction the migration runs in.
    public let records: RecordWriter

    init(records: RecordWriter) {
        self.records = records
    }

    /// Creates a collection; creating one that exists does nothing.
    /// - Parameter name: The collection's name: ASCII letters, digits, `-`, `_` or `.`.
    /// - Throws: ``TrainErrorCode/invalidArgument`` for a bad name.
    public func createCollection(_ name: String) throws(CoreError) {
        try records.createCollection(name)
    }

    /// Deletes a collection and every record in it.
    /// - Parameter name: The collection's name.
    /// - Throws: ``TrainErrorCode/unknownCollection`` if it does not exist.
    public func dropCollection(_ name: String) throws(CoreError) {
        try records.dropCollection(name)
    }
}
