import Foundation
import Testing
import TrainCore

/// The error a strict fake throws for a call nobody scripted, besides recording a
/// test failure that names the call.
public enum FakeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The named call was made, but the test scripted no result for it.
    case unimplemented(String)

    /// A sentence naming the call.
    public var description: String {
        switch self {
        case .unimplemented(let call): "unimplemented: \(call) was called, but the test scripted no result for it"
        }
    }
}

/// What every TrainKit fake can do, shared by all of them: record each call (readable
/// synchronously), return scripted results, fail the next call, the n-th call, or the
/// n-th call of one method, add latency on a test clock, hold calls suspended until
/// the test releases them, and report what a test left over.
///
/// ```swift
/// let fake = FakeAuthService(clock: clock)
/// fake.controls.holdCalls()
/// let signIn = Task { try await fake.signInWithApple() }
/// await fake.controls.waitForHeldCalls(1)      // the view model is now "loading"
/// signIn.cancel()                              // or: fake.controls.releaseHeldCalls()
/// ```
///
/// A fake is strict: a call nobody scripted records a test failure (`Issue.record`)
/// that names the call and throws ``FakeError/unimplemented(_:)`` — so a view model
/// that swallows the error cannot hide it. A fake built over a service instead passes
/// each call nobody scripted to that service, and the service's answer is the fake's.
public final class FakeControls<Call: Sendable>: Sendable {
    private struct Script {
        var results: [Result<any Sendable, any Error>]
        let isSticky: Bool
        var uses = 0
    }

    private struct State {
        var calls: [Call] = []
        /// Calls numbered so far; stream subscriptions are not numbered.
        var numbered = 0
        var numberedByMethod: [String: Int] = [:]
        var nextFailure: (any Error)?
        var numberedFailures: [Int: any Error] = [:]
        var methodFailures: [String: [Int: any Error]] = [:]
        var scripts: [String: Script] = [:]
        var latency: Duration?
    }

    private let state = Locked(State())
    /// Held calls; the context is whether new calls are held.
    private let held = WaitingRoom<Void, Bool>(context: false)
    /// The clock latency is measured on; usually a `ManualClock`.
    public let clock: (any DateClock)?
    /// The fake's name, for failures and left-overs: `FakeAuthService`.
    public let fakeName: String
    /// Whether a call nobody scripted fails the test, rather than reaching a service.
    public let isStrict: Bool

    /// Creates controls.
    /// - Parameters:
    ///   - fakeName: The fake's name, used in failure messages.
    ///   - strict: Whether a call nobody scripted records a test failure and throws;
    ///     false when the fake passes such calls to a service.
    ///   - clock: The clock latency sleeps on; without one, ``latency`` is ignored.
    public init(fakeName: String, strict: Bool = true, clock: (any DateClock)? = nil) {
        self.fakeName = fakeName
        self.isStrict = strict
        self.clock = clock
    }

    // MARK: - Calls

    /// Every call made so far, in order, including calls still held or sleeping and
    /// stream subscriptions.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// Forgets the recorded calls.
    public func clearCalls() {
        state.withLock { $0.calls.removeAll() }
    }

    // MARK: - Scripts and failures

    /// Scripts what `method` returns from now on, replacing its previous script.
    /// - Parameters:
    ///   - method: The method's name.
    ///   - script: The results.
    public func script<Output: Sendable>(_ method: String, _ script: FakeScript<Output>) {
        let results = script.results.map { $0.map { $0 as any Sendable } }
        state.withLock { $0.scripts[method] = Script(results: results, isSticky: script.isSticky) }
    }

    /// The value the next call of `method` would return from its script, without using it.
    /// - Parameters:
    ///   - method: The method's name.
    ///   - type: The type the method returns.
    /// - Returns: The scripted value, or nil if there is none or it is an error.
    public func peekScript<Output>(_ method: String, as type: Output.Type) -> Output? {
        state.withLock { state in
            guard case .success(let value)? = state.scripts[method]?.results.first else { return nil }
            return value as? Output
        }
    }

