import Foundation
import TrainAuth
import TrainCore
import TrainSocial
import TrainSubscription
import TrainSync

extension TrainServices {
    /// Adds a user to this stack's world — a friend to follow, whose posts reach the
    /// feed — with an Apple ID of their own, and returns their account. Nobody is signed
    /// in as them: act as them on a device of theirs, from ``makeDevice(for:)``.
    ///
    /// ```swift
    /// let grace = try await services.addUser(named: "Grace Hopper")
    /// let gracePhone = try services.makeDevice(for: grace.id)
    /// _ = try await gracePhone.social.unlockFeed(workoutType: .run)
    /// _ = try await gracePhone.social.createPost(content: "Intervals done", workoutType: .run)
    /// try await services.social.follow(grace.id)
    /// ```
    /// - Parameters:
    ///   - name: Their name, 1 to 100 characters without control characters.
    ///   - email: Their email address; none by default.
    /// - Returns: The new account.
    /// - Throws: ``AccountError`` `invalidArgument` for a bad name, `notSupported` on a
    ///   stack with the app's own auth service; `AuthenticationError` for an email
    ///   address another account uses.
    @discardableResult
    public func addUser(named name: String, email: String? = nil) async throws -> UserEntity {
        guard case .local(let accounts) = world.accounts else {
            throw AccountError(.notSupported, detail: "The stack signs in with the app's own auth service, whose accounts it cannot add to.")
        }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw AccountError(.invalidArgument, detail: "A user's name is 1 to 100 characters without control characters: \(name.debugDescription).")
        }
        let apple = configuration.makeAppleID()
        apple.signIn(
            as: SimulatedIdentityProvider.Account(
                subject: "simulated.\(configuration.context.ids.makeID())", email: email, fullName: FullName(givenName: trimmed)))
        // A session of its own, ended at once, so no device's session changes.
        let auth = try LocalAuthService(
            store: accounts, sessionKey: "adding-\(configuration.context.ids.makeID())", signingIn: nil, context: configuration.context,
            configuration: configuration.authConfiguration(apple: apple, mailbox: world.mailbox))
        let user = try await auth.signInWithApple()
        // Findable and followable at once, as after a sign-up on a device of their own.
        let social = LocalSocialFeedService(
            auth: auth, store: world.socialStore, media: nil, context: configuration.context, configuration: configuration.social)
        _ = try await social.refreshProfile()
        try await auth.signOut()
        return user
    }

    /// Another device in this stack's world with `userID` signed in: a friend's phone,
    /// or the user's own tablet. It shares the accounts, the feed, the photos and the
    /// remote, and has its own session, plans, network, background sync and account
    /// data — in memory, or under `devices/` in a stack in files. Its App Store is a
    /// device of the world's one App Store (`SimulatedAppStore.device(signedInTo:)`):
    /// a device of the user signed in on this stack's first device is signed in to that
    /// device's Apple ID (what one buys, the other has); another user's devices to the
    /// user's own, `AppleID.standard(forUser:)`. So Family Sharing, refunds and restores
    /// work across users' devices, and a device may switch to an Apple ID another user
    /// signs in with, as a family's shared iPad does.
    ///
    /// ```swift
    /// let tablet = try services.makeDevice(for: ada.id)
    /// _ = try await services.plans.createPlan(plan)
    /// try await services.plans.sync()
    /// try await tablet.plans.sync()                          // the plan is on the tablet
    /// ```
    /// - Parameter userID: The user, whose account must exist in this world.
    /// - Returns: The device, its `configuration` this stack's.
    /// - Throws: ``AccountError`` `userNotFound` for an ID no account has, `notSupported`
    ///   on a stack with the app's own auth service; `AuthenticationError` `userDisabled`
    ///   for an account that may not sign in; `CoreError` for a file that cannot be opened.
    public func makeDevice(for userID: String) throws -> TrainServices {
        guard case .local(let accounts) = world.accounts else {
            throw AccountError(.notSupported, detail: "The stack signs in with the app's own auth service: sign in on a device of its own.")
        }
        let number = world.nextDeviceNumber()
        let apple = configuration.makeAppleID()
        let auth: LocalAuthService
        do {
            auth = try LocalAuthService(
                store: accounts, sessionKey: "device-\(number)", signingIn: userID, context: configuration.context,
                configuration: configuration.authConfiguration(apple: apple, mailbox: world.mailbox))
        } catch AuthenticationError.userNotFound {
            throw AccountError(.userNotFound, detail: "No account in this world has the ID \(userID.debugDescription).")
        }
        let stores: DeviceStores
        if let directory = world.directory {
            let devices = directory.appendingPathComponent("devices", isDirectory: true)
            let folder = devices.appendingPathComponent("\(number)", isDirectory: true)
            for made in [devices, folder] {
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let file = StorageLocation.file(folder.appendingPathComponent("trainkit.sqlite"))
            stores = try DeviceStores(file)
        } else {
            stores = DeviceStores()
        }
        return TrainServices(
            world: world, appleID: apple, auth: auth, appStore: world.appStore(for: userID),
            media: world.media(for: auth), deviceStore: stores)
    }
}
