import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAuth

/// A session ended from elsewhere — the account deleted, disabled or its password
/// changed on another device — ends on every device at its next read, each told why;
/// and a purge once begun can no longer be turned back by any clock.
@Suite(.timeLimit(.minutes(1))) struct SessionEndTests {
    static let thirtyDays: TimeInterval = 30 * 86_400

    /// Ada signed in with Apple on a phone and a tablet sharing one world's accounts.
    func twoDevices(_ harness: AuthHarness) async throws -> (phone: LocalAuthService, tablet: LocalAuthService, ada: UserEntity) {
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        harness.apple.signIn(as: AuthHarness.ada)
        let ada = try await phone.signInWithApple()
        harness.apple.signIn(as: AuthHarness.ada)
        _ = try await tablet.signInWithApple()
        return (phone, tablet, ada)
    }

    @Test(
        "a deletion asked on one device signs the user's other devices out at their next read, saying the account was deleted",
        arguments: AuthVariant.allCases)
    func deletionReachesOtherDevices(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let (phone, tablet, ada) = try await twoDevices(harness)
        try await phone.scheduleAccountDeletion(of: ada.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))
        #expect(phone.lastSessionEnd?.reason == .accountDeleted)
        #expect(tablet.currentUser == nil, "the tablet's next read finds the session ended")
        #expect(tablet.lastSessionEnd == SessionEnd(userID: ada.id, reason: .accountDeleted, date: harness.clock.now))
        await #expect(throws: AuthenticationError(.notSignedIn)) { _ = try await tablet.idToken() }
    }

    @Test("the other device's state stream says nil by itself, without any call on that device", arguments: AuthVariant.allCases)
    func deletionIsToldWithoutACall(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let (phone, tablet, ada) = try await twoDevices(harness)
        let states = tablet.authStateChanges()
        try await phone.deleteAccount()
        let told = await states.firstValue { $0 == nil }
        #expect(told == .some(nil), "the tablet's stream told the sign-out")
        #expect(tablet.lastSessionEnd?.userID == ada.id && tablet.lastSessionEnd?.reason == .accountDeleted)
    }

    @Test("a device that was not running when the account was deleted is signed out at its next launch and told why, until a sign-in there")
    func deletionIsToldAtTheNextLaunch() async throws {
        let harness = try AuthHarness(.file)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        var tablet: LocalAuthService? = try harness.device(on: store, session: "tablet")
        harness.apple.signIn(as: AuthHarness.ada)
        let ada = try await phone.signInWithApple()
        harness.apple.signIn(as: AuthHarness.ada)
        _ = try await tablet?.signInWithApple()
        tablet = nil
        try await phone.scheduleAccountDeletion(of: ada.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))

        let reopened = try RecordStore(.file(harness.directory.file("shared.sqlite")), schema: LocalAuthService.recordSchema)
        let relaunched = try harness.device(on: reopened, session: "tablet")
        #expect(relaunched.currentUser == nil)
        #expect(relaunched.lastSessionEnd?.userID == ada.id && relaunched.lastSessionEnd?.reason == .accountDeleted)
        #expect(
            try harness.device(on: reopened, session: "tablet").lastSessionEnd?.reason == .accountDeleted,
            "every launch tells it, as an extension's would")
        harness.apple.signIn(as: AuthHarness.grace)
        _ = try await relaunched.signInWithApple()
        #expect(try harness.device(on: reopened, session: "tablet").lastSessionEnd == nil, "a sign-in on the device replaces it")
    }

    @Test(
        "signing in again during the grace period on another device is a new session that the earlier hide does not end",
        arguments: AuthVariant.allCases)
    func signInDuringGraceStands(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let (phone, tablet, ada) = try await twoDevices(harness)
        try await phone.scheduleAccountDeletion(of: ada.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))
        harness.apple.signIn(as: AuthHarness.ada)
        #expect(try await tablet.signInWithApple().id == ada.id)
        #expect(tablet.currentUser?.id == ada.id)
        try await tablet.cancelScheduledDeletion(of: ada.id)
        #expect(tablet.currentUser?.id == ada.id, "the restore keeps the session")
    }

    @Test(
        "a disabled account and a password changed elsewhere end other devices' sessions with their reasons; a sign-out says signedOut",
        arguments: AuthVariant.allCases)
    func otherReasons(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        let ada = try await phone.createUser(email: "ada@example.com", password: "correct horse 1")
        _ = try await tablet.signIn(with: .emailPassword(email: "ada@example.com", password: "correct horse 1"))
        try await phone.updatePassword(to: "new horse 2")
        #expect(tablet.currentUser == nil && tablet.lastSessionEnd?.reason == .sessionRevoked)
        #expect(phone.currentUser?.id == ada.id, "the device that changed it stays signed in")

        _ = try await tablet.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
        try await phone.setAccountDisabled(true, userID: ada.id)
        #expect(phone.lastSessionEnd?.reason == .accountDisabled)
        #expect(tablet.currentUser == nil && tablet.lastSessionEnd?.reason == .accountDisabled)

        try await phone.setAccountDisabled(false, userID: ada.id)
        _ = try await phone.signIn(with: .emailPassword(email: "ada@example.com", password: "new horse 2"))
        try await phone.signOut()
        #expect(phone.lastSessionEnd?.reason == .signedOut)
    }

    @Test(
        "once a purge has begun, sign-in and restore are refused whatever the clock says, and the account stays due",
        arguments: AuthVariant.allCases)
    func purgeNeverTurnsBack(variant: AuthVariant) async throws {
        let harness = try AuthHarness(variant)
        let ada = try await harness.signInWithApple()
        let date = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        try await harness.service.scheduleAccountDeletion(of: ada.id, at: date)
        await #expect(throws: AuthenticationError(.operationNotAllowed), "not due yet: nothing changes") {
            try await harness.service.beginAccountPurge(of: ada.id)
        }
        #expect(try harness.service.scheduledDeletion(of: ada.id) == date)

        harness.clock.setDate(date)
        try await harness.service.beginAccountPurge(of: ada.id)
        try await harness.service.beginAccountPurge(of: ada.id)
        harness.clock.setDate(date.addingTimeInterval(-Self.thirtyDays / 2))
        let refused = await #expect(throws: AuthenticationError(.userDisabled)) { try await harness.signInWithApple() }
        #expect(refused?.errorDescription == AuthRecords.deletedMessage)
        #expect(try harness.service.scheduledDeletions().map(\.userID) == [ada.id], "still due for the purge")
        #expect(try harness.service.accountExists(ada.id))

        #expect(try await harness.service.purgeScheduledAccount(ada.id)?.userID == ada.id)
        #expect(try !harness.service.accountExists(ada.id))
        try await harness.service.beginAccountPurge(of: ada.id)
    }

    @Test("a restore is refused once the purge began, on a device signed in before the clock was set back")
    func restoreRefusedOnceBegun() async throws {
        let harness = try AuthHarness(.inMemory)
        let store = try harness.sharedStore()
        let phone = try harness.device(on: store, session: "phone")
        let tablet = try harness.device(on: store, session: "tablet")
        harness.apple.signIn(as: AuthHarness.ada)
        let ada = try await phone.signInWithApple()
        let date = harness.clock.now.addingTimeInterval(Self.thirtyDays)
        try await phone.scheduleAccountDeletion(of: ada.id, at: date)
        harness.apple.signIn(as: AuthHarness.ada)
        _ = try await tablet.signInWithApple()
        harness.clock.setDate(date)
        try await phone.beginAccountPurge(of: ada.id)
        harness.clock.setDate(date.addingTimeInterval(-60))
        #expect(tablet.currentUser == nil && tablet.lastSessionEnd?.reason == .accountDeleted)
        await #expect(throws: AuthenticationError(.notSignedIn)) { try await tablet.cancelScheduledDeletion(of: ada.id) }
        #expect(try tablet.scheduledDeletion(of: ada.id) == .distantPast)
    }

    @Test(
        "an app extension on its own store of the same file, sharing the app's session, is signed out at its next read when the app deletes the account"
    )
    func extensionOnTheSameFile() async throws {
        let harness = try AuthHarness(.file)
        let file = harness.directory.file("shared.sqlite")
        let app = try harness.device(on: try RecordStore(.file(file), schema: LocalAuthService.recordSchema), session: "current")
        harness.apple.signIn(as: AuthHarness.ada)
        let ada = try await app.signInWithApple()
        let widget = try harness.device(on: try RecordStore(.file(file), schema: LocalAuthService.recordSchema), session: "current")
        #expect(widget.currentUser?.id == ada.id)

        try await app.scheduleAccountDeletion(of: ada.id, at: harness.clock.now.addingTimeInterval(Self.thirtyDays))
        #expect(widget.currentUser == nil, "the other store's commit is seen at the next read")
        #expect(widget.lastSessionEnd?.reason == .accountDeleted)
    }
}
