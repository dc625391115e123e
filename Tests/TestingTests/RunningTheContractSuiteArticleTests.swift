import Testing
import TrainAuth
import TrainCore
import TrainTesting

// The code of TrainTesting.docc/RunningTheContractSuite.md, kept compiling and passing here.
// When you change one, change the other.

struct InMemoryAuthEnvironment: AuthContractEnvironment {
    let clock = ManualClock()
    var recentLoginWindow: Duration { .seconds(300) }

    func makeService() async throws -> any AuthService {
        try LocalAuthService(storage: .inMemory, configuration: AuthConfiguration(clock: clock, policy: AuthPolicy(passwordIterations: 1_000)))
    }

    func advanceClock(by duration: Duration) async {
        clock.advance(by: duration)
    }
}

@Test("the article's contract run passes for the in-memory service", arguments: AuthServiceContract.checks)
func authContract(_ check: AuthContractCheck) async throws {
    try await check.run(in: InMemoryAuthEnvironment())
}
