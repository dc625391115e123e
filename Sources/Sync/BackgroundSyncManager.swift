import Foundation
import TrainCore

/// When a ``BackgroundSyncManager`` syncs, and how it backs off, each with a default:
///
/// ```swift
/// var configuration = BackgroundSyncConfiguration()
/// configuration.interval = .seconds(60)
/// ```
public struct BackgroundSyncConfiguration: Sendable {
    /// The time between syncs while all is well; 300 seconds.
    public var interval: Duration = .seconds(300)
    /// How long ``BackgroundSyncManager/requestSync()`` waits for more requests
    /// before it syncs, so a burst of edits makes one sync; 1 second.
    public var debounce: Duration = .seconds(1)
    /// The first retry's longest wait after a failure, 2 seconds; each further failure doubles it.
    public var retryBase: Duration = .seconds(2)
    /// The longest wait before a retry; 300 seconds.
    public var retryCap: Duration = .seconds(300)
    /// A random number in 0..<1 for each backoff's full jitter; uniform by default.
    public var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// Creates a configuration; `BackgroundSyncConfiguration()` has every default.
    /// - Parameters:
    ///   - interval: 300 seconds.
    ///   - debounce: 1 second.
    ///   - retryBase: 2 seconds.
    ///   - retryCap: 300 seconds.
    ///   - jitter: Uniform in 0..<1.
    public init(
        interval: Duration = .seconds(300), debounce: Duration = .seconds(1), retryBase: Duration = .seconds(2), retryCap: Duration = .seconds(300),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.interval = interval
        self.debounce = debounce
        self.retryBase = retryBase
        self.retryCap = retryCap
        self.jitter = jitter
    }
}

/// When a ``BackgroundSyncManager`` syncs: the name ``BackgroundSyncConfiguration`` had.
@available(*, deprecated, renamed: "BackgroundSyncConfiguration")
public typealias BackgroundSyncPolicy = BackgroundSyncConfiguration

/// What a ``BackgroundSyncManager`` is doing.
public enum BackgroundSyncStatus: Hashable, Sendable {
    /// Waiting for the next sync.
    case idle(lastSyncedAt: Date?)
    /// Syncing; `progress` counts what this sync has done so far.
    case syncing(progress: SyncReport, lastSyncedAt: Date?)
    /// The last sync failed; the next try is at `nextRetryAt`.
    case failed(SyncError, attempt: Int, nextRetryAt: Date, lastSyncedAt: Date?)
    /// Stopped; nothing syncs until ``BackgroundSyncManager/start()``.
    case stopped(lastSyncedAt: Date?)
}

/// Progress of the sync running in the current task, for the one who started it.
public enum SyncProgress {
    /// Called after each batch uploaded and each page downloaded with what the sync
    /// has done so far; set it with `SyncProgress.$observer.withValue(…)` around a sync.
    @TaskLocal public static var observer: (@Sendable (SyncReport) -> Void)?
}

/// Keeps a sync service in step in the background: a sync every 5 minutes, one soon
/// after a burst of edits, one at once when asked or when the remote signals another
/// device's change; never two at a time; after a failure, retries with exponential
/// backoff and full jitter up to a cap. All times are on the injected clock, and waits
/// are counted in its elapsed time, so a device clock set back or forward neither
/// stalls nor hurries them.
///
/// ```swift
/// let manager = BackgroundSyncManager(service: plans)
/// manager.start()
/// _ = try await plans.updatePlan(plan)       // synced a second later, with no other call
/// for await status in manager.statusUpdates() { render(status) }
/// ```
public final class BackgroundSyncManager: Sendable {
    private struct State {
        var status: BackgroundSyncStatus = .stopped(lastSyncedAt: nil)
        var loop: Task<Void, Never>?
        /// Follows the service's triggers while started.
        var following: Task<Void, Never>?
        /// The loop a stop cancelled, which may still be finishing a sync.
        var stopping: Task<Void, Never>?
        var sleeper: Task<Void, any Error>?
        /// When a requested sync is due, on the clock's elapsed time.
        var requestedAt: Duration?
        /// When the periodic sync is due, on the clock's elapsed time.
        var periodicAt: Duration?
        /// When a retry is due after failures, on the clock's elapsed time.
        var retryAt: Duration?
        var failures = 0
        var lastSyncedAt: Date?
        /// Set by a request while the loop decides how long to sleep.
        var isWoken = false
    }

