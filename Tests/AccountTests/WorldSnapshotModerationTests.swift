import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainTesting

/// What moderation keeps, in a world's snapshot: reports, cases, suspensions,
/// moderators and the audit trail, with the posts and comments it hides.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct WorldSnapshotModerationTests {

    let clock = ManualClock()
    var configuration: TrainServicesConfiguration {
        TrainServicesConfiguration(context: TrainContext(clock: clock), socialPolicy: SocialPolicy(hideAfterReports: 2, admins: ["root"]))
    }
    nonisolated static let spam = UUID(uuidString: "0196f5a0-0000-7000-8000-000000000001") ?? UUID()
    nonisolated static let run = UUID(uuidString: "0196f5a0-0000-7000-8000-000000000002") ?? UUID()
    nonisolated static let nice = UUID(uuidString: "0196f5a0-0000-7000-8000-000000000003") ?? UUID()

    /// Root is an admin; Eve posted spam and a run, which Grace commented on.
    static let people = #"""
        {"version": 1,
         "users": [{"id": "root"}, {"id": "grace", "email": "grace@example.com", "providers": [{"provider": "emailCode", "subject": "grace@example.com"}]},
                   {"id": "linus"}, {"id": "eve"}],
         "posts": [{"id": "\#(spam)", "author": "eve", "content": "Buy followers"}, {"id": "\#(run)", "author": "eve", "content": "Morning run"}],
         "comments": [{"id": "\#(nice)", "post": "\#(run)", "author": "grace", "text": "Nice"}]}
        """#

    /// Grace and Linus report the spam, which their reports hide; Eve reports Grace's
    /// comment; Root makes Grace a moderator, who takes the spam down; Root suspends Eve.
    func moderatedWorld() async throws -> TrainServices {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.people.utf8)), configuration: configuration)
        let grace = try services.makeDevice(for: "grace")
        let linus = try services.makeDevice(for: "linus")
        let eve = try services.makeDevice(for: "eve")
        let root = try services.makeDevice(for: "root")
        try await grace.social.report(.post(Self.spam), reason: .spam, details: "Ads")
        clock.advance(by: .seconds(10))
        try await linus.social.report(.post(Self.spam), reason: .spam, details: nil)
        try await linus.social.report(.user("eve"), reason: .harassment, details: nil)
        try await eve.social.report(.comment(Self.nice), reason: .harassment, details: nil)
        clock.advance(by: .seconds(10))
        try await root.social.moderate(.user("grace"), action: .grantModerator, note: nil)
        try await grace.social.moderate(.post(Self.spam), action: .takeDown, note: "Spam")
        clock.advance(by: .seconds(10))
        try await root.social.moderate(.user("eve"), action: .suspend, note: "Repeated spam")
        return services
    }

    @Test("reports, cases, a suspension, a moderator and the trail export and import to the same bytes, in memory and in files")
    func sameBytes() async throws {
        let first = try await moderatedWorld().exportWorld().encoded()
        let snapshot = try WorldSnapshot(json: first)
        #expect(snapshot.reports.count == 4 && snapshot.moderationCases.count == 3 && snapshot.moderationLog.count == 3)
        #expect(snapshot.suspensions.map(\.user) == ["eve"] && snapshot.moderators.map(\.user) == ["grace"])
        #expect(snapshot.posts.first { $0.id == Self.spam }?.isHiddenByModeration == true)
        #expect(try TrainServices.inMemory(from: snapshot, configuration: configuration).exportWorld().encoded() == first)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("moderation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try TrainServices.files(in: directory, from: snapshot, configuration: configuration).exportWorld().encoded() == first)
    }

    @Test("the imported world's moderators see the same queue and trail, a granted moderator moderates, and the hidden post stays hidden")
    func sameModeration() async throws {
        let original = try await moderatedWorld()
        let imported = try TrainServices.inMemory(from: try original.exportWorld(), configuration: configuration)
        for services in [original, imported] {
            let root = try services.makeDevice(for: "root")
            let queue = try await root.social.moderationQueue(limit: 20, after: nil)
            #expect(queue.map(\.target) == [.comment(Self.nice)] && queue.map(\.reportCount) == [1])
            let log = try await root.social.moderationLog(limit: 20, after: nil)
            #expect(log.map(\.action) == [.suspend, .takeDown, .grantModerator])
            let grace = try services.makeDevice(for: "grace")
            #expect(try await grace.social.moderationQueue(limit: 20, after: nil).count == 1, "Grace moderates")
            let linus = try services.makeDevice(for: "linus")
            await #expect(throws: SocialError(.postNotFound)) { try await linus.social.like(Self.spam) }
        }
        let root = try imported.makeDevice(for: "root")
        let a = try await root.social.moderationLog(limit: 20, after: nil)
        let b = try await original.makeDevice(for: "root").social.moderationLog(limit: 20, after: nil)
        #expect(a == b)
    }

    @Test("a reported comment whose author deleted their account leaves the export with its report and case, and the export imports")
    func deletedAuthor() async throws {
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(Self.people.utf8)), configuration: configuration)
        let grace = try services.makeDevice(for: "grace")
        let eve = try services.makeDevice(for: "eve")
        try await eve.social.report(.comment(Self.nice), reason: .harassment, details: nil)
        try await grace.account.deleteAccount(of: "grace")
        _ = try await grace.account.deletionCompletion(of: "grace")
        let snapshot = try services.exportWorld()
        #expect(snapshot.comments.isEmpty && snapshot.reports.isEmpty && snapshot.moderationCases.isEmpty)
        let first = try snapshot.encoded()
        #expect(try TrainServices.inMemory(from: try WorldSnapshot(json: first), configuration: configuration).exportWorld().encoded() == first)
    }

    @Test("a report a fixture gives no case opens one at the report, in the moderators' queue")
    func reportOpensCase() async throws {
        let json = #"""
            {"version": 1, "users": [{"id": "root"}, {"id": "grace"}, {"id": "eve"}],
             "posts": [{"id": "\#(Self.spam)", "author": "eve", "content": "Buy followers", "createdAt": "2019-12-31T00:00:00Z"}],
             "reports": [{"reporter": "grace", "post": "\#(Self.spam)", "reason": "spam", "createdAt": "2020-01-01T00:00:00Z"}]}
            """#
        let services = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), signedIn: "root", configuration: configuration)
        let queue = try await services.social.moderationQueue(limit: 20, after: nil)
        #expect(queue.map(\.target) == [.post(Self.spam)] && queue.map(\.status) == [.open])
        #expect(queue.first?.openedAt == Date(timeIntervalSince1970: 1_577_836_800))
        #expect(try services.exportWorld().moderationCases.map(\.status) == [.open])
    }

    @Test(
        "moderation moderation would not have left is a typed error naming its path",
        arguments: [
            (#""reports": [{"reporter": "eve", "post": "\#(spam)", "reason": "spam"}]"#, "reports[0]"),
            (#""reports": [{"reporter": "grace", "post": "\#(nice)", "reason": "spam"}]"#, "reports[0]"),
            (#""reports": [{"reporter": "grace", "post": "\#(spam)", "user": "eve", "reason": "spam"}]"#, "reports[0]"),
            (
                #""reports": [{"reporter": "grace", "user": "eve", "reason": "spam"}, {"reporter": "grace", "user": "eve", "reason": "other"}]"#,
                "reports[1]"
            ),
            (#""reports": [{"reporter": "grace", "user": "eve", "reason": "spam", "details": "a\u0007b"}]"#, "reports[0].details"),
            (#""moderationCases": [{"post": "\#(spam)", "status": "takenDown", "reviewedAt": "2020-01-01T00:00:00Z"}]"#, "moderationCases[0].status"),
            (#""moderationCases": [{"post": "\#(spam)", "status": "dismissed"}]"#, "moderationCases[0].reviewedAt"),
            (#""moderationCases": [{"post": "\#(spam)", "status": "open"}]"#, "moderationCases[0].status"),
            (#""moderationCases": [{"post": "\#(nice)", "status": "takenDown", "reviewedAt": "2020-01-01T00:00:00Z"}]"#, "moderationCases[0]"),
            (
                #""moderationCases": [{"user": "eve", "status": "dismissed", "reviewedAt": "2020-01-01T00:00:00Z", "removedContent": "x"}]"#,
                "moderationCases[0].status"
            ),
            (#""moderationCases": [{"user": "eve", "status": "suspended", "reviewedAt": "2020-01-01T00:00:00Z"}]"#, "moderationCases[0].status"),
            (
                #""suspensions": [{"user": "eve"}], "moderationCases": [{"user": "eve", "status": "restored", "reviewedAt": "2020-01-01T00:00:00Z"}]"#,
                "moderationCases[0].status"
            ),
            (
                #""reports": [{"reporter": "grace", "post": "\#(spam)", "reason": "spam", "createdAt": "2000-01-01T00:00:00Z"}]"#,
                "reports[0].createdAt"
            ),
            (#""moderationLog": [{"action": "takeDown", "user": "eve"}]"#, "moderationLog[0].action"),
            (
                #""moderationLog": [{"action": "suspend", "user": "eve", "date": "2020-01-01T00:00:00Z"}, {"action": "unsuspend", "user": "eve", "date": "2020-02-01T00:00:00Z"}]"#,
                "moderationLog[1].id"
            ),
            (
                #""reports": [{"reporter": "grace", "user": "eve", "reason": "spam"}], "moderationCases": [{"user": "eve"}, {"user": "eve"}]"#,
                "moderationCases[1]"
            ),
            (#""moderationCases": [{"user": "eve", "status": "hidden"}]"#, "moderationCases[0].status"),
            (#""suspensions": [{"user": "bob"}]"#, "suspensions[0].user"),
            (#""moderators": [{"user": "grace"}, {"user": "grace"}]"#, "moderators[1].user"),
            (#""moderationLog": [{"action": "suspend"}]"#, "moderationLog[0]"),
            (#""moderationLog": [{"action": "suspend", "user": "eve", "date": "2999-01-01T00:00:00Z"}]"#, "moderationLog[0].date"),
        ])
    func refused(moderation: String, path: String) throws {
        let json = #"""
            {"version": 1, "users": [{"id": "root"}, {"id": "grace"}, {"id": "eve"}],
             "posts": [{"id": "\#(Self.spam)", "author": "eve", "content": "Buy followers"}], \#(moderation)}
            """#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == path, "\(error?.detail ?? "")")
    }

    @Test("a post marked hidden without a case that hides it is refused, naming the post")
    func hiddenWithoutCase() throws {
        let json = #"""
            {"version": 1, "users": [{"id": "eve"}],
             "posts": [{"id": "\#(Self.spam)", "author": "eve", "content": "Buy followers", "isHiddenByModeration": true}]}
            """#
        let error = #expect(throws: WorldSnapshotError.self) {
            _ = try TrainServices.inMemory(from: try WorldSnapshot(json: Data(json.utf8)), configuration: configuration)
        }
        #expect(error?.path == "posts[0].isHiddenByModeration")
    }
}
