/// A type whose static members name a fake's methods: ``FakeMethod`` and ``FakeCall``.
///
/// A fake declares each of its methods once, in an extension of this protocol, and
/// the declaration serves scripting, failure injection and the call log alike:
///
/// ```swift
/// extension FakeMethods where Fake == FakeSubscriptionService {
///     /// ``FakeSubscriptionService/purchase(_:offer:)`` without an offer.
///     public static var purchase: FakeMethod<Fake, StorePurchaseResult, String> { .init("purchase(_:offer:)") }
/// }
///
/// subscriptions.script(.purchase, .returning(.pending))        // a FakeMethod
/// #expect(subscriptions.calls == [.purchase("com.train.pro")])  // a FakeCall
/// ```
public protocol FakeMethods {
    /// The fake whose methods these are.
    associatedtype Fake
}

/// A method of a fake, typed by what it returns and the arguments its calls record:
/// `auth.script(.signInWithApple, .returning(user))`. Applied to its arguments, it is
/// the ``FakeCall`` the fake records: `.requestCredential(.apple)`.
///
/// Each fake declares its methods as static members of an extension of
/// ``FakeMethods``, so a script of the wrong type does not compile and a recorded
/// call has the method's argument types.
public struct FakeMethod<Fake, Output: Sendable, each Input: Hashable & Sendable>: FakeMethods, Hashable, Sendable, CustomStringConvertible {
    /// The method's name, as the fake reports it (`signInWithApple()`).
    public let name: String

    /// Names a method.
    /// - Parameter name: The method's name, with its argument labels.
    public init(_ name: String) {
        self.name = name
    }

    /// The method's name.
    public var description: String { name }

    /// The record of a call of this method with `input`.
    /// - Parameter input: The arguments the call records.
    /// - Returns: The call.
    public func callAsFunction(_ input: repeat each Input) -> FakeCall<Fake> {
        var arguments: [FakeCall<Fake>.Argument] = []
        for argument in repeat each input { arguments.append(FakeCall<Fake>.Argument(argument)) }
        return FakeCall(method: name, arguments: arguments, values: (repeat each input))
    }
}

/// One recorded call of a fake: the method's name and the arguments that matter to a
/// test (never a password or a code). Tests compare a fake's ordered log with calls
/// written as the fake's methods applied to their arguments:
/// `#expect(auth.calls == [.signInWithApple(), .requestCredential(.apple)])`.
public struct FakeCall<Fake>: FakeMethods, Hashable, Sendable, CustomStringConvertible {
    /// One argument, compared and hashed as its own type.
    struct Argument: Hashable, @unchecked Sendable {
        // Unchecked: it is built only from a `Hashable & Sendable` value.
        let value: AnyHashable

        init(_ value: some Hashable & Sendable) {
            self.value = AnyHashable(value)
        }
    }

    /// The method's name, as its ``FakeMethod`` names it.
    public let method: String
    private let arguments: [Argument]
    /// The arguments as the method's input tuple, for ``arguments(of:)``.
    private let values: any Sendable

    init(method: String, arguments: [Argument], values: any Sendable) {
        self.method = method
        self.arguments = arguments
        self.values = values
    }

    /// The arguments of this call if it is a call of `method`, else nil:
    /// `auth.calls.compactMap { $0.arguments(of: .unlink) }`.
    /// - Parameter method: The method.
    /// - Returns: The arguments, a tuple for a method with several.
    public func arguments<Output, each Input>(of method: FakeMethod<Fake, Output, repeat each Input>) -> (repeat each Input)? {
        guard method.name == self.method else { return nil }
        return values as? (repeat each Input)
    }

    /// Whether this is a call of `method`, whatever its arguments:
    /// `remote.calls.count { $0.isCall(of: .erase) }`.
    /// - Parameter method: The method.
    /// - Returns: True for a call of that method.
    public func isCall<Output, each Input>(of method: FakeMethod<Fake, Output, repeat each Input>) -> Bool {
        arguments(of: method) != nil
    }

    /// The method's name and its arguments: `requestCredential(from:) ← apple`.
    public var description: String {
        arguments.isEmpty ? method : "\(method) ← \(arguments.map { String(reflecting: $0.value.base) }.joined(separator: ", "))"
    }

    /// Whether two records are of one method with equal arguments.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.arguments == rhs.arguments
    }

    /// Hashes the method's name and the arguments.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(arguments)
    }
}
