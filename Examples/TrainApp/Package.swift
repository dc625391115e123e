// swift-tools-version: 6.0
import PackageDescription

// An app's view models on TrainKit, with their tests: the code TrainKit's README and
// DocC point to. It depends on TrainKit by path, as an app in the same repository
// would; an app elsewhere writes `.package(url: "https://github.com/…/TrainKit.git", from: "1.0.0")`.
let package = Package(
    name: "TrainApp",
    platforms: [.iOS(.v18), .macOS(.v15), .watchOS(.v11), .tvOS(.v18), .visionOS(.v2)],
    dependencies: [.package(name: "TrainKit", path: "../..")],
    targets: [
        .target(name: "TrainApp", dependencies: [.product(name: "TrainKit", package: "TrainKit")]),
        .testTarget(
            name: "TrainAppTests",
            dependencies: ["TrainApp", .product(name: "TrainKit", package: "TrainKit"), .product(name: "TrainTesting", package: "TrainKit")]),
        // The README's quick start, as a newcomer copies it into a package of their own.
        .target(name: "QuickStart", dependencies: [.product(name: "TrainKit", package: "TrainKit")]),
        .testTarget(
            name: "QuickStartTests",
            dependencies: ["QuickStart", .product(name: "TrainKit", package: "TrainKit"), .product(name: "TrainTesting", package: "TrainKit")]),
    ]
)