    /// The clock every wait is on.
    public let context: TrainContext
    /// Times, backoff and jitter.
    public let configuration: BackgroundSyncConfiguration
    private let perform: @Sendable () async throws -> SyncReport
    private let triggers: (@Sendable () -> AsyncStream<SyncTrigger>)?
    private let state = Locked(State())
    private let statuses = Broadcast<BackgroundSyncStatus>(initial: .stopped(lastSyncedAt: nil))

    /// Creates a manager for a plan sync service, which follows the service's
    /// ``PlanSyncing/syncTriggers()``: each edit saved syncs after the debounce,
    /// each change the remote signals from another device at once, with no call by the app.
    /// - Parameters:
    ///   - service: The service to keep in step.
    ///   - context: The clock every wait is on; the live one by default.
    ///   - configuration: Times, backoff and jitter.
    public convenience init(
        service: any PlanSyncService, context: TrainContext = .live, configuration: BackgroundSyncConfiguration = BackgroundSyncConfiguration()
    ) {
        self.init(triggers: { service.syncTriggers() }, sync: { try await service.sync() }, context: context, configuration: configuration)
    }

    /// Creates a manager that runs `sync`.
    /// - Parameters:
    ///   - triggers: Makes the stream of reasons to sync the manager follows while
    ///     started: an edit syncs after the debounce, a remote change at once. None by default.
    ///   - sync: One sync, such as `{ try await engine.sync() }`.
    ///   - context: The clock every wait is on; the live one by default.
    ///   - configuration: Times, backoff and jitter.
    public init(
        triggers: (@Sendable () -> AsyncStream<SyncTrigger>)? = nil, sync: @escaping @Sendable () async throws -> SyncReport,
        context: TrainContext = .live, configuration: BackgroundSyncConfiguration = BackgroundSyncConfiguration()
    ) {
        self.context = context
        self.configuration = configuration
        self.triggers = triggers
        self.perform = sync
    }

    /// Creates a manager that runs `sync`.
    /// - Parameters:
    ///   - policy: Times and backoff.
    ///   - clock: The clock; the system's by default.
    ///   - jitter: A random number in 0..<1 for each backoff; uniform by default.
    ///   - triggers: Makes the stream of reasons to sync the manager follows while started.
    ///   - sync: One sync.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use init(triggers:sync:context:configuration:); the jitter is in the configuration.")
    public convenience init(
        policy: BackgroundSyncConfiguration = BackgroundSyncConfiguration(), clock: any DateClock = SystemClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        triggers: (@Sendable () -> AsyncStream<SyncTrigger>)? = nil, sync: @escaping @Sendable () async throws -> SyncReport
    ) {
        var configuration = policy
        configuration.jitter = jitter
        self.init(triggers: triggers, sync: sync, context: TrainContext(clock: clock), configuration: configuration)
    }

    /// Creates a manager for a plan sync service.
    /// - Parameters:
    ///   - service: The service to keep in step.
    ///   - policy: Times and backoff.
    ///   - clock: The clock; the system's by default.
    ///   - jitter: A random number in 0..<1 for each backoff; uniform by default.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use init(service:context:configuration:); the jitter is in the configuration.")
    public convenience init(
        service: any PlanSyncService, policy: BackgroundSyncConfiguration = BackgroundSyncConfiguration(), clock: any DateClock = SystemClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        var configuration = policy
        configuration.jitter = jitter
        self.init(service: service, context: TrainContext(clock: clock), configuration: configuration)
    }

    /// Times and backoff: the configuration.
    @available(*, deprecated, renamed: "configuration")
    public var policy: BackgroundSyncConfiguration { configuration }

    /// The clock every wait is on: the context's.
    @available(*, deprecated, message: "Read context.clock.")
    public var clock: any DateClock { context.clock }

    /// What the manager is doing now.
    public var status: BackgroundSyncStatus { statuses.value }

    /// The status now, then each change.
    /// - Returns: A stream that ends when the consumer stops.
    public func statusUpdates() -> AsyncStream<BackgroundSyncStatus> { statuses.subscribe() }

    /// Starts syncing: once now, then every interval. Does nothing if already started.
    public func start() {
        update { state in
            guard state.loop == nil else { return }
            if let triggers {
                // Subscribed before start returns, so no edit made after it is missed.
                let stream = triggers()
                state.following = Task { [weak self] in
                    for await trigger in stream {
                        switch trigger {
                        case .localEdit: self?.requestSync()
                        case .remoteChange: self?.syncNow()
                        }
                    }
                }
            }
            state.requestedAt = context.clock.elapsed
            state.failures = 0
            state.retryAt = nil
            state.status = .idle(lastSyncedAt: state.lastSyncedAt)
            // A loop stopped a moment ago may still be in a sync: this one waits for it.
            let previous = state.stopping
            state.loop = Task { [self] in
                await previous?.value
                await run()
            }
        }
    }

