import Foundation
import Testing
import TrainCore
import TrainSync
import TrainTesting

/// SYNC-16: the remote signals its commits; a signal and a local edit each start a
/// sync by themselves; plans are a stream a view model follows.
@Suite(.timeLimit(.minutes(1))) struct LiveSyncTests {
    static let scope = RemoteScope(userID: "ada", collection: "plans")

    /// Whether the background manager's status is idle after a sync.
    static func synced(_ status: BackgroundSyncStatus) -> Bool {
        if case .idle(let date) = status { date != nil } else { false }
    }

    @Test(
        "an edit on the phone is on the tablet within the debounce on the phone's test clock, with no call by the app",
        arguments: SyncVariant.allCases)
    func editReachesTablet(_ variant: SyncVariant) async throws {
        let world = try SyncWorld(variant)
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let plan = try await phone.plans.createPlan(Fixture.plan(notes: "first"))
        try await phone.plans.sync()
        let managers = [phone, tablet].map {
            BackgroundSyncManager(
                service: $0.plans, context: TrainContext(clock: $0.clock), configuration: BackgroundSyncConfiguration(jitter: { 0.5 }))
        }
        for manager in managers {
            manager.start()
            _ = await manager.statusUpdates().firstValue(where: Self.synced)
        }
        let updates = tablet.plans.planUpdates()
        #expect(try tablet.plans.plan(id: plan.id)?.notes == "first")
        let tabletTime = tablet.clock.now
        var edited = plan
        edited.notes = "edited on the phone"
        _ = try await phone.plans.updatePlan(edited)
        // The phone's manager plans a sync a debounce after the edit; nothing else runs it.
        await phone.clock.waitForSleeper(wakingBy: phone.clock.now.addingTimeInterval(1))
        phone.clock.advance(by: .seconds(1))
        let arrived = await updates.firstValue(where: { $0.first { $0.id == plan.id }?.notes == "edited on the phone" })
        #expect(arrived != nil, "the tablet shows the edit")
        #expect(tablet.clock.now == tabletTime, "the tablet's clock did not move")
        for manager in managers { manager.stop() }
    }

    @Test("a device's own commits are no news to it: its edit is a trigger, the other device's commit too, its own commit not")
    func ownCommitsAreNotNews() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let phoneFirst = phone.plans.syncTriggers()
        let tabletFirst = tablet.plans.syncTriggers()
        _ = try await phone.plans.createPlan(Fixture.plan())
        try await phone.plans.sync()
        #expect(await phoneFirst.collect(1) == [.localEdit])
        #expect(await phoneFirst.collect(1, within: .milliseconds(300)).isEmpty, "the phone's own commit is not news to it")
        #expect(await tabletFirst.collect(1) == [.remoteChange], "the phone's commit is news to the tablet")
        try await tablet.plans.sync()
        let phoneSecond = phone.plans.syncTriggers()
        let tabletSecond = tablet.plans.syncTriggers()
        _ = try await tablet.plans.createPlan(Fixture.plan("tablet's"))
        try await tablet.plans.sync()
        #expect(await tabletSecond.collect(1) == [.localEdit])
        #expect(await tabletSecond.collect(1, within: .milliseconds(300)).isEmpty, "the tablet's own commit is not news to it")
        #expect(await phoneSecond.collect(1) == [.remoteChange])
    }

    @Test("the plans stream gives the plans now, then each edit, deletion and download, and nothing for another user's changes")
    func planUpdates() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        let tablet = try world.device("tablet")
        let first = try await phone.plans.createPlan(Fixture.plan("first"))
        var updates = phone.plans.planUpdates().makeAsyncIterator()
        #expect(await updates.next()?.map(\.name) == ["first"])
        var renamed = first
        renamed.name = "renamed"
        _ = try await phone.plans.updatePlan(renamed)
        #expect(await updates.next()?.map(\.name) == ["renamed"])
        let second = try await tablet.plans.createPlan(Fixture.plan("from the tablet"))
        try await tablet.plans.sync()
        try await phone.plans.sync()
        #expect(await updates.next()?.map(\.name).sorted() == ["from the tablet", "renamed"])
        try await phone.plans.deletePlan(id: second.id)
        #expect(await updates.next()?.map(\.name) == ["renamed"])
        phone.signIn("grace")
        #expect(await updates.next() == [], "another user sees none of Ada's plans")
    }

    @Test("a remote signals each commit to the devices following the scope, with the writer, and another scope's commits to nobody there")
    func remoteSignals() async throws {
        let remote = LocalRemotePlanStore()
        let signals = remote.changeSignals(for: Self.scope)
        let graces = remote.changeSignals(for: RemoteScope(userID: "grace", collection: "plans"))
        let write = RemoteMutation(
            id: MutationID(replicaID: "phone", sequence: 1), recordID: UUID(), baseVersion: nil, isDeletion: false, document: Data("a".utf8))
        _ = try await remote.write([write], in: Self.scope)
        _ = try await remote.write([write], in: Self.scope) // applied once: no second signal
        _ = try await remote.erase(Self.scope)
        #expect(await signals.collect(2) == [RemoteChangeSignal(version: 1, writer: "phone"), RemoteChangeSignal(version: 2, writer: nil)])
        #expect(await signals.collect(1, within: .milliseconds(300)).isEmpty)
        #expect(await graces.collect(1, within: .milliseconds(200)).isEmpty)
    }

    @Test("a remote in a file signals the commits another instance on the file makes, within the poll interval on its clock")
    func secondInstance() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let watching = try LocalRemotePlanStore(storage: .file(directory.file("remote.sqlite")), context: TrainContext(clock: clock))
        let writing = try LocalRemotePlanStore(storage: .file(directory.file("remote.sqlite")), context: TrainContext(clock: clock))
        let signals = watching.changeSignals(for: Self.scope)
        await clock.waitForSleepers(1)
        let write = RemoteMutation(
            id: MutationID(replicaID: "other", sequence: 1), recordID: UUID(), baseVersion: nil, isDeletion: false, document: Data("a".utf8))
        _ = try await writing.write([write], in: Self.scope)
        clock.advance(by: .seconds(1))
        #expect(await signals.collect(1) == [RemoteChangeSignal(version: 1, writer: nil)])
    }

    @Test("a remote in a file signals a commit another process makes to the file")
    func anotherProcess() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock()
        let file = directory.file("remote.sqlite")
        let watching = try LocalRemotePlanStore(storage: .file(file), context: TrainContext(clock: clock))
        let signals = watching.changeSignals(for: Self.scope)
        await clock.waitForSleepers(1)
        let child = try ChildProcess("train-account-probe", arguments: ["remote-write", file.path, "ada"])
        let (status, errors) = await child.wait()
        #expect(status == 0, "\(errors)")
        clock.advance(by: .seconds(1))
        #expect(await signals.collect(1) == [RemoteChangeSignal(version: 1, writer: nil)])
    }

    @Test("a consumer of the plans stream that reads slowly is given the latest list, not every list in between")
    func slowConsumer() async throws {
        let world = try SyncWorld()
        let phone = try world.device("phone")
        var plan = try await phone.plans.createPlan(Fixture.plan(notes: "start"))
        let slow = phone.plans.planUpdates()
        let fast = phone.plans.planUpdates()
        for index in 0..<200 {
            plan.notes = "edit \(index)"
            plan = try await phone.plans.updatePlan(plan)
        }
        #expect(await fast.firstValue(where: { $0.first?.notes == "edit 199" }) != nil)
        let lists = await slow.collect(300, within: .milliseconds(300))
        #expect(lists.count <= 2, "\(lists.count) lists held for a consumer that did not read")
        #expect(lists.last?.first?.notes == "edit 199")
    }
}
