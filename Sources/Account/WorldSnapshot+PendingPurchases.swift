import Foundation
import TrainCore
import TrainSubscription

extension WorldSnapshot {
    /// A purchase waiting in the App Store: for a parent's Ask to Buy approval, which
    /// lapses 24 hours after it was asked, or for an interrupted purchase's issue to be
    /// resolved. The store's controls approve, decline or resolve it by the identifier
    /// `SimulatedAppStore.testTransactions` lists it under, as for a
    /// request made in the app. Left out: `user` and `appleID` as a purchase's, `kind`
    /// `askToBuy`, `requestedAt` now. The offer a request asked for is not kept.
    public struct PendingPurchase: Codable, Hashable, Sendable {
        /// The app user who asked, if one was signed in.
        public var user: String?
        /// The Apple ID that asked, which owns the purchase once it goes through.
        public var appleID: String?
        /// The product's ID, one of the configuration's products.
        public var product: String
        /// Why it waits.
        public var kind: TrainSubscription.PendingPurchase.Kind?
        /// When it was asked.
        public var requestedAt: Date?

        /// Creates a waiting purchase; what is left nil takes its default.
        /// - Parameters:
        ///   - user: The app user who asked.
        ///   - product: The product's ID.
        ///   - kind: Why it waits.
        ///   - requestedAt: When it was asked.
        public init(user: String?, product: String, kind: TrainSubscription.PendingPurchase.Kind? = nil, requestedAt: Date? = nil) {
            self.user = user
            self.product = product
            self.kind = kind
            self.requestedAt = requestedAt
        }
    }

    /// The waiting purchases: of the configuration's products, by users the snapshot
    /// holds, asked for no later than now; an Ask to Buy request more than 24 hours old
    /// has lapsed and is left out. Whether the Apple ID may buy it — another app user's
    /// subscription, with access per app user — is checked when it is approved.
    func resolvePendingPurchases(
        users: Set<UserKey>, now: Date, configuration: TrainServicesConfiguration, firstDevice: (user: String?, appleID: AppleID),
        into resolved: inout Resolved
    ) throws(WorldSnapshotError) {
        for (index, pending) in pendingPurchases.enumerated() {
            let path = "pendingPurchases[\(index)]"
            guard configuration.products.contains(where: { $0.id == pending.product }) else {
                throw WorldSnapshotError(
                    .danglingReference, path: "\(path).product", detail: "The configuration has no product \(pending.product.debugDescription).")
            }
            let (appleID, token) = try Self.buyer(pending.user, pending.appleID, users: users, firstDevice: firstDevice, path: path)
            let date = pending.requestedAt ?? now
            try Self.check(date, notAfter: now, path: "\(path).requestedAt")
            let kind = pending.kind ?? .askToBuy
            // Lapsed by now, as the store lets it lapse: a fixture exported yesterday still imports.
            if kind == .askToBuy, date.addingTimeInterval(24 * 3_600) < now { continue }
            resolved.pendingPurchases.append(
                (path, StorePendingPurchase(appleID: appleID, productID: pending.product, appAccountToken: token, requestedAt: date, kind: kind)))
        }
    }
}
