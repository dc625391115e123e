import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

/// What a ``TrainServices`` stack is built with: its context (the clock, the IDs,
/// the time zone), the simulated device (biometrics, network), the products and
/// rules, and any part the app brings of its own.
///
/// ```swift
/// var configuration = TrainServicesConfiguration(context: TrainContext(clock: clock), network: .offline)
/// try configuration.setTimeZone(identifier: "Europe/Paris")
/// let services = TrainServices.inMemory(configuration: configuration)
/// ```
public struct TrainServicesConfiguration: Sendable {
    /// The clock, the IDs and the time zone of every service and simulation of the
    /// stack: with a test context, a stack's user IDs are the same on every run.
    public var context: TrainContext
    /// The device's biometrics, which the biometric lock asks.
    public var biometrics: any BiometricAuthenticator
    /// The network between each device and the remote at first; each device's
    /// ``TrainServices/network`` changes it later.
    public var network: NetworkConditions
    /// The app's bundle ID, the audience of the simulated Sign in with Apple.
    public var appleAudience: String
    /// The products on sale in the simulated App Store.
    public var products: [AppStoreProduct]
    /// The app the simulated App Store sells for: the bundle ID and App Apple ID its
    /// server notifications name; TrainKit's example app unless set.
    public var storeApp: StoreApp = .example
    /// Which features each tier unlocks, as the session manager shows them.
    public var features: FeatureCatalog
    /// Which app user has access to what the device's Apple ID bought.
    public var subscriptionAccess: SubscriptionAccessPolicy
    /// Sign-in rules.
    public var authPolicy: AuthPolicy
    /// Feed rules.
    public var socialPolicy: SocialPolicy
    /// The user's recorded workouts, as HealthKit would give them: what an unlock may
    /// require and what a post shows of its workout. None by default; a preview stack
    /// has a week of samples.
    public var workouts: (any WorkoutSource)?
    /// The versions of the privacy policy and terms in force.
    public var consentPolicies: ConsentPolicies
    /// When background sync runs.
    public var backgroundSync: BackgroundSyncConfiguration
    /// The app's own remote for plans, such as its Firestore conformance; nil for the
    /// simulated one.
    public var remote: (any RemotePlanStore)?
    /// The app's own auth service, such as its Firebase conformance; nil for TrainKit's
    /// with the simulated Sign in with Apple. A stack on the app's auth cannot add users
    /// or make devices: the accounts are the app's.
    public var auth: (any AuthService)?

    /// Creates a configuration.
    /// - Parameters:
    ///   - context: The live clock, IDs and time zone by default.
    ///   - biometrics: A simulated Face ID, enrolled, whose prompts are approved, by default.
    ///   - network: Online by default.
    ///   - appleAudience: `com.example.train` by default.
    ///   - products: The standard Pro and Premium products by default, Pro monthly with
    ///     a one-week free trial.
    ///   - features: The standard feature catalog by default.
    ///   - subscriptionAccess: StoreKit's behaviour by default: every app user on the
    ///     device has what its Apple ID bought.
    ///   - authPolicy: The default sign-in rules.
    ///   - socialPolicy: The default feed rules.
    ///   - consentPolicies: Version 1 of both documents.
    ///   - backgroundSync: A sync every 5 minutes.
    ///   - remote: The app's own remote; the simulated one by default.
    ///   - auth: The app's own auth service; TrainKit's by default.
    public init(
        context: TrainContext = .live,
        biometrics: any BiometricAuthenticator = SimulatedBiometricAuthenticator(), network: NetworkConditions = .online,
        appleAudience: String = "com.example.train", products: [AppStoreProduct] = AppStoreProduct.standard, features: FeatureCatalog = .standard,
        subscriptionAccess: SubscriptionAccessPolicy = .appleID, authPolicy: AuthPolicy = AuthPolicy(), socialPolicy: SocialPolicy = SocialPolicy(),
        consentPolicies: ConsentPolicies = ConsentPolicies(), backgroundSync: BackgroundSyncConfiguration = BackgroundSyncConfiguration(),
        remote: (any RemotePlanStore)? = nil, auth: (any AuthService)? = nil
    ) {
        self.context = context
        self.biometrics = biometrics
        self.network = network
        self.appleAudience = appleAudience
        self.products = products
        self.features = features
        self.subscriptionAccess = subscriptionAccess
        self.authPolicy = authPolicy
        self.socialPolicy = socialPolicy
        self.consentPolicies = consentPolicies
        self.backgroundSync = backgroundSync
        self.remote = remote
        self.auth = auth
    }

