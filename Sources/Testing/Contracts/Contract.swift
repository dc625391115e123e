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

/// One behavioural check of a contract suite: a sentence saying what it asserts,
/// and the code that asserts it against an environment the caller supplies.
public struct ContractCheck<Environment: Sendable>: Sendable, CustomStringConvertible {
    /// What the check asserts, as a sentence.
    public let name: String
    private let body: @Sendable (Environment, Expectations) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (Environment, Expectations) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// Creates a check of your own, to run beside a suite's checks.
    /// - Parameters:
    ///   - name: What the check asserts, as a sentence.
    ///   - body: The assertions; throw ``ContractViolation`` when the promise is broken.
    public init(_ name: String, body: @escaping @Sendable (Environment) async throws -> Void) {
        self.init(name) { environment, _ in try await body(environment) }
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
