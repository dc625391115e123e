import Foundation
import Testing
import TrainCore
import TrainTesting

@testable import TrainAccount

/// ACC-9: a journal record that cannot be read is set aside, reported, and the
/// deletion starts again from its first step.
@Suite(.timeLimit(.minutes(1))) struct DeletionJournalTests {
    /// Writes `bytes` as `userID`'s journal record, as a damaged file or another version would.
    static func plant(_ bytes: Data, for userID: String, in account: LocalAccountService) throws {
        try account.store.write { records in try records.put(bytes, forKey: userID, in: AccountRecords.deletionBytes) }
    }

    static let newerLayout = Data(
        #"{"layout":3,"deletion":{"userID":"x"},"finishedSteps":["appleRevocation","quarantine"],"report":{}}"#.utf8)

    @Test(
        "an unreadable journal record of the user — damaged bytes, or a newer layout — is set aside with its bytes, reported, and the deletion runs from its first step",
        arguments: [("damaged", Data([0xFF, 0x00, 0x7B, 0x22])), ("newer", newerLayout)])
    func unreadableRecordOfTheUser(kind: String, bytes: Data) async throws {
        let world = try AccountWorld(.file)
        let ada = try await world.signIn()
        try await world.makeBusy()
        try Self.plant(bytes, for: ada.id, in: world.account)
        #expect(try world.account.pendingDeletion(of: ada.id) == nil, "an unreadable record reads as none")

        let deletion = try await world.account.deleteAccount(of: ada.id)
        #expect(deletion.userID == ada.id)
        let report = try await world.account.deletionCompletion(of: ada.id)
        #expect(report.warnings.contains(AccountDeletionReport.journalSetAsideWarning))
        #expect(report.social.posts == 1 && report.plans.remoteRecords == 1 && report.localRecords == 1, "every step ran")
        let setAside = try world.account.setAsideDeletionRecords()
        #expect(setAside.map(\.bytes) == [bytes], "kept as they were")
        #expect(setAside.first?.userID == ada.id)
        #expect(setAside.first?.reason.contains(kind) == true, "\(setAside.first?.reason ?? "")")
    }

    @Test("another user's unreadable record left on the device stops no one's deletion and is kept aside")
    func unreadableRecordOfAnotherUser() async throws {
        let world = try AccountWorld(.file)
        let ada = try await world.signIn()
        try Self.plant(Data("not json".utf8), for: "someone-who-left", in: world.account)
        try await world.account.deleteAccount(of: ada.id)
        let report = try await world.account.deletionCompletion(of: ada.id)
        #expect(!report.warnings.contains(AccountDeletionReport.journalSetAsideWarning), "Ada's own journal was fine")
        #expect(try world.account.pendingDeletions().isEmpty)
        #expect(try world.account.setAsideDeletionRecords().map(\.userID) == ["someone-who-left"])
    }

    @Test("a record of a hidden user's purge that cannot be read is set aside and the purge runs from its first step after a relaunch")
    func unreadableRecordOfAHiddenUser() async throws {
        let remote = FakeRemotePlanStore.inMemory()
        let world = try AccountWorld(.file, remote: remote)
        let (ada, failedAt) = try await world.deleteAdaWithTheRemoteDown(remote)
        #expect(failedAt == .plans)
        try Self.plant(Data([0x00]), for: ada.id, in: world.account)
        remote.heal()
        let relaunched = try world.relaunchedAccount()
        let report = try await relaunched.purgeDueDeletions().first { $0.userID == ada.id }
        let purged = try #require(report)
        #expect(purged.warnings.contains(AccountDeletionReport.journalSetAsideWarning))
        #expect(purged.plans.remoteRecords == 1 && purged.providers == [.apple])
        #expect(try relaunched.setAsideDeletionRecords().count == 1)
    }

    @Test("a record set aside during one deletion is reported by that deletion only, not by a later one of the same user")
    func setAsideRecordIsReportedOnce() async throws {
        let stack = try FakeStack()
        try Self.plant(Data("not json".utf8), for: stack.userID, in: stack.account)
        try await stack.account.deleteAccount(of: stack.userID)
        let first = try await stack.account.deletionCompletion(of: stack.userID)
        #expect(first.warnings.contains(AccountDeletionReport.journalSetAsideWarning))

        // The same account signs in again later (the fake's IDs are fixed) and deletes it again.
        stack.auth.setCurrentUser(FakeAuthService.sampleUser)
        stack.clock.advance(by: .seconds(60))
        try await stack.account.deleteAccount(of: stack.userID)
        let later = try await stack.account.deletionCompletion(of: stack.userID)
        #expect(later.startedAt > first.startedAt, "the later deletion's report")
        #expect(!later.warnings.contains(AccountDeletionReport.journalSetAsideWarning), "\(later.warnings)")
        #expect(try stack.account.setAsideDeletionRecords().count == 1, "the record is still kept for diagnosis")
    }

    @Test("an account service whose background purge has started is freed once nobody holds it")
    func purgeTaskDoesNotKeepTheServiceAlive() async throws {
        weak var released: LocalAccountService?
        do {
            let services = TrainServices.inMemory(configuration: TrainServicesConfiguration(context: TrainContext(clock: ManualClock())))
            _ = try await services.account.purgeDueDeletions()
            released = services.account
        }
        // The background round that purgeDueDeletions woke may still hold it for a moment.
        for _ in 0..<10_000 where released != nil { await Task.yield() }
        #expect(released == nil)
    }
}
