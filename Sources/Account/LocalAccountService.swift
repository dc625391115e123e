import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// The policy versions and deletion grace period of a ``LocalAccountService``, besides
/// its context, each with a default.
public struct AccountConfiguration: Sendable {
    /// The versions of the privacy policy and terms in force; 1 and 1 by default.
    public var policies = ConsentPolicies()
    /// How long a scheduled deletion waits before the purge: the time the user has to
    /// sign in and restore the account; 30 days by default. Less than a second counts
    /// as one second.
    public var deletionGracePeriod: Duration = .seconds(30 * 86_400)
    /// The clock given to the deprecated initializer, which overrides the context's.
    package var legacy = LegacyContext()

    /// The grace period in seconds, at least one.
    var gracePeriod: TimeInterval { max(deletionGracePeriod.timeInterval, 1) }

    /// Creates a configuration; `AccountConfiguration()` has version 1 of both documents
    /// and 30 days of grace.
    /// - Parameters:
    ///   - policies: The versions in force; 1 and 1 by default.
    ///   - deletionGracePeriod: 30 days by default.
    public init(policies: ConsentPolicies = ConsentPolicies(), deletionGracePeriod: Duration = .seconds(30 * 86_400)) {
        self.policies = policies
        self.deletionGracePeriod = deletionGracePeriod
    }

    /// Creates a configuration with a clock of its own.
    /// - Parameters:
    ///   - clock: The clock, in place of the context's.
    ///   - policies: The versions in force; 1 and 1 by default.
    ///   - deletionGracePeriod: 30 days by default.
    @_disfavoredOverload
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public init(
        clock: (any DateClock)? = nil, policies: ConsentPolicies = ConsentPolicies(), deletionGracePeriod: Duration = .seconds(30 * 86_400)
    ) {
        self.init(policies: policies, deletionGracePeriod: deletionGracePeriod)
        self.legacy = LegacyContext(clock: clock)
    }

    /// The clock given to the deprecated initializer, or the system's.
    @available(*, deprecated, message: "Pass the clock in the service's context.")
    public var clock: any DateClock {
        get { legacy.clock ?? SystemClock() }
        set { legacy.clock = newValue }
    }
}

/// TrainKit's ``AccountService`` over the other services' protocols: it runs on
/// TrainKit's own services, on their fakes, or on an app's conformances over its
/// backend. Its own data — deletion journals and consents — lives in memory or in a
/// file. A deletion hides the user at once and purges their data in the background;
/// a purge journaled in a file continues after a relaunch.
///
/// ```swift
/// let account = try LocalAccountService(
///     auth: auth, social: social, plans: plans, subscriptions: subscriptions,
///     storage: .file(directory.appendingPathComponent("train.sqlite")))
/// let copy = try await account.exportData(of: user.id).jsonData()
/// try await account.deleteAccount(of: user.id)
/// let report = try await account.deletionCompletion(of: user.id)
/// ```
public final class LocalAccountService: AccountService {
    /// Whose account it is, and the sign-in account deleted last.
    public let auth: any AuthService
    /// The social data deleted and exported.
    public let social: any SocialFeedService
    /// The plans deleted and exported.
    public let plans: any PlanSyncService
    /// The subscription service whose renewing subscriptions a deletion counts.
    public let subscriptions: any SubscriptionService
    /// The paywalls whose exposures of the user a deletion removes, if any.
    public let paywalls: (any PaywallService)?
    /// The clock that dates consents, deletions and exports.
    public let context: TrainContext
    /// Policy versions and the deletion grace period.
    public let configuration: AccountConfiguration
    let store: RecordStore
    let progress = Broadcast<AccountDeletionProgress?>(initial: nil)
    /// The users whose deletion is being asked for, restored or purged in this instance.
    let running = Locked(Set<UserKey>())
    /// The background purge, once started.
    let purger = Locked<Task<Void, Never>?>(nil)
    /// Counts the calls that want the background purge to look again.
    let purgeWakes = Broadcast<UInt64>(initial: 0)
    /// Purge rounds, one at a time.
    let rounds = PurgeRounds()
    /// The reports of the purges finished in this instance, by user.
    let finishedReports = Locked([UserKey: AccountDeletionReport]())
    /// The reports of the purges finished since ``purgeDueDeletions()`` last returned them.
    let unreported = Locked([AccountDeletionReport]())
    /// Each purge's report as it finishes.
    let finished = Broadcast<AccountDeletionReport?>(initial: nil)
    /// Whether a round has turned an earlier version's schedules into journals.
    let adoptedEarlierSchedules = Locked(false)
    /// The users whose purge failed, and when it may run again.
    let retries = Locked([UserKey: PurgeRetry]())
    /// Follows the auth state, for sessions a deletion on another device ended.
    private let sessionFollower = Locked<Task<Void, Never>?>(nil)

