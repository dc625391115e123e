import Foundation

/// A family group of the simulated App Store (Family Sharing): an organizer and up to
/// five other Apple IDs. A family-shareable purchase of any of them — an auto-renewable
/// subscription or a non-consumable (``AppStoreProduct/isFamilyShareable``) — is shared
/// with the others: each holds a transaction of their own, owned as
/// ``OwnershipType/familyShared``, while the purchase lasts and they stay in the group.
///
/// ```swift
/// try store.createFamily(organizer: parent)
/// try store.addToFamily(child, organizer: parent)
/// try store.switchAppleID(to: parent)
/// _ = try await subscriptions.purchase("com.train.family.monthly")  // the child has it too
/// ```
public struct FamilyGroup: Codable, Hashable, Sendable {
    /// The Apple ID that made the group.
    public var organizer: AppleID
    /// The others in the group, in the order they joined.
    public var members: [AppleID]

    /// The most people a family group has, its organizer included: six, as Apple's.
    public static let maximumSize = 6

    /// Creates a group.
    /// - Parameters:
    ///   - organizer: The Apple ID that made it.
    ///   - members: The others.
    public init(organizer: AppleID, members: [AppleID] = []) {
        self.organizer = organizer
        self.members = members
    }

    /// Everyone in the group, the organizer first.
    public var everyone: [AppleID] { [organizer] + members }

    /// Whether `appleID` is in the group.
    /// - Parameter appleID: The Apple ID.
    /// - Returns: True for the organizer and each member.
    public func contains(_ appleID: AppleID) -> Bool {
        organizer == appleID || members.contains(appleID)
    }
}
