import Foundation
import Observation
import TrainKit

/// A first session on the whole stack, its data in `directory`.
@MainActor
public func firstSession(in directory: URL) async throws -> UserSessionManager {
    let services = try TrainServices.files(in: directory)
    let session = services.makeSessionManager()
    await session.start()

    services.appleID.signIn(as: .init(subject: "001.ada", email: "ada@example.com"))
    _ = try await session.signInWithApple()
    _ = try await session.purchase("com.train.pro.monthly") // a free week, then Pro
    print(session.tier, session.featureAccess.canAccess(.analytics)) // pro true

    let grace = try await services.addUser(named: "Grace") // a friend, on her own phone
    let gracePhone = try services.makeDevice(for: grace.id)
    _ = try await gracePhone.social.unlockFeed(workoutType: .run)
    let post = try await gracePhone.social.createPost(content: "Intervals done", workoutType: .run, mediaURL: nil)
    try await services.social.follow(grace.id)
    try await session.unlockFeed(workoutType: .strength) // Ada's feed opens until midnight
    try await services.social.like(post.id)

    var plan = try await services.plans.createPlan(
        TrainingPlan(name: "10k", startDate: .now, endDate: .now.addingTimeInterval(8 * 7 * 86_400), daysPerWeek: 3))
    plan.daysPerWeek = 4
    _ = try await services.plans.updatePlan(plan) // saved now, synced in the background
    return session
}

/// A view model of the app: what the workout screen says once a workout is logged.
@MainActor
@Observable
public final class WorkoutModel {
    public private(set) var message = ""
    let social: any SocialFeed

    public init(social: any SocialFeed) { self.social = social }

    public func finished(_ workout: WorkoutType) async {
        do {
            _ = try await social.unlockFeed(workoutType: workout)
            message = "Your friends' feed is open until midnight."
        } catch {
            message = error.localizedDescription
        }
    }
}