    /// Asks for a sync soon: after the debounce interval with no further request.
    public func requestSync() {
        let due = context.clock.elapsed + configuration.debounce
        wake { $0.requestedAt = due }
    }

    /// Asks for a sync now; if one is running, another follows it.
    public func syncNow() {
        let now = context.clock.elapsed
        wake { $0.requestedAt = now }
    }

    /// Stops syncing and cancels a sync in progress; what it finished is kept.
    public func stop() {
        let loop = update { state in
            defer {
                state.stopping = state.loop ?? state.stopping
                state.loop = nil
                state.following?.cancel()
                state.following = nil
                state.sleeper?.cancel()
                state.status = .stopped(lastSyncedAt: state.lastSyncedAt)
            }
            return state.loop
        }
        loop?.cancel()
    }

    // MARK: - Loop

    private func wake(_ change: (inout State) -> Void) {
        let sleeper = state.withLock { state in
            change(&state)
            state.isWoken = true
            return state.sleeper
        }
        sleeper?.cancel()
    }

    private func run() async {
        while !Task.isCancelled {
            let deadline = state.withLock { state -> Duration? in
                state.isWoken = false
                return [state.retryAt ?? state.periodicAt, state.requestedAt].compactMap { $0 }.min()
            }
            let clock = context.clock
            // With nothing planned, the wait lasts until a request cancels it.
            let wake = deadline ?? clock.elapsed + .seconds(Int64(1) << 40)
            let sleeper = Task { try await clock.sleep(untilElapsed: wake) }
            let woken = state.withLock { state in
                state.sleeper = sleeper
                return state.isWoken
            }
            if woken { sleeper.cancel() }
            _ = try? await sleeper.value
            guard !Task.isCancelled else { return }
            let now = context.clock.elapsed
            let isDue = state.withLock { state in
                state.sleeper = nil
                return [state.requestedAt, state.retryAt ?? state.periodicAt].contains { $0.map { $0 <= now } ?? false }
            }
            if isDue { await syncOnce(startedAt: now) }
        }
    }

    private func syncOnce(startedAt start: Duration) async {
        update { state in
            if let requested = state.requestedAt, requested <= start { state.requestedAt = nil }
            state.status = .syncing(progress: SyncReport(), lastSyncedAt: state.lastSyncedAt)
        }
        let observer: @Sendable (SyncReport) -> Void = { [self] progress in
            update { state in
                guard case .syncing = state.status else { return }
                state.status = .syncing(progress: progress, lastSyncedAt: state.lastSyncedAt)
            }
        }
        let failure: SyncError?
        do {
            _ = try await SyncProgress.$observer.withValue(observer) { try await perform() }
            failure = nil
        } catch let error as SyncError {
            failure = error
        } catch is CancellationError {
            failure = SyncError(.cancelled)
        } catch {
            failure = SyncError(.remoteUnavailable, detail: "\(error)")
        }
        let (date, end) = (context.clock.now, context.clock.elapsed)
        let isStopped = Task.isCancelled
        update { state in
            guard !isStopped else { return }
            if let failure {
                state.failures += 1
                let exponent = min(state.failures - 1, 40)
                let ceiling = min(configuration.retryCap.timeInterval, configuration.retryBase.timeInterval * pow(2, Double(exponent)))
                let wait = ceiling * min(max(configuration.jitter(), 0), 1)
                state.retryAt = end + .seconds(wait)
                state.status = .failed(
                    failure, attempt: state.failures, nextRetryAt: date.addingTimeInterval(wait), lastSyncedAt: state.lastSyncedAt)
            } else {
                state.failures = 0
                state.retryAt = nil
                state.lastSyncedAt = date
                state.periodicAt = end + configuration.interval
                state.status = .idle(lastSyncedAt: date)
            }
        }
    }

    /// Changes the state and, in the same critical section, sends the status if it
    /// changed, so the stream never delivers an older status after a newer one.
    @discardableResult
    private func update<Result>(_ change: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = change(&state)
            if state.status != statuses.value { statuses.send(state.status) }
            return result
        }
    }
}
