import Foundation
import Testing
import TrainCore
import TrainSubscription
import TrainTesting

// The code of TrainSubscription.docc/Extensions/SimulatedAppStore.md, kept compiling and correct here.
// When you change one, change the other.

@Test("the overview's server notification is verified as an app's server verifies it")
func serverNotificationOfARefund() async throws {
    let store = SimulatedAppStore(context: TrainContext(clock: ManualClock()))
    let transaction = try store.buyOutsideApp(productID: "com.train.pro.monthly").unsafePayloadValue
    let verifier = store.notificationVerifier()
    try store.refund(transactionID: transaction.id)
    let posted = try #require(store.serverNotifications.last)
    let notification = try verifier.verify(posted.signedPayload) // what the app's server does
    #expect(notification.type == .refund && notification.status == .revoked)
}
