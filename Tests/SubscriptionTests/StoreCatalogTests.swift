import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainSubscription

/// SUB-9: a catalog per app, loadable from data — TrainKit's JSON or Xcode's StoreKit configuration file.
@Suite(.timeLimit(.minutes(1))) struct StoreCatalogTests {
    /// A StoreKit configuration file as Xcode writes it: one of each product type.
    static let storeKitFile = Data(
        #"""
        {
          "identifier" : "7E2F0A1B",
          "nonRenewingSubscriptions" : [
            {
              "displayPrice" : "14.99", "familyShareable" : false, "internalID" : "A1",
              "localizations" : [ { "description" : "Pro for a season", "displayName" : "Summer Pass", "locale" : "en_US" } ],
              "productID" : "com.train.summer.pass", "referenceName" : "summer-pass", "type" : "NonRenewingSubscription"
            }
          ],
          "products" : [
            {
              "displayPrice" : "9.99", "familyShareable" : false, "internalID" : "B1",
              "localizations" : [
                { "description" : "Eine Sitzung", "displayName" : "Coaching-Sitzung", "locale" : "de_DE" },
                { "description" : "A session", "displayName" : "Coaching session", "locale" : "en_US" }
              ],
              "productID" : "com.train.coaching", "referenceName" : "coaching", "type" : "Consumable"
            },
            {
              "displayPrice" : "199", "familyShareable" : true, "internalID" : "B2", "localizations" : [ ],
              "productID" : "com.train.lifetime", "referenceName" : "Lifetime", "type" : "NonConsumable"
            }
          ],
          "settings" : { "_storefront" : "USA", "_timeRate" : 0 },
          "subscriptionGroups" : [
            {
              "id" : "21C3D4E5", "localizations" : [ ], "name" : "Train",
              "subscriptions" : [
                {
                  "adHocOffers" : [ ], "codeOffers" : [ ], "displayPrice" : "1.99", "familyShareable" : false, "groupNumber" : 2,
                  "internalID" : "C1",
                  "introductoryOffer" : { "internalID" : "C9", "paymentMode" : "free", "subscriptionPeriod" : "P1W" },
                  "localizations" : [ { "description" : "", "displayName" : "Pro Weekly", "locale" : "en_US" } ],
                  "productID" : "com.train.pro.weekly", "recurringSubscriptionPeriod" : "P1W", "referenceName" : "pro-weekly",
                  "subscriptionGroupID" : "21C3D4E5", "type" : "RecurringSubscription"
                },
                {
                  "adHocOffers" : [
                    { "displayPrice" : "39.99", "internalID" : "D1", "offerID" : "half-off", "paymentMode" : "payUpFront", "subscriptionPeriod" : "P1Y" }
                  ],
                  "codeOffers" : [
                    { "displayPrice" : "0.99", "internalID" : "D2", "offerID" : "coach", "numberOfPeriods" : 1, "paymentMode" : "payAsYouGo", "subscriptionPeriod" : "P1Y" }
                  ],
                  "displayPrice" : "79.99", "familyShareable" : false, "groupNumber" : 1,
                  "internalID" : "C2", "introductoryOffer" : null,
                  "localizations" : [ { "description" : "", "displayName" : "Premium Yearly", "locale" : "en_US" } ],
                  "productID" : "com.train.premium.yearly", "recurringSubscriptionPeriod" : "P1Y", "referenceName" : "premium-yearly",
                  "subscriptionGroupID" : "21C3D4E5", "type" : "RecurringSubscription"
                }
              ]
            }
          ],
          "version" : { "major" : 3, "minor" : 0 }
        }
        """#.utf8)

    static let tiers: [String: SubscriptionTier] = [
        "com.train.summer.pass": .pro, "com.train.lifetime": .premium, "com.train.pro.weekly": .pro, "com.train.premium.yearly": .premium,
    ]

    @Test("a StoreKit configuration file gives every product with its type, name, price, period and group, and the app's tiers")
    func storeKitConfiguration() async throws {
        let catalog = try StoreCatalog(
            storeKitConfiguration: Self.storeKitFile, tiers: Self.tiers, nonRenewingDurations: ["com.train.summer.pass": .threeMonths])
        #expect(
            catalog.products.first { $0.id == "com.train.coaching" }?.localizedNames == ["de_DE": "Coaching-Sitzung", "en_US": "Coaching session"])
        // The rest compared without the localized names.
        let byID = Dictionary(
            uniqueKeysWithValues: catalog.products.map { product in
                var product = product
                product.localizedNames = [:]
                return (product.id, product)
            })
        #expect(byID.count == 5)
        #expect(
            byID["com.train.summer.pass"]
                == .nonRenewing(id: "com.train.summer.pass", displayName: "Summer Pass", tier: .pro, duration: .threeMonths, price: 14.99))
        #expect(byID["com.train.coaching"] == .consumable(id: "com.train.coaching", displayName: "Coaching session", price: 9.99))
        var lifetime = AppStoreProduct.nonConsumable(id: "com.train.lifetime", displayName: "Lifetime", tier: .premium, price: 199)
        lifetime.isFamilyShareable = true // the file's familyShareable
        #expect(byID["com.train.lifetime"] == lifetime)
        var weekly = AppStoreProduct(
            id: "com.train.pro.weekly", displayName: "Pro Weekly", tier: .pro, period: .week, price: 1.99, subscriptionGroupID: "21C3D4E5")
        weekly.introductoryOffer = .freeTrial(.week)
        #expect(byID["com.train.pro.weekly"] == weekly, "with its introductory offer")
        #expect(byID["com.train.premium.yearly"]?.period == .year && byID["com.train.premium.yearly"]?.tier == .premium)
        #expect(
            byID["com.train.premium.yearly"]?.offers == [
                SubscriptionOffer(id: "half-off", type: .promotional, paymentMode: .payUpFront, period: .year, price: Decimal(3_999) / 100),
                SubscriptionOffer(id: "coach", type: .code, paymentMode: .payAsYouGo, period: .year, periodCount: 1, price: Decimal(99) / 100),
            ])
        // The catalog runs a store: a weekly subscription upgraded to the yearly Premium in the same group.
        let clock = ManualClock()
        let store = SimulatedAppStore(context: TrainContext(clock: clock), configuration: AppStoreConfiguration(products: catalog.products))
        let service = LocalSubscriptionService(store: store, context: store.context)
        _ = try await service.purchase("com.train.pro.weekly")
        _ = try await service.purchase("com.train.premium.yearly")
        #expect(service.currentTier == .premium)
        #expect(try await service.subscriptionStatuses().count == 1)
    }

    @Test("a catalog survives TrainKit's JSON")
    func jsonRoundTrip() throws {
        let catalog = try StoreCatalog(
            storeKitConfiguration: Self.storeKitFile, tiers: Self.tiers, nonRenewingDurations: ["com.train.summer.pass": .threeMonths])
        let json = try catalog.jsonData()
        #expect(try StoreCatalog(json: json) == catalog)
        #expect(String(decoding: json, as: UTF8.self).contains(#""period" : "P1W""#))
        // A catalog an earlier version wrote: auto-renewable subscriptions with "month" and "year" periods.
        let earlier = try JSONEncoder().encode(["products": AppStoreProduct.standard])
        let text = String(decoding: earlier, as: UTF8.self).replacingOccurrences(of: #""P1M""#, with: #""month""#)
            .replacingOccurrences(of: #","type":"autoRenewable""#, with: "")
        #expect(try StoreCatalog(json: Data(text.utf8)).products == AppStoreProduct.standard)
    }

    @Test(
        "a bad catalog is invalidArgument naming what is wrong",
        arguments: [
            #"{"products": [{"id": "a", "displayName": "A", "type": "autoRenewable", "tier": "pro", "price": 1}]}"#,
            #"{"products": [{"id": "a", "displayName": "A", "type": "consumable", "tier": "pro", "price": 1}]}"#,
            #"{"products": [{"id": "a", "displayName": "A", "type": "nonConsumable", "tier": "pro", "price": -1}]}"#,
            #"{"products": [{"id": "a", "displayName": "A", "type": "nonRenewable", "tier": "pro", "price": 1, "period": "P0M"}]}"#,
            #"{"products": [{"id": "a\u0000", "displayName": "A", "type": "nonConsumable", "tier": "pro", "price": 1}]}"#,
            #"{"products": [{"id": "", "displayName": "A", "type": "nonConsumable", "tier": "pro", "price": 1}]}"#,
            #"{"products": [{"id": "a", "displayName": "A", "type": "lifetime", "tier": "pro", "price": 1}]}"#,
            #"{"products": [{"id": "a", "displayName": "A", "type": "nonConsumable", "tier": "pro", "price": 1}, {"id": "a", "displayName": "B", "type": "consumable", "tier": "free", "price": 1}]}"#,
            "not json",
        ])
    func badCatalog(json: String) {
        #expect(throws: SubscriptionError(.invalidArgument)) { _ = try StoreCatalog(json: Data(json.utf8)) }
    }

    @Test("a StoreKit file with a non-renewing subscription of no duration, an unknown type or a bad price is invalidArgument")
    func badStoreKitConfiguration() {
        #expect(throws: SubscriptionError(.invalidArgument)) { _ = try StoreCatalog(storeKitConfiguration: Self.storeKitFile, tiers: Self.tiers) }
        for (from, to) in [
            (#""type" : "Consumable""#, #""type" : "Bundle""#), (#""displayPrice" : "9.99""#, #""displayPrice" : "9,99 €""#),
            (#""recurringSubscriptionPeriod" : "P1W""#, #""recurringSubscriptionPeriod" : "weekly""#),
        ] {
            let file = Data(String(decoding: Self.storeKitFile, as: UTF8.self).replacingOccurrences(of: from, with: to).utf8)
            #expect(throws: SubscriptionError(.invalidArgument), "\(to)") {
                _ = try StoreCatalog(storeKitConfiguration: file, tiers: Self.tiers, nonRenewingDurations: ["com.train.summer.pass": .week])
            }
        }
        #expect(throws: SubscriptionError(.invalidArgument)) { _ = try StoreCatalog(storeKitConfiguration: Data("[]".utf8), tiers: [:]) }
    }
}
