import Foundation
import TrainCore

extension WorldSnapshot {
    /// A user's acceptance or withdrawal of a document, as the stack's device keeps it:
    /// each user's history in the order it happened. Left out: `action` is `accepted`,
    /// `version` the one the configuration's policies have in force, `date` now.
    public struct Consent: Codable, Hashable, Sendable {
        /// The user.
        public var user: String
        /// The document.
        public var document: ConsentDocument
        /// Its version, from 1.
        public var version: Int?
        /// What the user did.
        public var action: ConsentRecord.Action?
        /// When.
        public var date: Date?

        /// Creates a consent; what is left nil takes its default.
        /// - Parameters:
        ///   - user: The user.
        ///   - document: The document.
        ///   - version: Its version.
        ///   - action: What the user did.
        ///   - date: When.
        public init(
            user: String, document: ConsentDocument, version: Int? = nil, action: ConsentRecord.Action? = nil, date: Date? = nil
        ) {
            self.user = user
            self.document = document
            self.version = version
            self.action = action
            self.date = date
        }
    }

    /// The consents, each user's history as the account service would have written it:
    /// in date order, a withdrawal only of the version accepted last.
    func resolveConsents(users: Set<UserKey>, now: Date, policies: ConsentPolicies, into resolved: inout Resolved)
        throws(WorldSnapshotError)
    {
        var latest: [UserKey: (date: Date, accepted: [ConsentDocument: Int?])] = [:]
        for (index, consent) in consents.enumerated() {
            var path: String { "consents[\(index)]" }
            try Self.reference(consent.user, in: users, path: "\(path).user")
            let user = UserKey(consent.user)
            let date = consent.date ?? now
            try Self.check(date, notAfter: now, path: "\(path).date")
            var history = latest[user] ?? (date, [:])
            guard date >= history.date else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).date", detail: "A user's consents are listed in the order they were given.")
            }
            let action = consent.action ?? .accepted
            let version: Int
            switch action {
            case .accepted:
                version = consent.version ?? policies.versions[consent.document] ?? 1
                history.accepted[consent.document] = .some(version)
            case .withdrawn:
                guard case .some(.some(let accepted)) = history.accepted[consent.document] else {
                    throw WorldSnapshotError(.invalidValue, path: path, detail: "A withdrawal follows an acceptance of the document.")
                }
                version = consent.version ?? accepted
                guard version == accepted else {
                    throw WorldSnapshotError(.invalidValue, path: "\(path).version", detail: "A withdrawal is of the version accepted last.")
                }
                history.accepted[consent.document] = .some(nil)
            }
            guard version >= 1 else {
                throw WorldSnapshotError(.invalidValue, path: "\(path).version", detail: "A document's versions count from 1.")
            }
            history.date = date
            latest[user] = history
            resolved.consents.append((consent.user, ConsentRecord(document: consent.document, version: version, action: action, date: date)))
        }
    }
}

extension LocalAccountService {
    /// Every user's consents on this device: users in the order of their keys, each
    /// user's history in the order it was written.
    func allConsents() throws(AccountError) -> [(userID: String, record: ConsentRecord)] {
        try reading { records in
            try records.entries(in: AccountRecords.consents).map { entry in
                guard case .string(let userID)? = try RecordKey(encoded: entry.key).components.first else {
                    throw AccountError(.storage, detail: "A consent's key has another layout.")
                }
                return (userID, entry.value)
            }
        }
    }

    /// Appends `consents` to their users' histories, in the order given.
    func insert(consents: [(userID: String, record: ConsentRecord)]) throws(AccountError) {
        try writing { records in
            for (userID, record) in consents {
                try records.put(record, forKey: AccountRecords.nextKey(userID, in: AccountRecords.consents, of: records), in: AccountRecords.consents)
            }
        }
    }
}
