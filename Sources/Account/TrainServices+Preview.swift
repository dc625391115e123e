import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

extension TrainServices {
    /// A stack in memory for a SwiftUI preview: it cannot fail, and it starts with
    /// `user` signed in, whom its subscription service follows. Sample data is added by
    /// ``sampleDataLoaded``, which a preview shows as it arrives and a test can await:
    /// two friends the user follows, Grace and Linus, each with a post of today's
    /// workout; the user's feed locked, waiting for a workout of theirs to open it; two
    /// plans; and the policies accepted.
    ///
    /// ```swift
    /// #Preview {
    ///     let services = TrainServices.preview()
    ///     FeedView(model: FeedModel(session: services.makeSessionManager(), social: services.social))
    /// }
    /// ```
    /// - Parameters:
    ///   - user: The signed-in user; Ada, with Sign in with Apple, by default. Nil starts signed out.
    ///   - configuration: Clock, device, products and policies.
    /// - Returns: The stack.
    public static func preview(
        signedIn user: UserEntity? = TrainServices.previewUser, configuration: TrainServicesConfiguration = TrainServicesConfiguration()
    ) -> TrainServices {
        var configuration = configuration
        if configuration.workouts == nil {
            configuration.workouts = SimulatedWorkoutSource.samples(before: configuration.context.clock.now, in: configuration.context.timeZone())
        }
        let services = inMemory(configuration, signedIn: user)
        services.loadSampleData { services in
            guard services.auth.currentUser != nil else { return }
            for (name, post) in Self.previewFriends {
                guard let friend = try? await services.addUser(named: name), let phone = try? services.makeDevice(for: friend.id) else { continue }
                _ = try? await phone.social.unlockFeed(workoutType: .run)
                _ = try? await phone.social.createPost(content: post, workoutType: .run)
                try? await services.social.follow(friend.id)
            }
            let today = services.configuration.context.clock.now
            for (name, weeks) in [("Spring 10k", 8), ("Strength basics", 6)] {
                _ = try? await services.plans.createPlan(
                    TrainingPlan(name: name, startDate: today, endDate: today.addingTimeInterval(Double(weeks) * 7 * 86_400), daysPerWeek: 3))
            }
            for document in ConsentDocument.allCases {
                _ = try? await services.account.accept(document, version: services.configuration.consentPolicies.versions[document] ?? 1)
            }
        }
        return services
    }

    /// The friends of a preview stack's user, with the post each makes.
    static let previewFriends = [("Grace", "Intervals on the track: 6 × 800 m."), ("Linus", "Easy 5k before work.")]

    /// The user a preview stack starts with: Ada, signed in with Apple.
    public static let previewUser = UserEntity(
        id: "preview-ada", email: "ada@example.com", displayName: "Ada Lovelace",
        providers: [
            LinkedProvider(
                provider: .apple, subject: "000001.preview", email: "ada@example.com", linkedAt: Date(timeIntervalSince1970: 1_767_225_600))
        ],
        createdAt: Date(timeIntervalSince1970: 1_767_225_600), lastSignInAt: Date(timeIntervalSince1970: 1_767_225_600))
}
