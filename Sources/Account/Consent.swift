import Foundation

/// A document the user accepts: the privacy policy or the terms.
public enum ConsentDocument: String, Codable, Hashable, Sendable, CaseIterable {
    /// The privacy policy.
    case privacyPolicy
    /// The terms of service.
    case terms
}

/// One acceptance or withdrawal, kept with its time: the history is the proof of consent.
public struct ConsentRecord: Codable, Hashable, Sendable {
    /// What the user did.
    public enum Action: String, Codable, Hashable, Sendable {
        /// Accepted the version.
        case accepted
        /// Withdrew an earlier acceptance.
        case withdrawn
    }

    /// The document.
    public var document: ConsentDocument
    /// Its version.
    public var version: Int
    /// What the user did.
    public var action: Action
    /// When.
    public var date: Date

    /// Creates a record.
    /// - Parameters:
    ///   - document: The document.
    ///   - version: Its version.
    ///   - action: What the user did.
    ///   - date: When.
    public init(document: ConsentDocument, version: Int, action: Action, date: Date) {
        self.document = document
        self.version = version
        self.action = action
        self.date = date
    }
}

/// The versions of the documents in force. Raising one asks every user to accept
/// the new version.
public struct ConsentPolicies: Codable, Hashable, Sendable {
    /// The version in force of each document.
    public var versions: [ConsentDocument: Int]

    /// Creates the versions in force.
    /// - Parameters:
    ///   - privacyPolicy: The privacy policy's version.
    ///   - terms: The terms' version.
    public init(privacyPolicy: Int = 1, terms: Int = 1) {
        versions = [.privacyPolicy: privacyPolicy, .terms: terms]
    }

    /// The documents whose version in force `history` does not show accepted and not
    /// withdrawn since.
    /// - Parameter history: A user's records, oldest first.
    /// - Returns: The documents to ask for, in a stable order.
    public func documentsNeedingConsent(given history: [ConsentRecord]) -> [ConsentDocument] {
        ConsentDocument.allCases.filter { document in
            guard let latest = history.last(where: { $0.document == document }) else { return true }
            return latest.action == .withdrawn || latest.version != versions[document]
        }
    }
}
