import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

// The code of TrainSubscription.docc/ServerNotifications.md, kept compiling and correct here.

@Suite(.timeLimit(.minutes(1))) struct ServerNotificationsArticleTests {
    @Test("the article's store names its app in a test notification, which its verifier accepts")
    func appInNotifications() async throws {
        let app = try StoreApp(bundleID: "com.acme.run", appAppleID: 1_234_567_890)
        let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()), configuration: AppStoreConfiguration(app: app))
        try store.requestTestNotification()
        let verifier = store.notificationVerifier(environment: .simulated)
        let test = try verifier.verify(store.serverNotifications[0].signedPayload)
        print(test.bundleID, test.appAppleID ?? 0) // com.acme.run 0: no App Apple ID outside production
        #expect(test.bundleID == "com.acme.run" && test.appAppleID == nil && test.type == .test)
    }
}
