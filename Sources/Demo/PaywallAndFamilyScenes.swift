import Foundation
import TrainAccount
import TrainCore
import TrainSubscription

/// The analytics paywall as data: a lapsed subscriber sees her variant of an
/// experiment, the same at every gate, logged as an exposure. Then Family Sharing, on a
/// simulated App Store of its own in memory: the organizer buys a shareable Pro, a
/// member has it as a family-shared purchase, and loses it on leaving.
@MainActor
struct PaywallAndFamilyScenes {
    /// Two orders of the same products, tried against each other on lapsed subscribers.
    static let configuration = PaywallConfiguration(
        offerings: [
            PaywallOffering(
                id: "annual-first",
                packages: [
                    PaywallPackage(id: "annual", productID: "com.train.pro.yearly", metadata: ["badge": "Best value"]),
                    PaywallPackage(id: "monthly", productID: "com.train.pro.monthly"),
                ]),
            PaywallOffering(id: "monthly-first", packages: [PaywallPackage(id: "monthly", productID: "com.train.pro.monthly")]),
        ],
        audiences: [
            PaywallAudience(id: "lapsed", conditions: [.tierBelow(.pro), .introOfferEligible(groupID: "train.subscriptions", false)])
        ],
        experiments: [
            PaywallExperiment(
                id: "annual-vs-monthly",
                variants: [
                    PaywallVariant(id: "annual", weight: 50, offering: "annual-first"),
                    PaywallVariant(id: "monthly", weight: 50, offering: "monthly-first"),
                ])
        ],
        placements: [
            PaywallPlacement(
                id: "analytics-tab", feature: .analytics,
                rules: [PaywallRule(audience: "lapsed", .experiment("annual-vs-monthly")), PaywallRule(.show("monthly-first"))])
        ])

    let services: TrainServices
    let session: UserSessionManager
    let clock: DemoClock
    let narrator: Narrator

    func run() async {
        await narrator.step("The analytics paywall is data: Ada, a lapsed subscriber, sees her variant of an experiment") {
            let paywalls = services.paywalls
            try await paywalls.replaceConfiguration(Self.configuration)
            let logged = try await paywalls.exposures().count
            guard let paywall = try await paywalls.gate(placement: "analytics-tab").presentation, let shown = paywall.assignment else {
                return "the lapsed subscriber was not in the experiment"
            }
            narrator.say(
                "Variant \"\(shown.variant)\" of \(shown.experiment): offering \(paywall.offering.id) with "
                    + paywall.products.map(\.displayName).joined(separator: ", ") + ".")
            let again = try await paywalls.assignment(in: "annual-vs-monthly")
            let exposures = try await paywalls.exposures()
            narrator.say("Exposures logged: \(exposures.count), the last for user \(exposures.last?.user ?? "?").")
            guard again == shown, exposures.count == logged + 1, exposures.last?.user == session.currentUser?.id else {
                return "the variant or its exposure was not Ada's"
            }
            return nil
        }

        await narrator.step("Family Sharing: the organizer buys a shareable Pro, a member has it as family-shared, and loses it on leaving") {
            let products = AppStoreProduct.standard.map { product in
                var product = product
                product.isFamilyShareable = product.type == .autoRenewable
                return product
            }
            let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: products))
            let organizer = store.appleID
            let member = try AppleID("sam@family.example")
            _ = try store.createFamily(organizer: organizer)
            try store.addToFamily(member, organizer: organizer)
            _ = try store.buyOutsideApp(productID: "com.train.pro.monthly")
            try store.switchAppleID(to: member)
            let subscriptions = LocalSubscriptionService(store: store, context: store.context)
            let tier = try await subscriptions.restorePurchases()
            let shared = try await subscriptions.currentEntitlements().first?.unsafePayloadValue
            narrator.say(
                "\(member.email) restores on her device: tier \(tier), \(shared?.productID ?? "nothing") owned \(shared.map { "\($0.ownershipType)" } ?? "-")."
            )
            try store.removeFromFamily(member)
            let after = try await subscriptions.restorePurchases()
            narrator.say("After she leaves the family: tier \(after).")
            return tier == .pro && shared?.ownershipType == .familyShared && after == .free ? nil : "the family purchase was not shared, or stayed"
        }
    }
}
