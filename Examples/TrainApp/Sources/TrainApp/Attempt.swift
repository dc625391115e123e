/// Runs a view model's action and returns what to tell the user if it failed: the
/// error's description, or nil when it succeeded.
@MainActor
func attempt(_ action: () async throws -> Void) async -> String? {
    do {
        try await action()
        return nil
    } catch {
        return error.localizedDescription
    }
}
