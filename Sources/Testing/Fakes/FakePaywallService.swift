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
public final class FakePaywallService: PaywallService, ScriptableFake {
    /// A recorded call.
    public enum Call: Hashable, Sendable {
        /// ``configuration``.
        case configuration
        /// ``replaceConfiguration(_:)``.
        case replaceConfiguration(PaywallConfiguration)
        /// ``gate(placement:)``.
        case gate(String)
        /// ``assignment(in:)``.
        case assignment(String)
        /// ``setUser(_:)``.
        case setUser(String?)
        /// ``setAttribute(_:forKey:)``.
        case setAttribute(String?, forKey: String)
        /// ``exposures()``.
        case exposures
        /// ``removeExposures(of:)``.
        case removeExposures(String)
    }

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

    private func perform<Output>(
        _ call: Call, _ method: FakeMethod<FakePaywallService, Output>, _ forward: @escaping @Sendable (any PaywallService) async throws -> Output
    ) async throws -> Output {
        try await controls.perform(call, method: method.name, service: service.map { service in { try await forward(service) } })
    }

    /// Recorded; the service's configuration, or a strict fake's.
    public var configuration: PaywallConfiguration {
        controls.record(.configuration)
        return service?.configuration ?? state.withLock { $0.configuration }
    }

    /// Succeeds as scripted, or as the service does; a strict fake's scripted success
    /// puts `configuration` in force.
    public func replaceConfiguration(_ configuration: PaywallConfiguration) async throws {
        try await perform(.replaceConfiguration(configuration), .replaceConfiguration) { try await $0.replaceConfiguration(configuration) }
        if service == nil { state.withLock { $0.configuration = configuration } }
    }

    /// Returns the scripted decision, or the service's.
    public func gate(placement: String) async throws -> PaywallDecision {
        try await perform(.gate(placement), .gate) { try await $0.gate(placement: placement) }
    }

    /// Returns the scripted assignment, or the service's.
    public func assignment(in experiment: String) async throws -> PaywallAssignment {
        try await perform(.assignment(experiment), .assignment) { try await $0.assignment(in: experiment) }
    }

    /// Recorded, held and delayed; passed to the service, or kept by a strict fake.
    public func setUser(_ userID: String?) async {
        await controls.performWithoutFailing(.setUser(userID), method: "setUser(_:)") {
            if let service { await service.setUser(userID) } else { state.withLock { $0.user = userID } }
        }
    }

    /// Recorded, held and delayed; passed to the service, or kept by a strict fake.
    public func setAttribute(_ value: String?, forKey key: String) async {
        await controls.performWithoutFailing(.setAttribute(value, forKey: key), method: "setAttribute(_:forKey:)") {
            if let service { await service.setAttribute(value, forKey: key) } else { state.withLock { $0.attributes[key] = value } }
        }
    }

    /// Returns the scripted exposures, or the service's.
    public func exposures() async throws -> [PaywallExposure] {
        try await perform(.exposures, .exposures) { try await $0.exposures() }
    }

    /// Returns the scripted count, or the service's.
    @discardableResult
    public func removeExposures(of userID: String) async throws -> Int {
        try await perform(.removeExposures(userID), .removeExposures) { try await $0.removeExposures(of: userID) }
    }
}

extension FakeMethod where Fake == FakePaywallService, Output == Int {
    /// ``FakePaywallService/removeExposures(of:)``: how many were removed.
    public static var removeExposures: Self { Self("removeExposures(of:)") }
}

extension FakeMethod where Fake == FakePaywallService, Output == Void {
    /// ``FakePaywallService/replaceConfiguration(_:)``: a strict fake's success puts the configuration in force.
    public static var replaceConfiguration: Self { Self("replaceConfiguration(_:)") }
}

extension FakeMethod where Fake == FakePaywallService, Output == PaywallDecision {
    /// ``FakePaywallService/gate(placement:)``: the decision.
    public static var gate: Self { Self("gate(placement:)") }
}

extension FakeMethod where Fake == FakePaywallService, Output == PaywallAssignment {
    /// ``FakePaywallService/assignment(in:)``: the assignment.
    public static var assignment: Self { Self("assignment(in:)") }
}

extension FakeMethod where Fake == FakePaywallService, Output == [PaywallExposure] {
    /// ``FakePaywallService/exposures()``: the exposures.
    public static var exposures: Self { Self("exposures()") }
}
