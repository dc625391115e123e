import Foundation
import Observation
import TrainKit

/// The paywall: the subscriptions on sale, a free trial where the Apple ID may have
/// one, and a purchase through the session, which binds the user's token first.
@MainActor
@Observable
public final class PaywallModel {
    /// A subscription as the paywall shows it.
    public struct Option: Identifiable, Equatable, Sendable {
        /// The product's identifier.
        public let id: String
        /// The product's name.
        public let title: String
        /// The price, such as "4.99".
        public let price: Decimal
        /// The free trial's length in days when the Apple ID may have it, or nil.
        public let freeTrialDays: Int?
    }

    /// The options, after ``load()``.
    public private(set) var options: [Option] = []
    /// What the last purchase came to, for the user.
    public private(set) var message: String?
    /// Whether a purchase is on its way: disable the buttons.
    public private(set) var isPurchasing = false
    private let session: UserSessionManager

    /// Creates the paywall over the session.
    /// - Parameter session: The session manager.
    public init(session: UserSessionManager) {
        self.session = session
    }

    /// The tier the user has now.
    public var tier: SubscriptionTier { session.tier }

    /// Whether the user's tier unlocks `feature`, in the app's feature catalog.
    /// - Parameter feature: The feature.
    /// - Returns: Whether to show it or the paywall.
    public func canUse(_ feature: Feature) -> Bool {
        session.featureAccess.canAccess(feature)
    }

    /// Reads the auto-renewable subscriptions and the trial each offers this Apple ID.
    public func load() async {
        do {
            var options: [Option] = []
            for product in try await session.subscriptions.products() where product.type == .autoRenewable {
                options.append(
                    Option(id: product.id, title: product.displayName, price: product.price, freeTrialDays: try await trialDays(of: product)))
            }
            self.options = options
        } catch {
            message = error.localizedDescription
        }
    }

    private func trialDays(of product: AppStoreProduct) async throws -> Int? {
        guard let offer = product.introductoryOffer, offer.paymentMode == .freeTrial, let group = product.subscriptionGroupID,
            try await session.subscriptions.isEligibleForIntroOffer(groupID: group)
        else { return nil }
        let days = [BillingPeriod.Unit.day: 1, .week: 7, .month: 30, .year: 365][offer.period.unit] ?? 0
        return offer.period.value * days * offer.periodCount
    }

    /// A subscription's buy button.
    /// - Parameter productID: The option's ``Option/id``.
    public func buy(_ productID: String) async {
        isPurchasing = true
        defer { isPurchasing = false }
        do {
            switch try await session.purchase(productID) {
            case .success: message = "Welcome to \(session.tier.name.capitalized)."
            case .userCancelled: message = nil
            case .pending: message = "Your purchase is waiting for approval."
            }
            await load() // a trial is offered once
        } catch {
            message = error.localizedDescription
        }
    }
}
