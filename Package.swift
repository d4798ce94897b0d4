// swift-tools-version: 6.1
//
// Ripple: reactive streams for Swift on Linux, and BLE through BlueZ on top of them.
//
// Layers, lowest first; a layer never imports one above it:
//   Ripple                — the operator algebra (pure Swift, Combine-compatible, no Foundation)
//   RippleFoundation      — Combine's Foundation surface (coders, Timer, NotificationCenter, RunLoop,
//                           OperationQueue, URLSession), beside Ripple so that Ripple needs no Foundation
//   RippleLoop            — the libuv event loop as a scheduler
//   RippleDBus            — D-Bus through libdbus on RippleLoop
//   RippleBluetooth       — the Bluetooth vocabulary client and simulator share (UUIDs, addresses,
//                           characteristic properties, BlueZ's names, hex); depends on nothing
//   RippleBlueZ           — the BLE central on BlueZ's D-Bus API
//   RippleBlueZSimulator  — a simulated bluetoothd on a private bus (stands on RippleDBus, never on RippleBlueZ)
//   RippleTestKit         — for tests of code built on Ripple (stands on Ripple alone)
//
// The libraries depend on nothing but the toolchain and the C libraries. The command-line tools, the examples
// and the fuzz target are a package of their own in Tools/, the benchmarks in Benchmarks/, so that a package
// depending on these libraries resolves none of their dependencies.
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
        .library(name: "RippleFoundation", targets: ["RippleFoundation"]),
        .library(name: "RippleLoop", targets: ["RippleLoop"]),
        .library(name: "RippleDBus", targets: ["RippleDBus"]),
        .library(name: "RippleBluetooth", targets: ["RippleBluetooth"]),
        .library(name: "RippleBlueZ", targets: ["RippleBlueZ"]),
        .library(name: "RippleBlueZSimulator", targets: ["RippleBlueZSimulator"]),
        .library(name: "RippleTestKit", targets: ["RippleTestKit"]),
    ],
    targets: [
        .target(
            name: "Ripple",
            swiftSettings: swiftSettings
        ),
        // Foundation and FoundationNetworking come with the toolchain: no package dependency.
        .target(
            name: "RippleFoundation",
            dependencies: ["Ripple"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CLibUV",
            pkgConfig: "libuv",
            providers: [.apt(["libuv1-dev"])]
        ),
        .target(
            name: "RippleLoop",
            dependencies: ["Ripple", "CLibUV"],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .target(
            name: "RippleDBus",
            dependencies: ["Ripple", "RippleLoop", "CDBus", "CLibUV"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleBluetooth",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleBlueZ",
            dependencies: ["Ripple", "RippleLoop", "RippleDBus", "RippleBluetooth", "CLibUV"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleBlueZSimulator",
            dependencies: ["Ripple", "RippleLoop", "RippleDBus", "RippleBluetooth", "RippleTestKit"],
            swiftSettings: swiftSettings
        ),
        // For tests of code built on Ripple: a recording subscriber, a hand-driven publisher, the publisher
        // rule checker, the virtual-time scheduler.
        .target(
            name: "RippleTestKit",
            dependencies: ["Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple", "RippleTestKit", "RippleTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleFoundationTests",
            dependencies: ["RippleTestKit", "RippleFoundation", "Ripple"],
            // The files the URLSession tests load.
            exclude: ["Networking/Files"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleLoopTests",
            dependencies: ["RippleTestKit", "RippleTestSupport", "RippleLoop", "Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleDBusTests",
            dependencies: [
                "RippleTestKit", "RippleTestSupport", "RippleDBus", "RippleLoop", "Ripple", "CDBus", "CLibUV",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleBluetoothTests",
            dependencies: ["RippleBluetooth"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleBlueZTests",
            dependencies: [
                "RippleTestKit", "RippleTestSupport", "RippleBlueZ", "RippleBlueZSimulator", "RippleBluetooth",
                "RippleDBus", "RippleLoop", "Ripple",
            ],
            // A fake /sys/class/rfkill for the troubleshooting tests.
            exclude: ["Troubleshooting/KillSwitches"],
            swiftSettings: swiftSettings
        ),
        // What the test targets share (not a product): fixtures that stop themselves, a locked box.
        .target(
            name: "RippleTestSupport",
            dependencies: ["Ripple"],
            path: "Tests/RippleTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleTestKitTests",
            dependencies: ["RippleTestKit", "Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleBlueZSimulatorTests",
            dependencies: [
                "RippleTestKit", "RippleTestSupport", "RippleBlueZSimulator", "RippleBluetooth", "RippleDBus",
                "RippleLoop", "Ripple",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
