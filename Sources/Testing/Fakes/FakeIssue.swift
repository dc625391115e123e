import Testing

/// The issues a TrainKit fake records in a test, to name in `withKnownIssue(matching:)`
/// so that any other failure inside the block still fails the test.
///
/// ```swift
/// let auth = FakeAuthService(strict: true)
/// await withKnownIssue {
///     await #expect(throws: FakeError.self) { try await auth.signOut() }
/// } matching: { FakeIssue.isUnscriptedCall($0, "FakeAuthService.signOut()") }
/// ```
public enum FakeIssue {
    /// Whether `issue` is a strict fake's record of a call nobody scripted — of `call`,
    /// such as `"FakeAuthService.signOut()"`, when one is given.
    /// - Parameters:
    ///   - issue: The issue recorded.
    ///   - call: The fake and method, as the fake names them.
    /// - Returns: Whether it is that record.
    public static func isUnscriptedCall(_ issue: Issue, _ call: String? = nil) -> Bool {
        comments(of: issue).contains { text in
            text.hasSuffix("was called, but the test scripted no result for it (the fake is strict)")
                && (call.map { text.hasPrefix($0 + " was called") } ?? true)
        }
    }

    /// Whether `issue` is a fake's report, at `finish()`, of something the test left over:
    /// a call still held, a failure that never fired, a script never used — of the fake
    /// named `fake`, such as `"FakeAuthService"`, when one is given.
    /// - Parameters:
    ///   - issue: The issue recorded.
    ///   - fake: The fake's name.
    /// - Returns: Whether it is such a report.
    public static func isLeftover(_ issue: Issue, of fake: String? = nil) -> Bool {
        comments(of: issue).contains { text in
            guard let separator = text.range(of: ": ") else { return false }
            let name = text[..<separator.lowerBound]
            return name.hasPrefix("Fake") && !name.contains(" ") && (fake.map { name == $0 } ?? true)
        }
    }

    private static func comments(of issue: Issue) -> [String] {
        issue.comments.map(\.rawValue)
    }
}
