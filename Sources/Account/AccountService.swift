import Foundation

/// Deleting the signed-in user's account, at once or after a grace period, its
/// progress, and taking it back.
///
/// A capability of ``AccountService``.
public protocol AccountDeletion: Sendable {
    /// The progress of deletions from now on: each step as it starts, finishes or fails.
    /// - Returns: A stream that ends when the service goes away.
    func deletionProgress() -> AsyncStream<AccountDeletionProgress>

    /// The deletion of `userID`'s account asked for on this device and not purged yet,
    /// if any. A record that cannot be read is set aside and reads as none.
    /// - Parameter userID: The user.
    /// - Returns: Its journal, or nil.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func pendingDeletion(of userID: String) throws -> AccountDeletionJournal?

    /// Deletes the signed-in user's account: returns once the user is signed out and
    /// hidden from every reader, and the purge of their data runs in the background.
    /// Needs a recent sign-in; the Apple tokens are revoked first, and nothing changes
    /// until both succeed. Then the journal is written and the user is signed out and
    /// hidden in one step. The purge deletes, in the order of
    /// ``AccountDeletionStep``, their social data, plans, the sign-in account and their
    /// records on this device, journaling each step; a failure is tried again after a
    /// backoff, a relaunch continues it. Await ``deletionCompletion(of:)`` for the
    /// report; ``deletionProgress()`` tells each step. Until the sign-in account's step
    /// runs, signing in with the same identity is refused. A deletion in its grace
    /// period is brought forward to now.
    /// - Parameter userID: The user whose account to delete: the signed-in user.
    /// - Returns: The deletion, with the warnings to show the user.
    /// - Throws: ``AccountError`` — `notSignedIn`, `notAuthorized` (another user is
    ///   signed in), `requiresRecentLogin`, `requiresAppleReauthentication`,
    ///   `deletionInProgress`, `storage`. Nothing is hidden or deleted then.
    @discardableResult
    func deleteAccount(of userID: String) async throws -> ScheduledAccountDeletion

    /// Schedules the signed-in user's account deletion at the end of the grace period
    /// (``AccountConfiguration/deletionGracePeriod``, 30 days by default): the same
    /// mechanism as ``deleteAccount(of:)``, whose purge waits for the date. The user is
    /// signed out and hidden from other users at once; signing in before the date and
    /// calling ``restoreAccount()`` keeps the account.
    /// - Parameter userID: The user: the signed-in user.
    /// - Returns: The schedule, with the date and warnings to show the user.
    /// - Throws: ``AccountError`` — `notSignedIn`, `notAuthorized`,
    ///   `requiresRecentLogin`, `requiresAppleReauthentication`,
    ///   `deletionAlreadyScheduled`, `deletionInProgress`, `storage`. Nothing is
    ///   scheduled then.
    @discardableResult
    func scheduleDeletion(of userID: String) async throws -> ScheduledAccountDeletion

    /// Waits until the purge of `userID`'s account finishes and returns its report: at
    /// once for a purge finished in this instance, after the grace period for a
    /// scheduled deletion. A purge that fails is tried again meanwhile.
    /// - Parameter userID: The user whose deletion was asked for.
    /// - Returns: What was deleted, and warnings for the user.
    /// - Throws: ``AccountError`` — `noScheduledDeletion` (no deletion of that user is
    ///   waiting or running here), `deletionIncomplete` when the waiting task is
    ///   cancelled (the purge goes on), `storage`.
    func deletionCompletion(of userID: String) async throws -> AccountDeletionReport

    /// The signed-in user's scheduled deletion, if any: after a sign-in during the
    /// grace period, an app shows the date and offers ``restoreAccount()``.
    /// - Returns: The schedule, or nil.
    /// - Throws: ``AccountError`` — `notSignedIn`, `storage`.
    func scheduledDeletion() throws -> ScheduledAccountDeletion?

    /// Cancels the signed-in user's scheduled deletion: the account is kept and shown
    /// to other users again.
    /// - Throws: ``AccountError`` — `notSignedIn`, `noScheduledDeletion`,
    ///   `deletionInProgress`, `storage`.
    func restoreAccount() async throws
}

/// A copy of the user's data, and their consent to the app's policies.
///
/// A capability of ``AccountService``.
public protocol AccountPrivacy: Sendable {
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

/// Every device's unfinished deletions and the purge of those that are due: what an
/// app runs at launch, and a backend on a schedule.
///
/// A capability of ``AccountService`` that no view model needs.
public protocol AccountAdministration: Sendable {
    /// Every deletion this device has not finished purging, of any user: those asked
    /// for here, and those it joined when a deletion asked for on another device ended
    /// its session. A record that cannot be read is set aside.
    /// - Returns: Their journals, in the order of their user IDs' bytes.
    /// - Throws: ``TrainCore/TrainErrorCode/storage``.
    func pendingDeletions() throws -> [AccountDeletionJournal]

    /// Runs the purges that are due now and waits for them, whoever is signed in:
    /// deletions asked for at once, grace periods ended (on this device or another
    /// sharing the auth service), purges that stopped. The background purge does the
    /// same by itself; call this on launch, or in a test that moved the clock. One
    /// purge that fails does not stop the others; the first failure is thrown once
    /// every purge has been tried, and the failed one is tried again later.
    /// - Returns: The report of each purge finished since the last call, by this call
    ///   or in the background.
    /// - Throws: ``AccountError`` — `deletionIncomplete` (with the step), `storage`.
    @discardableResult
    func purgeDueDeletions() async throws -> [AccountDeletionReport]
}

/// The lifecycle of the signed-in user's account across every service: deleting it,
/// a copy of its data, and consent to the privacy policy and terms.
///
/// A settings screen's view model depends on this protocol, so its tests can use
/// `FakeAccountService` from TrainTesting:
///
/// ```swift
/// func deleteTapped(account: any AccountService, userID: String) async {
///     do {
///         let deletion = try await account.deleteAccount(of: userID)
///         warnings = deletion.warnings
///     } catch AccountError.requiresRecentLogin {
///         needsSignIn = true
///     } catch {
///         message = error.localizedDescription
///     }
/// }
/// ```
public protocol AccountService: AccountDeletion, AccountPrivacy, AccountAdministration {}

extension AccountAdministration {
    /// None by default: a conformance that does not list its pending deletions shows
    /// none after a relaunch.
    /// - Returns: An empty list.
    public func pendingDeletions() throws -> [AccountDeletionJournal] { [] }
}