    /// Makes the next call that can fail throw `error` (after any hold and latency). The
    /// call takes the failure when it is made: cancelled while held, it uses it up.
    /// - Parameter error: The error.
    public func failNextCall(with error: any Error) {
        state.withLock { $0.nextFailure = error }
    }

    /// Makes the `number`-th call of this fake (counting from 1; stream subscriptions
    /// are not counted) throw `error`; that call uses it up even if it is cancelled
    /// while held, so it never falls on a later call.
    /// - Parameters:
    ///   - number: The call's position.
    ///   - error: The error.
    public func failCall(number: Int, with error: any Error) {
        state.withLock { $0.numberedFailures[number] = error }
    }

    /// Makes the `number`-th call of `method` (counting from 1) throw `error`.
    /// - Parameters:
    ///   - number: The call's position among the calls of that method.
    ///   - method: The method's name.
    ///   - error: The error.
    public func failCall(_ number: Int, of method: String, with error: any Error) {
        state.withLock { $0.methodFailures[method, default: [:]][number] = error }
    }

    /// How long each call takes on ``clock``; nil for no latency.
    public var latency: Duration? {
        get { state.withLock { $0.latency } }
        set { state.withLock { $0.latency = newValue } }
    }

    // MARK: - Holding

    /// From now on, calls suspend until ``releaseHeldCalls(holdingNext:)``.
    public func holdCalls() {
        held.withContext { $0 = true }
    }

    /// Resumes every held call and stops holding new ones, or keeps holding them, to
    /// step through a sequence of calls one at a time.
    /// - Parameter holdingNext: Whether calls made from now on are held too.
    public func releaseHeldCalls(holdingNext: Bool = false) {
        held.release(updating: { $0 = holdingNext }, where: { _, _ in true }, ordered: { _, _ in false })
    }

    /// The number of calls suspended by ``holdCalls()``.
    public var heldCallCount: Int { held.count }

    /// Suspends until at least `count` calls are held, or the waiting task is cancelled.
    /// - Parameter count: The number of held calls to wait for.
    public func waitForHeldCalls(_ count: Int = 1) async {
        await held.waitForCount(count)
    }

    // MARK: - Running a call

    /// Runs a call of a fake's method: records it, applies hold, latency and any
    /// injected failure, then returns the scripted result — or, unscripted, what
    /// `service` answers, or without one a recorded test failure and
    /// ``FakeError/unimplemented(_:)``.
    /// - Parameters:
    ///   - call: The call, with its arguments.
    ///   - method: The method's name, as its ``FakeMethod`` names it.
    ///   - service: The same call on the service the fake is built over; nil for a strict fake.
    /// - Returns: The result.
    /// - Throws: An injected failure, the scripted error, the service's error,
    ///   `unimplemented`, or `CancellationError` if cancelled while held or sleeping.
    public func perform<Output: Sendable>(_ call: Call, method: String, service: (() async throws -> Output)?) async throws -> Output {
        // The failure meant for this call is taken when the call is counted: a call
        // cancelled while held or sleeping uses it up, as the call it was set for.
        let failure = takeFailure(count(call, method: method))
        try await wait()
        if let failure { throw failure }
        if let value = try scripted(method, as: Output.self) { return value }
        guard let service else { throw unscripted(method) }
        return try await service()
    }

    /// Takes the next scripted result of `method`: nil if there is none.
    private func scripted<Output>(_ method: String, as type: Output.Type) throws -> Output? {
        switch takeScript(method) {
        case .success(let value)?:
            guard let value = value as? Output else {
                Issue.record("\(fakeName).\(method) was scripted with a \(Swift.type(of: value)), but returns \(Output.self)")
                throw FakeError.unimplemented("\(fakeName).\(method)")
            }
            return value
        case .failure(let error)?:
            throw error
        case nil:
            return nil
        }
    }

