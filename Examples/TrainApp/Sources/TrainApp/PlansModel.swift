import Foundation
import Observation
import TrainKit

/// The training plans: saved on the device at once, synced in the background by the
/// session, listed as the plans service tells each change.
@MainActor
@Observable
public final class PlansModel {
    /// The user's plans.
    public private(set) var plans: [TrainingPlan] = []
    /// The last action's failure, for the user.
    public private(set) var errorMessage: String?
    private let session: UserSessionManager
    private let service: any PlanEditing
    @ObservationIgnored private var listener: Task<Void, Never>?

    /// Creates the list.
    /// - Parameters:
    ///   - session: The session manager, for the sync status.
    ///   - plans: The plans service: `TrainServices.plans`, or a fake.
    public init(session: UserSessionManager, plans: any PlanEditing) {
        self.session = session
        service = plans
    }

    /// The background sync's state, for the "synced 2 min ago" line.
    public var syncStatus: BackgroundSyncStatus { session.syncStatus }

    /// Follows the plans from now on; ends with ``stop()``.
    public func start() {
        guard listener == nil else { return }
        let updates = service.planUpdates()
        listener = Task { [weak self] in
            for await plans in updates { self?.plans = plans }
        }
    }

    /// Stops following the plans.
    public func stop() {
        listener?.cancel()
        listener = nil
    }

    /// The "new plan" sheet's save button.
    /// - Parameters:
    ///   - name: The plan's name.
    ///   - weeks: How many weeks it runs from today.
    ///   - daysPerWeek: Training days a week.
    public func create(name: String, weeks: Int, daysPerWeek: Int) async {
        let start = Date()
        let plan = TrainingPlan(
            name: name, startDate: start, endDate: start.addingTimeInterval(Double(weeks) * 7 * 86_400), daysPerWeek: daysPerWeek)
        errorMessage = await attempt { _ = try await self.service.createPlan(plan) }
    }

    /// Renames a plan.
    /// - Parameters:
    ///   - plan: The plan.
    ///   - name: Its new name.
    public func rename(_ plan: TrainingPlan, to name: String) async {
        var renamed = plan
        renamed.name = name
        errorMessage = await attempt { _ = try await self.service.updatePlan(renamed) }
    }
}
