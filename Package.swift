// swift-tools-version: 6.0
import PackageDescription

/// SQLite and the cryptographic library come from the system. On Apple platforms
/// they are the SDK's `SQLite3` and `CommonCrypto`; everywhere else the `CSQLite`
/// and `CCrypto` system-library targets (pkg-config `sqlite3` and `libcrypto`).
/// CI compiles the Apple branches on Linux against stand-ins of the two SDK modules
/// with Apple's C declarations over the same libraries (.ci/apple), and runs the
/// engine's tests through them (.ci/apple-paths).
let notApple: [Platform] = [.linux, .android, .windows, .openbsd]
let sqlite: Target.Dependency = .target(name: "CSQLite", condition: .when(platforms: notApple))
let crypto: Target.Dependency = .target(name: "CCrypto", condition: .when(platforms: notApple))

let package = Package(
    name: "TrainKit",
    platforms: [.iOS(.v18), .macOS(.v15), .watchOS(.v11), .tvOS(.v18), .visionOS(.v2)],
    products: [
        .library(name: "TrainCore", targets: ["TrainCore"]),
        .library(name: "TrainAuth", targets: ["TrainAuth"]),
        .library(name: "TrainSubscription", targets: ["TrainSubscription"]),
        .library(name: "TrainSocial", targets: ["TrainSocial"]),
        .library(name: "TrainSync", targets: ["TrainSync"]),
        .library(name: "TrainAccount", targets: ["TrainAccount"]),
        .library(name: "TrainTesting", targets: ["TrainTesting"]),
        // Everything an app needs in one product and one import: `import TrainKit` brings
        // every service and the account layer over them.
        .library(name: "TrainKit", targets: ["TrainKit", "TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync", "TrainAccount"]),
        // train-demo and train-bench are executable targets without products: `swift run`
        // builds them in this package, and a package that depends on TrainKit never sees them.
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            path: "Sources/CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // One C function, `__builtin_prefetch` in a loop: Swift has no cache hint of its own.
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // Each library target whose code calls one of Apple's required-reason APIs ships a
        // privacy manifest declaring it (.ci/check-privacy-manifest holds the two together).
        .target(
            name: "TrainCore", dependencies: [sqlite, crypto, "CPrefetch"], path: "Sources/Core", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .target(name: "TrainAuth", dependencies: ["TrainCore"], path: "Sources/Auth"),
        .target(name: "TrainSubscription", dependencies: ["TrainCore", "TrainAuth"], path: "Sources/Subscription"),
        .target(name: "TrainSocial", dependencies: ["TrainCore", "TrainAuth"], path: "Sources/Social"),
        .target(name: "TrainSync", dependencies: ["TrainCore", "TrainAuth"], path: "Sources/Sync"),
        .target(
            name: "TrainAccount", dependencies: ["TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync"], path: "Sources/Account"),
        .target(
            name: "TrainKit", dependencies: ["TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync", "TrainAccount"],
            path: "Sources/TrainKit"),
        .target(
            name: "TrainTesting", dependencies: ["TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync", "TrainAccount"],
            path: "Sources/Testing", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .executableTarget(
            name: "train-demo",
            dependencies: ["TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync", "TrainAccount", "TrainTesting"],
            path: "Sources/Demo"),
        .executableTarget(
            name: "train-bench",
            dependencies: ["TrainCore", "TrainAuth", "TrainSubscription", "TrainSocial", "TrainSync", "TrainAccount", "TrainTesting", sqlite],
            path: "Benchmarks", exclude: ["README.md"]),
        // Helper processes for the crash-safety and two-process tests (REL-1, CORE-5, ACC-2, SYNC-16).
        .executableTarget(name: "train-store-probe", dependencies: ["TrainCore"], path: "Tests/StoreProbe"),
        .executableTarget(name: "train-account-probe", dependencies: ["TrainAccount", "TrainSync", "TrainTesting"], path: "Tests/AccountProbe"),
        .testTarget(
            name: "TrainCoreTests",
            dependencies: ["TrainCore", "TrainTesting", "train-store-probe", sqlite],
            path: "Tests/CoreTests"
        ),
        .testTarget(name: "TrainAuthTests", dependencies: ["TrainAuth", "TrainTesting"], path: "Tests/AuthTests"),
        .testTarget(name: "TrainSubscriptionTests", dependencies: ["TrainSubscription", "TrainTesting"], path: "Tests/SubscriptionTests"),
        .testTarget(name: "TrainSocialTests", dependencies: ["TrainSocial", "TrainTesting"], path: "Tests/SocialTests"),
        .testTarget(name: "TrainSyncTests", dependencies: ["TrainSync", "TrainTesting", "train-account-probe"], path: "Tests/SyncTests"),
        .testTarget(
            name: "TrainAccountTests", dependencies: ["TrainAccount", "TrainTesting", "train-account-probe"], path: "Tests/AccountTests"),
        .testTarget(name: "TrainTestingTests", dependencies: ["TrainTesting", "TrainAuth", "TrainSync", "TrainAccount"], path: "Tests/TestingTests"),
    ],
    swiftLanguageModes: [.v6]
)