    /// Takes the next scripted result of `method`, if any.
    private func takeScript(_ method: String) -> Result<any Sendable, any Error>? {
        state.withLock { state in
            guard var script = state.scripts[method], let first = script.results.first else { return nil }
            script.uses += 1
            if !script.isSticky { script.results.removeFirst() }
            state.scripts[method] = script
            return first
        }
    }

    /// Records the test failure of a call nobody scripted, and returns the error to throw.
    private func unscripted(_ method: String) -> FakeError {
        Issue.record("\(fakeName).\(method) was called, but the test scripted no result for it (the fake is strict)")
        return FakeError.unimplemented("\(fakeName).\(method)")
    }

    /// Runs a call of a method that cannot throw: recorded, held and delayed; an
    /// injected failure is left for the next call that can throw. Its answer is `answer`'s:
    /// the service's, or what the test set.
    /// - Parameters:
    ///   - call: The call.
    ///   - method: The method's name.
    ///   - answer: The answer, read once the call may go on.
    /// - Returns: The answer.
    public func performWithoutFailing<Output>(_ call: Call, method: String, answer: () async -> Output) async -> Output {
        _ = count(call, method: method)
        try? await wait()
        return await answer()
    }

    /// Runs a call of a synchronous method that can throw: recorded but not numbered,
    /// held or delayed. Its answer is the next scripted result if there is one — a
    /// service whose answer lags behind, say — and otherwise `answer`'s.
    /// - Parameters:
    ///   - call: The call.
    ///   - method: The method's name.
    ///   - answer: The service's answer, or the strict fake's state.
    /// - Returns: The answer.
    /// - Throws: The scripted error, or `answer`'s.
    public func performSynchronously<Output>(_ call: Call, method: String, answer: () throws -> Output) throws -> Output {
        record(call)
        if let value = try scripted(method, as: Output.self) { return value }
        return try answer()
    }

    /// Whether state the test sets on the fake is the fake's own; for a fake built over
    /// a service it is the service's, and this records a test failure saying so.
    /// - Parameter change: What the test tried, such as `"setCurrentUser(_:)"`.
    /// - Returns: True for a strict fake.
    public func ownsState(_ change: String) -> Bool {
        guard isStrict else {
            Issue.record("\(fakeName).\(change) changes nothing: the fake is built over a service, whose state it shows; change it there")
            return false
        }
        return true
    }

    /// Records a subscription to a stream: it is listed in ``calls`` but not numbered,
    /// so subscribing does not shift which call a numbered failure falls on.
    /// - Parameter call: The call.
    public func recordSubscription(_ call: Call) {
        record(call)
    }

    /// Records a call of a synchronous method that cannot fail, such as a query of a
    /// flag: it is listed in ``calls`` but not numbered, held or delayed.
    /// - Parameter call: The call.
    public func record(_ call: Call) {
        state.withLock { $0.calls.append(call) }
    }

    private func count(_ call: Call, method: String) -> (all: Int, method: String, ofMethod: Int) {
        state.withLock { state in
            state.calls.append(call)
            state.numbered += 1
            state.numberedByMethod[method, default: 0] += 1
            return (state.numbered, method, state.numberedByMethod[method] ?? 1)
        }
    }

    private func wait() async throws {
        if held.withContext({ $0 }) {
            // Registered only if calls are still held by the time it gets the lock.
            try await held.wait((), unless: { holding in !holding })
        }
        if let latency, let clock { try await clock.sleep(for: latency) }
    }

    private func takeFailure(_ numbers: (all: Int, method: String, ofMethod: Int)) -> (any Error)? {
        state.withLock { state in
            if let numbered = state.numberedFailures.removeValue(forKey: numbers.all) { return numbered }
            // A numbered failure that fell on a call that cannot fail moves to the next one.
            if let missed = state.numberedFailures.keys.filter({ $0 < numbers.all }).min() {
                return state.numberedFailures.removeValue(forKey: missed)
            }
            if let failure = state.methodFailures[numbers.method]?.removeValue(forKey: numbers.ofMethod) { return failure }
            defer { state.nextFailure = nil }
            return state.nextFailure
        }
    }

