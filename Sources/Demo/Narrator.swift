import Foundation

/// Prints the demo's story one step at a time and remembers whether every step did
/// what it said.
@MainActor
final class Narrator {
    private(set) var failures: [String] = []
    private var number = 0

    /// Prints a line of context that is not a checked step.
    func say(_ text: String) {
        print("   \(text)")
    }

    /// Runs one step: prints what it does, then whether its check held.
    /// - Parameters:
    ///   - title: What the step does.
    ///   - body: Does the work; returns nil when the result is as expected, or what went wrong.
    func step(_ title: String, _ body: () async throws -> String?) async {
        number += 1
        print("\(number). \(title)")
        do {
            if let problem = try await body() {
                fail(problem)
            }
        } catch {
            fail("\(error)")
        }
    }

    private func fail(_ problem: String) {
        failures.append("step \(number): \(problem)")
        print("   FAILED: \(problem)")
    }

    /// Prints the outcome and returns the process exit code.
    func finish() -> Int32 {
        print("")
        if failures.isEmpty {
            print("Every step did what it said.")
            return 0
        }
        print("\(failures.count) step(s) failed:")
        for failure in failures { print("  - \(failure)") }
        return 1
    }
}
