import Foundation

/// The lifecycle of the signed-in user's account across every service: deleting it,
/// a copy of its data, and consent to the privacy policy and terms.
///
/// A settings screen's view model depends on this protocol, so its tests can use
/// `FakeAccountService` from TrainTesting:
///
/// ```swift
/// func deleteTapped(account: any AccountService, userID: String) async {
///     do {
///         let report = try await account.deleteAccount(of: userID)
///         warnings = report.warnings
///     } catch let error as AccountError where error.code == .requiresRecentLogin {
///         needsSignIn = true
///     } catch {
///         message = error.localizedDescription
///     }
/// }
/// ```
public protocol AccountService: Sendable {
    /// The progress of deletions from now on: each step as it starts, finishes or fails.
    /// - Returns: A stream that ends when the service goes away.
    func deletionProgress() -> AsyncStream<AccountDeletionProgress>

    /// The deletion of `userID`'s account that started and has not finished, if any.
    /// - Parameter userID: The user.
    /// - Returns: Its journal, or nil.
    /// - Throws: ``AccountError/Code/storage``.
    func pendingDeletion(of userID: String) throws -> AccountDeletionJournal?

    /// Deletes the signed-in user's account across every service, in the order of
    /// ``AccountDeletionStep``, or continues a deletion that stopped. Needs a recent
    /// sign-in; nothing is deleted until it and the Apple revocation succeed. Each
    /// finished step is written down at once, so a failure, a cancelled task or a
    /// relaunch continues from the step that did not finish. The data steps run once
    /// more right before the sign-in account goes: the user is signed in until then,
    /// so what they wrote after their data's step ran, in this attempt or an earlier
    /// one, goes too.
    /// - Parameter userID: The user whose account to delete: the signed-in user.
    /// - Returns: What was deleted, and warnings for the user.
    /// - Throws: ``AccountError`` — `notSignedIn`, `notAuthorized` (another user is
    ///   signed in), `requiresRecentLogin`, `requiresAppleReauthentication`,
    ///   `deletionInProgress`, `deletionIncomplete` (with the step), `storage`.
    func deleteAccount(of userID: String) async throws -> AccountDeletionReport

    /// Schedules the signed-in user's account deletion at the end of the grace period
    /// (``AccountConfiguration/deletionGracePeriod``, 30 days by default) instead of
    /// deleting it now. Needs a recent sign-in, and revokes the Apple tokens now, as
    /// the purge runs without the user. The user is signed out and hidden from other
    /// users; signing in before the date and calling ``restoreAccount()`` keeps the
    /// account, and from the date ``purgeDueDeletions()`` deletes everything of theirs.
    /// - Parameter userID: The user: the signed-in user.
    /// - Returns: The schedule, with the date and warnings to show the user.
    /// - Throws: ``AccountError`` — `notSignedIn`, `notAuthorized`,
    ///   `requiresRecentLogin`, `requiresAppleReauthentication`,
    ///   `deletionAlreadyScheduled`, `deletionInProgress`, `storage`. Nothing is
    ///   scheduled then.
    @discardableResult
    func scheduleDeletion(of userID: String) async throws -> ScheduledAccountDeletion

    /// The signed-in user's scheduled deletion, if any: after a sign-in during the
    /// grace period, an app shows the date and offers ``restoreAccount()``.
    /// - Returns: The schedule, or nil.
    /// - Throws: ``AccountError`` — `notSignedIn`, `storage`.
    func scheduledDeletion() throws -> ScheduledAccountDeletion?

    /// Cancels the signed-in user's scheduled deletion: the account is kept and shown
    /// to other users again.
    /// - Throws: ``AccountError`` — `notSignedIn`, `noScheduledDeletion`, `storage`.
    func restoreAccount() async throws

    /// Deletes every account whose grace period has ended, whoever is signed in: social
    /// data, plans on the device and the remote, the sign-in account, and the user's
    /// records on this device. Call it on launch, or run
    /// ``LocalAccountService/purgeWhenDue()`` to have it run as each grace period ends.
    /// One purge that fails does not stop the others; the first failure is thrown once
    /// every purge has been tried, and a purge that stopped runs again next time.
    /// - Returns: The report of each purge.
    /// - Throws: ``AccountError`` — `deletionIncomplete` (with the step), `storage`.
    @discardableResult
    func purgeDueDeletions() async throws -> [AccountDeletionReport]

    /// A copy of all of the signed-in user's data across the services.
    /// - Parameter userID: The user: the signed-in user.
    /// - Returns: The copy; ``AccountExport/jsonData()`` gives the document.
    /// - Throws: ``AccountError`` — `notSignedIn`, `notAuthorized`, `storage`, or
    ///   `exportFailed` when a service could not be read.
    func exportData(of userID: String) async throws -> AccountExport

    /// The signed-in user's acceptances and withdrawals, oldest first.
    /// - Returns: The history.
    /// - Throws: ``AccountError`` — `notSignedIn`, `storage`.
    func consentHistory() throws -> [ConsentRecord]

    /// The documents the signed-in user has to accept before going on: those whose
    /// version in force they have not accepted, or whose acceptance they withdrew.
    /// - Returns: The documents; empty when all is in order.
    /// - Throws: ``AccountError`` — `notSignedIn`, `storage`.
    func documentsNeedingConsent() throws -> [ConsentDocument]

    /// Records the signed-in user's acceptance of a document's version in force.
    /// - Parameters:
    ///   - document: The document.
    ///   - version: The version the user read; it must be the one in force.
    /// - Returns: The record kept.
    /// - Throws: ``AccountError`` — `notSignedIn`, `unknownPolicyVersion`, `storage`.
    @discardableResult
    func accept(_ document: ConsentDocument, version: Int) async throws -> ConsentRecord

    /// Records the withdrawal of the signed-in user's acceptance of a document.
    /// - Parameter document: The document.
    /// - Returns: The record kept.
    /// - Throws: ``AccountError`` — `notSignedIn`, `noConsent` (nothing in force to withdraw), `storage`.
    @discardableResult
    func withdrawConsent(to document: ConsentDocument) async throws -> ConsentRecord
}