    // MARK: - Left-overs

    /// What the test set up and never saw happen: calls still held, failures that
    /// never fired, scripted results never used.
    public var leftovers: [FakeLeftover] {
        var found: [FakeLeftover] = []
        let held = heldCallCount
        if held > 0 { found.append(.heldCalls(held)) }
        state.withLock { state in
            if state.nextFailure != nil { found.append(.unfiredFailure(.nextCall)) }
            for number in state.numberedFailures.keys.sorted() { found.append(.unfiredFailure(.call(number))) }
            for method in state.methodFailures.keys.sorted() {
                for number in (state.methodFailures[method] ?? [:]).keys.sorted() {
                    found.append(.unfiredFailure(.callOfMethod(method, number)))
                }
            }
            for method in state.scripts.keys.sorted() {
                guard let script = state.scripts[method] else { continue }
                if script.isSticky && script.uses == 0 {
                    found.append(.unusedScript(method: method, results: nil))
                } else if !script.isSticky && !script.results.isEmpty {
                    found.append(.unusedScript(method: method, results: script.results.count))
                }
            }
        }
        return found
    }

    /// Ends a test's use of the fake: records a test failure for each left-over
    /// (``leftovers``), as NIO's `finish()` does, and returns them.
    /// - Parameter sourceLocation: Where the failures point; the caller's line by default.
    /// - Returns: The left-overs; empty when everything set up was used.
    @discardableResult
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) -> [FakeLeftover] {
        let found = leftovers
        for leftover in found { Issue.record("\(fakeName): \(leftover)", sourceLocation: sourceLocation) }
        return found
    }
}

/// Something a test set up on a fake and never saw happen, as ``FakeControls/finish(sourceLocation:)``
/// reports it.
public enum FakeLeftover: Hashable, Sendable, CustomStringConvertible {
    /// Which call an injected failure was meant for.
    public enum Target: Hashable, Sendable {
        /// The next call that can fail.
        case nextCall
        /// The fake's n-th call, counting from 1.
        case call(Int)
        /// The n-th call of the named method.
        case callOfMethod(String, Int)
    }

    /// Calls still held: the test never released them.
    case heldCalls(Int)
    /// An injected failure that never fired.
    case unfiredFailure(Target)
    /// A script of the named method never used: `results` left of a one-shot script or a
    /// sequence, or nil for a script of every call that no call used.
    case unusedScript(method: String, results: Int?)

    /// A sentence saying what was left over.
    public var description: String {
        switch self {
        case .heldCalls(let count): "\(count) call\(count == 1 ? " is" : "s are") still held"
        case .unfiredFailure(.nextCall): "the failure set for the next call never fired"
        case .unfiredFailure(.call(let number)): "the failure set for call \(number) never fired"
        case .unfiredFailure(.callOfMethod(let method, let number)): "the failure set for call \(number) of \(method) never fired"
        case .unusedScript(let method, nil): "the script of \(method) was never used"
        case .unusedScript(let method, let results?): "\(results) scripted result\(results == 1 ? "" : "s") of \(method) never used"
        }
    }
}

/// A fake built on ``FakeControls``, whose methods are declared once each as
/// ``FakeMethod``s in an extension of ``FakeMethods``.
public protocol ScriptableFake: AnyObject, Sendable {
    /// The fake's record of one call: ``FakeCall`` of the fake.
    associatedtype Call: Sendable

    /// Failures, latency, holds, scripts and left-overs.
    var controls: FakeControls<Call> { get }
}

extension ScriptableFake {
    /// Scripts what `method` returns from now on.
    /// - Parameters:
    ///   - method: The method, such as `.signInWithApple`.
    ///   - script: Its results: `.returning(value)`, `.throwing(error)`, `.once(…)`, `.sequence(…)`.
    public func script<Output, each Input>(_ method: FakeMethod<Self, Output, repeat each Input>, _ script: FakeScript<Output>) {
        controls.script(method.name, script)
    }

