import Foundation

/// A broken promise found by a contract check.
public struct ContractViolation: Error, CustomStringConvertible {
    /// The check that found it.
    public let check: String
    /// What was expected and what happened.
    public let message: String

    /// Creates a violation.
    /// - Parameters:
    ///   - check: The check that found it.
    ///   - message: What was expected and what happened.
    public init(check: String, message: String) {
        self.check = check
        self.message = message
    }

    /// The check and the message.
    public var description: String { "\(check): \(message)" }
}

/// A capability protocol a contract check asserts the behaviour of, such as
/// `SocialFeed` or `AuthEmailFlows`.
public struct ContractCapability: Hashable, Sendable, CustomStringConvertible {
    private let id: ObjectIdentifier
    /// The protocol's name.
    public let name: String

    /// The capability of a protocol.
    /// - Parameter capability: The protocol, as `SocialFeed.self`.
    public init(_ capability: Any.Type) {
        id = ObjectIdentifier(capability)
        name = String(describing: capability).replacingOccurrences(of: "any ", with: "")
    }

    /// The protocol's name.
    public var description: String { name }
}

/// One behavioural check of a contract suite: a sentence saying what it asserts,
/// the capabilities whose behaviour it asserts, and the code that asserts it against
/// an environment the caller supplies.
public struct ContractCheck<Environment: Sendable>: Sendable, CustomStringConvertible {
    /// What the check asserts, as a sentence.
    public let name: String
    /// The capability protocols whose behaviour the check asserts. Its setup may call
    /// others through the environment's service, which a conformance still in progress
    /// can forward to TrainKit's own.
    public let capabilities: Set<ContractCapability>
    private let body: @Sendable (Environment, Expectations) async throws -> Void

    private init(_ name: String, capabilities: [Any.Type], body: @escaping @Sendable (Environment, Expectations) async throws -> Void) {
        self.name = name
        self.capabilities = Set(capabilities.map(ContractCapability.init))
        self.body = body
    }

    init(
        _ name: String, covers capabilities: Any.Type..., body: @escaping @Sendable (Environment, Expectations) async throws -> Void
    ) {
        self.init(name, capabilities: capabilities, body: body)
    }

    /// Creates a check of your own, to run beside a suite's checks.
    /// - Parameters:
    ///   - name: What the check asserts, as a sentence.
    ///   - capabilities: The protocols whose behaviour it asserts.
    ///   - body: The assertions; throw ``ContractViolation`` when the promise is broken.
    public init(_ name: String, covering capabilities: [Any.Type] = [], body: @escaping @Sendable (Environment) async throws -> Void) {
        self.init(name, capabilities: capabilities) { environment, _ in try await body(environment) }
    }

    /// Whether the check asserts the behaviour of `capability`.
    /// - Parameter capability: A capability protocol, as `SocialFeed.self`.
    /// - Returns: Whether it is one of ``capabilities``.
    public func covers(_ capability: Any.Type) -> Bool {
        capabilities.contains(ContractCapability(capability))
    }

    /// The check's name.
    public var description: String { name }

    /// Runs the check.
    /// - Parameter environment: Makes the services under test.
    /// - Throws: ``ContractViolation`` when the conformance breaks the promise, or any
    ///   unexpected error the service throws.
    public func run(in environment: Environment) async throws {
        try await body(environment, Expectations(check: name))
    }
}

/// The assertions of a check; each failure throws a ``ContractViolation``.
struct Expectations: Sendable {
    let check: String

    /// How long, in real time, a check waits for a stream's value before it judges
    /// that the value never comes.
    static let streamWait: Duration = .seconds(5)

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ContractViolation(check: check, message: message()) }
    }

    /// Runs `body` and requires it to throw an error of type `Failure` whose `code` is `code`.
    func expectError<Failure: Error, Code: Equatable>(
        _ code: Code, _ what: String, codeOf: (Failure) -> Code,
        _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch let error as Failure {
            try expect(codeOf(error) == code, "\(what): expected \(code), got \(codeOf(error))")
            return
        }
        throw ContractViolation(check: check, message: "\(what): expected \(code), but it succeeded")
    }
}

/// The checks of one capability.
extension Array {
    /// The checks of a contract that assert the behaviour of `capability`: what to run
    /// while an app's conformance has that piece and not yet the others.
    ///
    /// ```swift
    /// @Test(arguments: SocialFeedServiceContract.checks.covering(SocialNotifications.self))
    /// func notifications(_ check: SocialContractCheck) async throws {
    ///     try await check.run(in: MyFirestoreEnvironment())
    /// }
    /// ```
    /// - Parameter capability: A capability protocol, as `SocialNotifications.self`.
    /// - Returns: The checks, in the contract's order.
    public func covering<Environment>(_ capability: Any.Type) -> [ContractCheck<Environment>] where Element == ContractCheck<Environment> {
        filter { $0.covers(capability) }
    }
}
