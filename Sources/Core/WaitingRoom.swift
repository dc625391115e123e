/// Tasks suspended until released, each leaving when its task is cancelled: the
/// waiting shared by TrainTesting's `ManualClock` (sleepers until a deadline),
/// its `FakeControls` (held calls) and the sync engine (deletions waiting for uploads
/// in flight). A `Context` — the clock's date, whether calls are held — lives under
/// the same lock, so a task decides to wait and is registered in one step that a
/// release cannot slip between.
package final class WaitingRoom<Ticket: Sendable, Context: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let ticket: Ticket
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A task waiting until the waiting tasks' tickets and the context meet a condition.
    private struct CountWaiter {
        let id: UInt64
        let condition: @Sendable ([Ticket], Context) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var context: Context
        var waiters: [Waiter] = []
        var countWaiters: [CountWaiter] = []
        /// Ids between `makeID()` and their decision to wait or pass.
        var deciding: Set<UInt64> = []
        /// Ids cancelled while deciding: they pass on as cancelled.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 1

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            deciding.insert(nextID)
            return nextID
        }

        /// Called when `id` decides; true if it was cancelled before it could.
        mutating func decide(_ id: UInt64) -> Bool {
            deciding.remove(id)
            return cancelled.remove(id) != nil
        }

        /// Called on cancellation of an id that is not waiting: remembered only if it is still deciding.
        mutating func cancelUndecided(_ id: UInt64) {
            if deciding.contains(id) { cancelled.insert(id) }
        }

        /// Removes and returns the count waiters whose condition the waiters now meet.
        mutating func satisfiedCountWaiters() -> [CountWaiter] {
            let tickets = waiters.map(\.ticket)
            let context = context
            let ready = countWaiters.filter { $0.condition(tickets, context) }
            countWaiters.removeAll { $0.condition(tickets, context) }
            return ready
        }
    }

    private let state: Locked<State>

    package init(context: Context) {
        state = Locked(State(context: context))
    }

    /// Reads or changes the context under the lock.
    package func withContext<Result: Sendable>(_ body: (inout Context) -> Result) -> Result {
        state.withLock { body(&$0.context) }
    }

    /// The tickets of the tasks waiting, in arrival order.
    package var tickets: [Ticket] { state.withLock { $0.waiters.map(\.ticket) } }

    /// How many tasks are waiting.
    package var count: Int { state.withLock { $0.waiters.count } }

    /// Waits with `ticket` unless `passes` says, given the context, that it need not.
    /// - Throws: `CancellationError` if the task is cancelled before or while it waits.
    package func wait(_ ticket: Ticket, unless passes: @Sendable (Context) -> Bool) async throws {
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // nil: cancelled before it could wait. Empty: passes at once.
                let outcome: (pass: Bool, ready: [CountWaiter])? = state.withLock { state in
                    if state.decide(id) { return nil }
                    if passes(state.context) { return (true, []) }
                    state.waiters.append(Waiter(id: id, ticket: ticket, continuation: continuation))
                    return (false, state.satisfiedCountWaiters())
                }
                guard let outcome else { return continuation.resume(throwing: CancellationError()) }
                if outcome.pass { return continuation.resume() }
                for waiter in outcome.ready { waiter.continuation.resume() }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelUndecided(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Updates the context, then lets go of the waiters `isDue` picks, in the order
    /// `areInOrder` gives (ties in arrival order).
    package func release(
        updating update: (inout Context) -> Void, where isDue: (Ticket, Context) -> Bool,
        ordered areInOrder: (Ticket, Ticket) -> Bool
    ) {
        let due: [Waiter] = state.withLock { state in
            update(&state.context)
            let context = state.context
            let due = state.waiters.filter { isDue($0.ticket, context) }
            state.waiters.removeAll { isDue($0.ticket, context) }
            return due.enumerated().sorted { lhs, rhs in
                areInOrder(lhs.element.ticket, rhs.element.ticket)
                    || (!areInOrder(rhs.element.ticket, lhs.element.ticket) && lhs.offset < rhs.offset)
            }.map(\.element)
        }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Suspends until at least `count` tasks are waiting, or the task is cancelled.
    package func waitForCount(_ count: Int) async {
        await waitUntil { tickets, _ in tickets.count >= count }
    }

    /// Suspends until the tickets of the waiting tasks and the context meet
    /// `condition`, checked now and each time a task begins to wait; or until the task
    /// is cancelled.
    package func waitUntil(_ condition: @escaping @Sendable ([Ticket], Context) -> Bool) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    if state.decide(id) || condition(state.waiters.map(\.ticket), state.context) { return true }
                    state.countWaiters.append(CountWaiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter: CountWaiter? = state.withLock { state in
                guard let index = state.countWaiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelUndecided(id)
                    return nil
                }
                return state.countWaiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }
}
