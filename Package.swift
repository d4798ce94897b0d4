// swift-tools-version: 6.1
//
// Ripple: reactive streams for Swift on Linux, and BLE through BlueZ on top of them.
//
// Layers, lowest first; a layer never imports one above it:
//   Ripple                — the operator algebra (pure Swift, Combine-compatible)
//   RippleLoop            — the libuv event loop as a scheduler            (comes with its issue)
//   RippleDBus            — D-Bus through libdbus on RippleLoop           (comes with its issue)
//   RippleBlueZ           — the BLE central on BlueZ's D-Bus API           (comes with its issue)
//   RippleBlueZSimulator  — a simulated bluetoothd on a private bus        (comes with its issue)
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Ripple",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Ripple", targets: ["Ripple"]),
    ],
    targets: [
        .target(
            name: "Ripple",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-pipeline",
            dependencies: ["Ripple"],
            path: "Examples/Pipeline",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple"],
            swiftSettings: swiftSettings
        ),
    ]
)
