import Foundation
import TrainAuth
import TrainCore

/// AUTH-ENUM and AUTH-RESET: what a password sign-in tells by its time, and what a
/// password reset costs, on a file-backed service with the default PBKDF2 iterations.
struct AuthRows {
    let directory: URL
    let quick: Bool

    /// PBKDF2 iterations: the policy's default (600,000), 10,000 with `--quick`.
    var iterations: Int { quick ? 10_000 : AuthPolicy().passwordIterations }
    var rounds: Int { quick ? 6 : 20 }
    static let password = "correct horse 1"

    /// A file-backed service with one password account, ada@example.com, signed out,
    /// whose hash was made with `accountIterations` (the policy's by default).
    private func service(_ name: String, mailbox: SimulatedMailbox = SimulatedMailbox(), accountIterations: Int? = nil) async throws
        -> LocalAuthService
    {
        func configuration(_ iterations: Int) -> AuthConfiguration {
            AuthConfiguration(emailSender: mailbox, policy: AuthPolicy(passwordIterations: iterations, emailsPerAddressPerHour: .max))
        }
        let file = StorageLocation.file(directory.appendingPathComponent("\(name).sqlite"))
        let creator = try LocalAuthService(storage: file, configuration: configuration(accountIterations ?? iterations))
        _ = try await creator.createUser(email: "ada@example.com", password: Self.password)
        try await creator.signOut()
        return accountIterations == nil ? creator : try LocalAuthService(storage: file, configuration: configuration(iterations))
    }

    /// AUTH-ENUM: a sign-in with an address no account has, against one with a wrong
    /// password, alternating, on one service; both must be refused alike.
    func enumeration() throws -> BenchRow {
        try enumeration(id: "AUTH-ENUM", accountIterations: nil)
    }

    /// AUTH-ENUM-RAISED: the same, where the account's hash was made with a tenth of the
    /// policy's iterations, before the policy was raised: the wrong password must still
    /// cost the policy's iterations.
    func enumerationAfterRaise() throws -> BenchRow {
        try enumeration(id: "AUTH-ENUM-RAISED", accountIterations: iterations / 10)
    }

    private func enumeration(id: String, accountIterations: Int?) throws -> BenchRow {
        let (rounds, iterations) = (rounds, iterations)
        let auth = try blocking { try await service(id.lowercased(), accountIterations: accountIterations) }
        let (ours, baseline) = try blocking {
            var times: (unknown: [Double], wrong: [Double]) = ([], [])
            for round in 0..<rounds {
                for unknown in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let email = unknown ? "nobody-\(round)@example.com" : "ada@example.com"
                    let start = ContinuousClock.now
                    do {
                        _ = try await auth.signIn(with: .emailPassword(email: email, password: "wrong horse 9"))
                        throw BenchError("a wrong sign-in succeeded")
                    } catch let error as AuthenticationError where error.code == .invalidCredential {}
                    let elapsed = SocialRows.elapsed(ContinuousClock.now - start)
                    if unknown { times.unknown.append(elapsed) } else { times.wrong.append(elapsed) }
                }
            }
            return (median(times.unknown), median(times.wrong))
        }
        let account = accountIterations.map { ", the account's hash made with \($0 / 1_000)k before the policy was raised" } ?? ""
        return BenchRow(
            id: id,
            workload:
                "password sign-in, unknown address vs wrong password (both invalidCredential), file, PBKDF2 \(iterations / 1_000)k\(account); median of \(rounds)",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "0.8 <= ratio <= 1.25")
    }

    /// AUTH-SIGNIN: a password sign-in with the right password, against the one PBKDF2
    /// hash it must pay, computed directly with the platform's library: what the service
    /// adds to the hash.
    func signIn() throws -> BenchRow {
        let (rounds, iterations) = (rounds, iterations)
        let auth = try blocking { try await service("auth-signin") }
        let salt = [UInt8](repeating: 7, count: 16)
        let (ours, baseline) = try blocking {
            var times: (signIn: [Double], hash: [Double]) = ([], [])
            for round in 0..<rounds {
                for isSignIn in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let start = ContinuousClock.now
                    if isSignIn {
                        _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
                        times.signIn.append(SocialRows.elapsed(ContinuousClock.now - start))
                        try await auth.signOut()
                    } else {
                        _ = try PlatformCrypto.pbkdf2SHA256(password: Data(Self.password.utf8), salt: salt, iterations: iterations)
                        times.hash.append(SocialRows.elapsed(ContinuousClock.now - start))
                    }
                }
            }
            return (median(times.signIn), median(times.hash))
        }
        return BenchRow(
            id: "AUTH-SIGNIN",
            workload:
                "password sign-in with the right password, file, vs one bare PBKDF2-SHA256 of \(iterations / 1_000)k iterations; median of \(rounds)",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "ratio <= 1.2")
    }

    /// AUTH-RESET: a password reset end to end — the email sent, the code read from the
    /// mailbox, the new password set — against a password sign-in, alternating.
    func reset() throws -> BenchRow {
        let (rounds, iterations) = (rounds, iterations)
        let mailbox = SimulatedMailbox()
        let auth = try blocking { try await service("auth-reset", mailbox: mailbox) }
        let (ours, baseline) = try blocking {
            var times: (reset: [Double], signIn: [Double]) = ([], [])
            for round in 0..<rounds {
                for isReset in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                    let start = ContinuousClock.now
                    if isReset {
                        try await auth.sendPasswordReset(email: "ada@example.com")
                        guard let code = mailbox.lastCode(for: "ada@example.com", .passwordReset) else { throw BenchError("no reset email") }
                        try await auth.confirmPasswordReset(code: code, newPassword: Self.password)
                        times.reset.append(SocialRows.elapsed(ContinuousClock.now - start))
                    } else {
                        _ = try await auth.signIn(with: .emailPassword(email: "ada@example.com", password: Self.password))
                        times.signIn.append(SocialRows.elapsed(ContinuousClock.now - start))
                        try await auth.signOut()
                    }
                }
            }
            return (median(times.reset), median(times.signIn))
        }
        return BenchRow(
            id: "AUTH-RESET",
            workload:
                "password reset end to end (send, read the mailbox, confirm) vs a password sign-in, file, PBKDF2 \(iterations / 1_000)k; median of \(rounds)",
            ours: ours * 1e3, baseline: baseline * 1e3, unit: "ms", target: "reported")
    }
}
