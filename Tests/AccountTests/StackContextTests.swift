import Foundation
import Testing
import TrainAccount
import TrainCore
import TrainSocial
import TrainTesting

/// A stack's context reaches every service: its clock, its IDs and its time zone.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct StackContextTests {
    func stack(_ context: TrainContext, moderators: [String] = []) -> TrainServices {
        var configuration = TrainServicesConfiguration(context: context)
        configuration.socialPolicy.moderators = moderators
        return TrainServices.inMemory(configuration: configuration)
    }

    @Test("on a test context, two stacks give their users the same IDs, made by the context's generator")
    func deterministicUserIDs() async throws {
        func userIDs() async throws -> [String] {
            let services = stack(.test(ids: SequentialIDGenerator(prefix: "user-")))
            return [try await services.addUser(named: "Ada").id, try await services.addUser(named: "Grace").id]
        }
        let first = try await userIDs()
        #expect(try await userIDs() == first)
        #expect(first.allSatisfy { $0.hasPrefix("user-") } && Set(first).count == 2, "\(first)")
    }

    @Test("a test names a moderator before the user exists, and that user reads the moderation queue")
    func moderatorNamedUpFront() async throws {
        let probe = stack(.test(ids: SequentialIDGenerator(prefix: "user-")))
        let moderatorID = try await probe.addUser(named: "Mo").id
        let services = stack(.test(ids: SequentialIDGenerator(prefix: "user-")), moderators: [moderatorID])
        let moderator = try await services.addUser(named: "Mo")
        #expect(moderator.id == moderatorID)
        let phone = try services.makeDevice(for: moderator.id)
        #expect(try await phone.social.moderationQueue(limit: 10, after: nil).isEmpty)
    }

    @Test("the stack's services read the context's clock and time zone: a workout unlocks the feed until midnight there")
    func clockAndTimeZone() async throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_767_268_800)) // 2026-01-01 12:00 UTC
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let services = stack(.test(clock: clock, timeZone: tokyo))
        let phone = try services.makeDevice(for: try await services.addUser(named: "Ada").id)
        let unlock = try await phone.social.unlockFeed(workoutType: .run)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = tokyo
        let midnight = calendar.startOfDay(for: clock.now.addingTimeInterval(86_400))
        #expect(unlock.expiresAt == midnight)
    }
}
