import Foundation
import TrainCore
import TrainSubscription

/// A scriptable `PaywallService` for tests of the screens that gate on a placement.
///
/// Calls are recorded; scripted results are returned. A fake made with
/// ``init(configuration:clock:)`` is strict: a gate, an assignment, a replacement or a
/// read of the exposures nobody scripted records a test failure naming the call and
/// throws ``FakeError/unimplemented(_:)``. Its configuration is the one it was made
/// with, or the last a scripted replacement put in force; the user and attributes the
/// app set are kept, for the test to read. A fake made with
/// ``init(backedBy:clock:)`` passes every call nobody scripted to that service, such as
/// a `LocalPaywallService` over a simulated store, and shows its state.
///
/// ```swift
/// let paywalls = FakePaywallService()
/// paywalls.script(.gate, .returning(.granted))
/// let model = AnalyticsTabModel(paywalls: paywalls)
/// await model.appear()
/// #expect(model.isUnlocked)
/// #expect(paywalls.calls == [.gate("analytics-tab")])
/// ```
public final class FakePaywallService: PaywallService, ScriptableFake, BackedFake {
    /// A recorded call: the method, declared once below, applied to its arguments.
    public typealias Call = FakeCall<FakePaywallService>

    private struct State {
        var configuration: PaywallConfiguration
        var user: String?
        var attributes: [String: String] = [:]
    }

    /// Failure injection, latency, holding, scripts and left-overs.
    public let controls: FakeControls<Call>
    /// The service unscripted calls go to; nil for a strict fake.
    public let service: (any PaywallService)?
    private let state: Locked<State>

    /// Creates a strict fake: every call but the configuration, the user and the
    /// attributes needs a script.
    /// - Parameters:
    ///   - configuration: The configuration in force at the start.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(configuration: PaywallConfiguration = .empty, clock: (any DateClock)? = nil) {
        service = nil
        state = Locked(State(configuration: configuration))
        controls = FakeControls(fakeName: "FakePaywallService", clock: clock)
    }

    /// Creates a fake in front of `service`: calls nobody scripted go to it, and the
    /// configuration is its.
    /// - Parameters:
    ///   - service: The service, such as a `LocalPaywallService`.
    ///   - clock: The clock ``FakeControls/latency`` sleeps on.
    public init(backedBy service: any PaywallService, clock: (any DateClock)? = nil) {
        self.service = service
        state = Locked(State(configuration: .empty))
        controls = FakeControls(fakeName: "FakePaywallService", strict: false, clock: clock)
    }

    /// Whether unscripted calls fail the test.
    public var isStrict: Bool { controls.isStrict }

    /// The user the app last set: a strict fake's, or nil for one built over a service.
    public var user: String? { state.withLock { $0.user } }

    /// The attributes the app set: a strict fake's, or none for one built over a service.
    public var attributes: [String: String] { state.withLock { $0.attributes } }

    /// Recorded; the service's configuration, or a strict fake's.
    public var configuration: PaywallConfiguration {
        controls.record(.configuration())
        return service?.configuration ?? state.withLock { $0.configuration }
    }

    /// Returns the scripted warnings, or the service's; a strict fake's scripted success
    /// puts `configuration` in force.
    @discardableResult
    public func replaceConfiguration(_ configuration: PaywallConfiguration) async throws -> [PaywallWarning] {
        let warnings = try await perform(.replaceConfiguration, configuration) { try await $0.replaceConfiguration(configuration) }
        if service == nil { state.withLock { $0.configuration = configuration } }
        return warnings
    }

    /// Returns the scripted decision, or the service's.
    public func gate(placement: String) async throws -> PaywallDecision {
        try await perform(.gate, placement) { try await $0.gate(placement: placement) }
    }

    /// Returns the scripted assignment, or the service's.
    public func assignment(in experiment: String) async throws -> PaywallAssignment {
        try await perform(.assignment, experiment) { try await $0.assignment(in: experiment) }
    }

    /// Recorded, held and delayed; passed to the service, or kept by a strict fake.
    public func setUser(_ userID: String?) async {
        await controls.performWithoutFailing(.setUser, userID) {
            if let service { await service.setUser(userID) } else { state.withLock { $0.user = userID } }
        }
    }

    /// Recorded, held and delayed; passed to the service, or kept by a strict fake.
    public func setAttribute(_ value: String?, forKey key: String) async {
        await controls.performWithoutFailing(.setAttribute, value, key) {
            if let service { await service.setAttribute(value, forKey: key) } else { state.withLock { $0.attributes[key] = value } }
        }
    }

    /// Returns the scripted exposures, or the service's.
    public func exposures() async throws -> [PaywallExposure] {
        try await perform(.exposures) { try await $0.exposures() }
    }

    /// Returns the scripted count, or the service's.
    @discardableResult
    public func removeExposures(of userID: String) async throws -> Int {
        try await perform(.removeExposures, userID) { try await $0.removeExposures(of: userID) }
    }
}

extension FakeMethods where Fake == FakePaywallService {
    /// ``configuration``.
    public static var configuration: FakeMethod<FakePaywallService, PaywallConfiguration> { .init("configuration") }

    /// ``FakePaywallService/replaceConfiguration(_:)``: the warnings; a strict fake's success puts the configuration in force.
    public static var replaceConfiguration: FakeMethod<FakePaywallService, [PaywallWarning], PaywallConfiguration> {
        .init("replaceConfiguration(_:)")
    }

    /// ``FakePaywallService/gate(placement:)``: the decision.
    public static var gate: FakeMethod<FakePaywallService, PaywallDecision, String> { .init("gate(placement:)") }

    /// ``FakePaywallService/assignment(in:)``: the assignment.
    public static var assignment: FakeMethod<FakePaywallService, PaywallAssignment, String> { .init("assignment(in:)") }

    /// ``FakePaywallService/setUser(_:)``.
    public static var setUser: FakeMethod<FakePaywallService, Void, String?> { .init("setUser(_:)") }

    /// ``FakePaywallService/setAttribute(_:forKey:)``.
    public static var setAttribute: FakeMethod<FakePaywallService, Void, String?, String> { .init("setAttribute(_:forKey:)") }

    /// ``FakePaywallService/exposures()``: the exposures.
    public static var exposures: FakeMethod<FakePaywallService, [PaywallExposure]> { .init("exposures()") }

    /// ``FakePaywallService/removeExposures(of:)``: how many were removed.
    public static var removeExposures: FakeMethod<FakePaywallService, Int, String> { .init("removeExposures(of:)") }
}