    /// Makes the `number`-th call of `method` (counting from 1) throw `error`.
    /// - Parameters:
    ///   - number: The call's position among the calls of that method.
    ///   - method: The method.
    ///   - error: The error.
    public func failCall<Output, each Input>(_ number: Int, of method: FakeMethod<Self, Output, repeat each Input>, with error: any Error) {
        controls.failCall(number, of: method.name, with: error)
    }

    /// Every call made so far, in order.
    public var calls: [Call] { controls.calls }

    /// Records a test failure for each left-over — calls still held, failures never
    /// fired, scripts never used — and returns them.
    /// - Parameter sourceLocation: Where the failures point; the caller's line by default.
    /// - Returns: The left-overs.
    @discardableResult
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) -> [FakeLeftover] {
        controls.finish(sourceLocation: sourceLocation)
    }
}

extension FakeControls {
    /// Runs a call of `method` with `input`, as ``perform(_:method:service:)`` does.
    /// - Parameters:
    ///   - method: The method.
    ///   - input: The arguments the call records.
    ///   - service: The same call on the service the fake is built over; nil for a strict fake.
    /// - Returns: The result.
    /// - Throws: An injected failure, the scripted error, the service's error,
    ///   `unimplemented`, or `CancellationError` if cancelled while held or sleeping.
    public func perform<Fake, Output, each Input>(
        _ method: FakeMethod<Fake, Output, repeat each Input>, _ input: repeat each Input, service: (() async throws -> Output)?
    ) async throws -> Output where Call == FakeCall<Fake> {
        try await perform(method(repeat each input), method: method.name, service: service)
    }

    /// Runs a call of `method`, which cannot throw, as ``performWithoutFailing(_:method:answer:)`` does.
    /// - Parameters:
    ///   - method: The method.
    ///   - input: The arguments the call records.
    ///   - answer: The answer, read once the call may go on.
    /// - Returns: The answer.
    public func performWithoutFailing<Fake, Output, each Input>(
        _ method: FakeMethod<Fake, Output, repeat each Input>, _ input: repeat each Input, answer: () async -> Output
    ) async -> Output where Call == FakeCall<Fake> {
        await performWithoutFailing(method(repeat each input), method: method.name, answer: answer)
    }

    /// Runs a call of the synchronous `method`, as ``performSynchronously(_:method:answer:)`` does.
    /// - Parameters:
    ///   - method: The method.
    ///   - input: The arguments the call records.
    ///   - answer: The service's answer, or the strict fake's state.
    /// - Returns: The answer.
    /// - Throws: The scripted error, or `answer`'s.
    public func performSynchronously<Fake, Output, each Input>(
        _ method: FakeMethod<Fake, Output, repeat each Input>, _ input: repeat each Input, answer: () throws -> Output
    ) throws -> Output where Call == FakeCall<Fake> {
        try performSynchronously(method(repeat each input), method: method.name, answer: answer)
    }

    /// The value the next call of `method` would return from its script, without using it.
    /// - Parameter method: The method.
    /// - Returns: The scripted value, or nil if there is none or it is an error.
    public func peekScript<Fake, Output, each Input>(_ method: FakeMethod<Fake, Output, repeat each Input>) -> Output?
    where Call == FakeCall<Fake> {
        peekScript(method.name, as: Output.self)
    }
}

/// A fake that a test can build over a service, which answers the calls nobody scripted.
protocol BackedFake: ScriptableFake where Call == FakeCall<Self> {
    /// The kind of service behind the fake.
    associatedtype Service: Sendable

    /// The service unscripted calls go to; nil for a strict fake.
    var service: Service? { get }
}

extension BackedFake {
    /// Runs a call of `method`: the scripted result, or `forward` on the service, or a
    /// strict fake's test failure.
    func perform<Output, each Input>(
        _ method: FakeMethod<Self, Output, repeat each Input>, _ input: repeat each Input,
        forward: @escaping @Sendable (Service) async throws -> Output
    ) async throws -> Output {
        try await controls.perform(method, repeat each input, service: service.map { service in { try await forward(service) } })
    }
}