    /// Creates a configuration from a clock and a time zone.
    @available(*, deprecated, message: "Pass context: TrainContext(clock: clock, timeZone: timeZone); the context also makes the stack's IDs.")
    public init(
        clock: any DateClock, timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current },
        biometrics: any BiometricAuthenticator = SimulatedBiometricAuthenticator(), network: NetworkConditions = .online,
        appleAudience: String = "com.example.train", products: [AppStoreProduct] = AppStoreProduct.standard, features: FeatureCatalog = .standard,
        subscriptionAccess: SubscriptionAccessPolicy = .appleID, authPolicy: AuthPolicy = AuthPolicy(), socialPolicy: SocialPolicy = SocialPolicy(),
        consentPolicies: ConsentPolicies = ConsentPolicies(), backgroundSync: BackgroundSyncConfiguration = BackgroundSyncConfiguration(),
        remote: (any RemotePlanStore)? = nil, auth: (any AuthService)? = nil
    ) {
        self.init(
            context: TrainContext(clock: clock, timeZone: timeZone), biometrics: biometrics, network: network, appleAudience: appleAudience,
            products: products, features: features, subscriptionAccess: subscriptionAccess, authPolicy: authPolicy, socialPolicy: socialPolicy,
            consentPolicies: consentPolicies, backgroundSync: backgroundSync, remote: remote, auth: auth)
    }

    /// The context's clock.
    @available(*, deprecated, message: "Use context.clock: the context holds the clock, the IDs and the time zone.")
    public var clock: any DateClock {
        get { context.clock }
        set { context.clock = newValue }
    }

    /// The context's time zone.
    @available(*, deprecated, message: "Use context.timeZone: the context holds the clock, the IDs and the time zone.")
    public var timeZone: @Sendable () -> TimeZone {
        get { context.timeZone }
        set { context.timeZone = newValue }
    }

    /// Sets the user's time zone by its identifier, such as `Europe/Paris`.
    /// - Parameter identifier: An identifier of the time zone database.
    /// - Throws: ``TrainCore/TrainErrorCode/invalidArgument`` for an identifier the database
    ///   does not know; the time zone stays as it was.
    public mutating func setTimeZone(identifier: String) throws(AccountError) {
        // Foundation reads past a NUL byte on some platforms: a control character is never part of a zone's name.
        guard !identifier.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            let zone = TimeZone(identifier: identifier)
        else {
            throw AccountError(.invalidArgument, detail: "'\(identifier)' is not a time zone identifier.")
        }
        context.timeZone = { zone }
    }

    /// The auth configuration of a device: its simulated Apple, the world's mailbox,
    /// the biometrics and the policy.
    func authConfiguration(apple: SimulatedIdentityProvider, mailbox: SimulatedMailbox) -> AuthConfiguration {
        var configuration = AuthConfiguration()
        configuration.apple = IdentityProviderConfiguration(authorizer: apple, audience: appleAudience)
        configuration.emailSender = mailbox
        configuration.biometrics = biometrics
        configuration.policy = authPolicy
        return configuration
    }

    /// The subscription configuration of every device.
    var subscription: SubscriptionConfiguration {
        var configuration = SubscriptionConfiguration()
        configuration.accessPolicy = subscriptionAccess
        return configuration
    }

    /// The paywall configuration of every device.
    package var paywall: PaywallServiceConfiguration {
        var configuration = PaywallServiceConfiguration()
        configuration.catalog = features
        configuration.products = products
        return configuration
    }

    /// The account configuration of every device.
    package var account: AccountConfiguration {
        var configuration = AccountConfiguration()
        configuration.policies = consentPolicies
        return configuration
    }

    /// The simulated App Store of the world.
    var appStore: AppStoreConfiguration { AppStoreConfiguration(products: products, app: storeApp) }

    /// A device's simulated Sign in with Apple.
    func makeAppleID() -> SimulatedIdentityProvider {
        SimulatedIdentityProvider(provider: .apple, audience: appleAudience, clock: context.clock)
    }

    /// The social configuration of every device.
    var social: SocialConfiguration {
        var configuration = SocialConfiguration()
        configuration.policy = socialPolicy
        configuration.workouts = workouts
        return configuration
    }
}
