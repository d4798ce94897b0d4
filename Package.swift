// swift-tools-version: 6.1
//
// Ripple: reactive streams for Swift on Linux, and BLE through BlueZ on top of them.
//
// Layers, lowest first; a layer never imports one above it:
//   Ripple                — the operator algebra (pure Swift, Combine-compatible)
//   RippleLoop            — the libuv event loop as a scheduler
//   RippleDBus            — D-Bus through libdbus on RippleLoop
//   RippleBlueZ           — the BLE central on BlueZ's D-Bus API
//   RippleBlueZSimulator  — a simulated bluetoothd on a private bus (stands on RippleDBus, never on RippleBlueZ)
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
        .library(name: "RippleLoop", targets: ["RippleLoop"]),
        .library(name: "RippleDBus", targets: ["RippleDBus"]),
        .library(name: "RippleBlueZ", targets: ["RippleBlueZ"]),
        .library(name: "RippleBlueZSimulator", targets: ["RippleBlueZSimulator"]),
        .executable(name: "ripple-bluez-sim", targets: ["ripple-bluez-sim"]),
        .executable(name: "ripple-ble", targets: ["ripple-ble"]),
    ],
    dependencies: [
        // Only executables and tooling use these: ripple-bluez-sim and ripple-ble (command line, YAML world
        // files), the examples, and the documentation plugin.
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        // `swift package generate-documentation`: the DocC catalogs of the library modules.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        .target(
            name: "Ripple",
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
            dependencies: ["Ripple", "RippleLoop", "CDBus"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleBlueZ",
            dependencies: ["Ripple", "RippleLoop", "RippleDBus"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleBlueZSimulator",
            dependencies: ["Ripple", "RippleLoop", "RippleDBus"],
            swiftSettings: swiftSettings
        ),
        // What the two command-line tools share to serve a simulated world as a process (not a product).
        .target(
            name: "RippleSimulatorServing",
            dependencies: [
                "RippleBlueZSimulator", "RippleDBus", "RippleLoop", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-bluez-sim",
            dependencies: [
                "RippleSimulatorServing", "RippleBlueZSimulator", "RippleDBus", "RippleLoop", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/ripple-bluez-sim",
            swiftSettings: swiftSettings
        ),
        // A peripheral served by bluetoothd itself (GattManager1, LEAdvertisingManager1), for the tests
        // against real BlueZ in Scripts/bluez-guest.
        .executableTarget(
            name: "ripple-gatt-peripheral",
            dependencies: [
                "RippleSimulatorServing", "RippleDBus", "RippleLoop", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/ripple-gatt-peripheral",
            swiftSettings: swiftSettings
        ),
        // `ripple-ble`: scan, info, read, write, listen, bench, doctor and sim from a shell.
        .executableTarget(
            name: "ripple-ble",
            dependencies: [
                "RippleSimulatorServing", "RippleBlueZ", "RippleBlueZSimulator", "RippleDBus", "RippleLoop", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/ripple-ble",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-pipeline",
            dependencies: ["Ripple"],
            path: "Examples/Pipeline",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RippleExampleSupport",
            dependencies: [
                "RippleBlueZ", "RippleBlueZSimulator", "RippleDBus", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Support",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-heart-rate",
            dependencies: [
                "RippleExampleSupport", "RippleBlueZ", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/HeartRateMonitor",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-led",
            dependencies: [
                "RippleExampleSupport", "RippleBlueZ", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/LEDControl",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-shared-listener",
            dependencies: [
                "RippleExampleSupport", "RippleBlueZ", "Ripple",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/SharedListener",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-dbus-fuzz",
            dependencies: ["RippleDBus"],
            path: "Fuzz/DBusMessageDecoder",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleTests",
            dependencies: ["Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleLoopTests",
            dependencies: ["RippleLoop", "Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleDBusTests",
            dependencies: ["RippleDBus", "RippleLoop", "Ripple", "CDBus"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleBlueZTests",
            dependencies: ["RippleBlueZ", "RippleBlueZSimulator", "RippleDBus", "RippleLoop", "Ripple"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RippleBlueZSimulatorTests",
            dependencies: ["RippleBlueZSimulator", "RippleDBus", "RippleLoop", "Ripple"],
            swiftSettings: swiftSettings
        ),
    ]
)
