// swift-tools-version:6.0
import PackageDescription

// An app's package as a new user writes it: the library by path, and three
// lines of its own (Sources/Adopter/main.swift). AdopterPackageTests builds
// it and runs it against a loopback server.
let package = Package(
    name: "Adopter",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Thumbnailer", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "Adopter",
            dependencies: [.product(name: "ThumbnailHTTP", package: "Thumbnailer")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