    /// Creates a service that keeps its data in memory.
    /// - Parameters:
    ///   - auth: The auth service.
    ///   - social: The social service.
    ///   - plans: The plan sync service.
    ///   - subscriptions: The subscription service.
    ///   - paywalls: The paywalls whose exposures of a deleted user are removed, if any.
    ///   - context: The clock that dates consents, deletions and exports; the live one by default.
    ///   - configuration: Policy versions and the deletion grace period.
    public convenience init(
        auth: any AuthService, social: any SocialFeedService, plans: any PlanSyncService, subscriptions: any SubscriptionService,
        paywalls: (any PaywallService)? = nil, context: TrainContext = .live, configuration: AccountConfiguration = AccountConfiguration()
    ) {
        self.init(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, paywalls: paywalls,
            store: .inMemoryOrFailing(AccountRecords.schema), context: context, configuration: configuration)
    }

    /// Creates a service whose data lives in `storage`.
    /// - Parameters:
    ///   - auth: The auth service.
    ///   - social: The social service.
    ///   - plans: The plan sync service.
    ///   - subscriptions: The subscription service.
    ///   - paywalls: The paywalls whose exposures of a deleted user are removed, if any.
    ///   - storage: In memory, or a file (other services may share it) with its options.
    ///   - context: The clock that dates consents, deletions and exports; the live one by default.
    ///   - configuration: Policy versions and the deletion grace period.
    /// - Throws: `CoreError` naming the file if it cannot be opened.
    public convenience init(
        auth: any AuthService, social: any SocialFeedService, plans: any PlanSyncService, subscriptions: any SubscriptionService,
        paywalls: (any PaywallService)? = nil, storage: StorageLocation, context: TrainContext = .live,
        configuration: AccountConfiguration = AccountConfiguration()
    ) throws {
        self.init(
            auth: auth, social: social, plans: plans, subscriptions: subscriptions, paywalls: paywalls,
            store: try RecordStore(storage, schema: AccountRecords.schema), context: context, configuration: configuration)
    }

    init(
        auth: any AuthService, social: any SocialFeedService, plans: any PlanSyncService, subscriptions: any SubscriptionService,
        paywalls: (any PaywallService)? = nil, store: RecordStore, context: TrainContext, configuration: AccountConfiguration
    ) {
        self.auth = auth
        self.social = social
        self.plans = plans
        self.subscriptions = subscriptions
        self.paywalls = paywalls
        self.store = store
        let context = configuration.legacy.applied(to: context)
        self.context = context
        var shown = configuration
        shown.legacy = LegacyContext(context)
        self.configuration = shown
        // A deletion journaled by an earlier launch goes on.
        let journaled =
            (try? store.read { records in
                try !records.keys(in: AccountRecords.deletions, limit: 1).isEmpty || !records.keys(in: AccountRecords.scheduled, limit: 1).isEmpty
            }) ?? false
        // A deletion asked for on another device ended this device's session, before
        // this launch or from now on: what this device holds of the user is purged too.
        joinDeletionThatEndedTheSession()
        let states = auth.authStateChanges()
        let follower = Task { [weak self] in
            // Each change: a session that ended, or another user signed in before this
            // task looked, who must not keep this device from joining.
            for await _ in states {
                self?.joinDeletionThatEndedTheSession()
            }
        }
        sessionFollower.withLock { $0 = follower }
        if journaled { startPurging() }
    }

    deinit {
        sessionFollower.withLock { $0?.cancel() }
        purger.withLock { $0?.cancel() }
        progress.finish()
        purgeWakes.finish()
        finished.finish()
    }

    var now: Date { context.clock.now }

    public func deletionProgress() -> AsyncStream<AccountDeletionProgress> { progress.events() }

    // MARK: - Export

    public func exportData(of requestedID: String) async throws(AccountError) -> AccountExport {
        let user = try signedIn(as: requestedID)
        let userID = user.id
        do {
            let social = try await social.exportAccountData()
            let plans = try plans.plans()
            // Only what carries this user's token: a subscription service that does not
            // follow an auth service may still count another user's.
            let token = try Self.token(for: userID)
            let entitlements = try await subscriptions.currentEntitlements().compactMap { result -> AppStoreTransaction? in
                guard case .verified(let transaction) = result, transaction.appAccountToken == token else { return nil }
                return transaction
            }
            let statuses = try await subscriptions.subscriptionStatuses().filter { $0.transaction.unsafePayloadValue.appAccountToken == token }
            try checkStillSignedIn(userID)
            return AccountExport(
                exportedAt: now, user: user, social: social, plans: plans, appAccountToken: token,
                entitlements: entitlements,
                subscriptions: statuses.map { status in
                    let renewal = status.renewalInfo.unsafePayloadValue
                    let transaction = status.transaction.unsafePayloadValue
                    return AccountExport.Subscription(
                        productID: transaction.productID, state: status.state, willAutoRenew: renewal.willAutoRenew,
                        expirationDate: transaction.expirationDate)
                }, consents: try consentHistory(of: userID))
        } catch let error as AccountError {
            throw error
        } catch {
            throw AccountError(.exportFailed, detail: "A service could not be read for the export: \(error)")
        }
    }

    static func token(for userID: String) throws(AccountError) -> UUID {
        do { return try AppAccountToken.forUser(userID) } catch { throw AccountError(.notSignedIn, detail: "\(error)") }
    }

    // MARK: - Consent

    public func consentHistory() throws(AccountError) -> [ConsentRecord] {
        try consentHistory(of: try signedInUser().id)
    }

    public func documentsNeedingConsent() throws(AccountError) -> [ConsentDocument] {
        configuration.policies.documentsNeedingConsent(given: try consentHistory())
    }

    @discardableResult
    public func accept(_ document: ConsentDocument, version: Int) async throws(AccountError) -> ConsentRecord {
        let user = try signedInUser()
        guard configuration.policies.versions[document] == version else {
            throw AccountError(
                .unknownPolicyVersion,
                detail: "Version \(version) of the \(document.rawValue) is not the one in force (\(configuration.policies.versions[document] ?? 0)).")
        }
        let record = ConsentRecord(document: document, version: version, action: .accepted, date: now)
        try append(record, for: user.id)
        return record
    }

    @discardableResult
    public func withdrawConsent(to document: ConsentDocument) async throws(AccountError) -> ConsentRecord {
        let user = try signedInUser()
        let history = try consentHistory(of: user.id)
        guard let latest = history.last(where: { $0.document == document }), latest.action == .accepted else {
            throw AccountError(.noConsent, detail: "No acceptance of the \(document.rawValue) to withdraw.")
        }
        let record = ConsentRecord(document: document, version: latest.version, action: .withdrawn, date: now)
        try append(record, for: user.id)
        return record
    }

    func consentHistory(of userID: String) throws(AccountError) -> [ConsentRecord] {
        try reading { records in try records.values(in: AccountRecords.consents, range: AccountRecords.range(of: userID)) }
    }

    private func append(_ record: ConsentRecord, for userID: String) throws(AccountError) {
        try writing { records in
            try records.put(record, forKey: AccountRecords.nextKey(userID, in: AccountRecords.consents, of: records), in: AccountRecords.consents)
        }
    }

    // MARK: - Users and transactions

    func signedInUser() throws(AccountError) -> UserEntity {
        guard let user = auth.currentUser else { throw AccountError(.notSignedIn) }
        return user
    }

    /// The signed-in user if it is `userID`, byte for byte (a canonically equivalent
    /// spelling is another ID): `notSignedIn` or `notAuthorized` otherwise.
    func signedIn(as userID: String) throws(AccountError) -> UserEntity {
        let user = try signedInUser()
        guard user.id.utf8.elementsEqual(userID.utf8) else {
            throw AccountError(.notAuthorized, detail: "'\(userID)' is not the signed-in user.")
        }
        return user
    }

    func checkStillSignedIn(_ userID: String) throws(AccountError) {
        guard auth.currentUser?.id == userID else {
            throw AccountError(.notSignedIn, detail: "The signed-in user changed during the call.")
        }
    }

    func reading<Result>(_ body: (RecordReader) throws -> Result) throws(AccountError) -> Result {
        try store.read(failingWith: { AccountError(.storage, detail: "\($0)") }, body)
    }

    func writing<Result>(_ body: (RecordWriter) throws -> Result) throws(AccountError) -> Result {
        try store.write(failingWith: { AccountError(.storage, detail: "\($0)") }, body)
    }
}
