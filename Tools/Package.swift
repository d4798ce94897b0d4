// swift-tools-version: 6.1
//
// Ripple's tools, examples and fuzz target: a package of their own on top of the root package's libraries,
// so that a package depending on Ripple's libraries never resolves the tools' dependencies
// (swift-argument-parser, Yams).
//
//   ripple-ble               — BLE from a shell: scan, info, read, write, listen, bench, doctor, sim
//   ripple-bluez-sim         — a simulated bluetoothd on a private bus, served from a world file
//   ripple-gatt-peripheral   — a peripheral served by a real bluetoothd (the guest's tests against BlueZ)
//   ripple-example-…         — the examples (Examples/; heart-rate-sensor serves a peripheral)
//   ripple-dbus-fuzz         — the libFuzzer target of RippleDBus's message reader (Scripts/fuzz)
//   ripple-soak              — the central against the simulator for minutes, under load (Scripts/soak)
//
// From the repository root: `swift run --package-path Tools ripple-example-heart-rate`, or `Scripts/demo`.
import PackageDescription

/// SwiftPM names a path dependency after its folder, which is whatever the clone was called.
let rippleRoot = String(#filePath.split(separator: "/").dropLast(2).last ?? "Ripple")

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

/// A library product of the root package.
func ripple(_ name: String) -> Target.Dependency {
    .product(name: name, package: rippleRoot)
}

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "RippleTools",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "ripple-ble", targets: ["ripple-ble"]),
        .executable(name: "ripple-bluez-sim", targets: ["ripple-bluez-sim"]),
        .executable(name: "ripple-gatt-peripheral", targets: ["ripple-gatt-peripheral"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // What the command-line tools share to serve a simulated world as a process.
        .target(
            name: "RippleSimulatorServing",
            dependencies: [
                ripple("RippleBlueZSimulator"), ripple("RippleDBus"), ripple("RippleLoop"), ripple("Ripple"),
                argumentParser,
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-bluez-sim",
            dependencies: [
                "RippleSimulatorServing", ripple("RippleBlueZSimulator"), ripple("RippleDBus"), ripple("RippleLoop"),
                ripple("Ripple"), argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        // A peripheral served by bluetoothd itself (GattManager1, LEAdvertisingManager1), for the tests
        // against real BlueZ in Scripts/bluez-guest.
        .executableTarget(
            name: "ripple-gatt-peripheral",
            dependencies: [
                "RippleSimulatorServing", ripple("RippleDBus"), ripple("RippleLoop"), ripple("Ripple"), argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-ble",
            dependencies: [
                "RippleSimulatorServing", ripple("RippleBlueZ"), ripple("RippleBlueZSimulator"), ripple("RippleDBus"),
                ripple("RippleLoop"), ripple("Ripple"), argumentParser,
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-pipeline",
            dependencies: [ripple("Ripple")],
            path: "Examples/Pipeline",
            swiftSettings: swiftSettings
        ),
        // What the examples share, on Ripple's products alone: a user can copy it into a package of their
        // own (Scripts/check-examples-outside does).
        .target(
            name: "RippleExampleSupport",
            dependencies: [
                ripple("RippleBlueZ"), ripple("RippleBlueZSimulator"), ripple("RippleDBus"), ripple("Ripple"),
            ],
            path: "Examples/Support",
            swiftSettings: swiftSettings
        ),
        // The examples' shared command-line options, on ArgumentParser.
        .target(
            name: "RippleExampleOptions",
            dependencies: [
                "RippleExampleSupport", ripple("RippleBlueZ"), ripple("RippleBlueZSimulator"), argumentParser,
            ],
            path: "Examples/Options",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-heart-rate",
            dependencies: [
                "RippleExampleOptions", "RippleExampleSupport", ripple("RippleBlueZ"), ripple("Ripple"), argumentParser,
            ],
            path: "Examples/HeartRateMonitor",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-heart-rate-sensor",
            dependencies: [
                "RippleExampleOptions", "RippleExampleSupport", ripple("RippleBlueZ"), ripple("RippleBlueZSimulator"),
                ripple("Ripple"), argumentParser,
            ],
            path: "Examples/HeartRateSensor",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-led",
            dependencies: [
                "RippleExampleOptions", "RippleExampleSupport", ripple("RippleBlueZ"), ripple("Ripple"), argumentParser,
            ],
            path: "Examples/LEDControl",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-example-shared-listener",
            dependencies: [
                "RippleExampleOptions", "RippleExampleSupport", ripple("RippleBlueZ"), ripple("Ripple"), argumentParser,
            ],
            path: "Examples/SharedListener",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ripple-dbus-fuzz",
            dependencies: [ripple("RippleDBus")],
            path: "Fuzz/DBusMessageDecoder",
            swiftSettings: swiftSettings
        ),
        // `Scripts/soak`: the central against the simulator for minutes, under floods, link drops and restarts.
        .executableTarget(
            name: "ripple-soak",
            dependencies: [
                ripple("RippleBlueZ"), ripple("RippleBlueZSimulator"), ripple("RippleLoop"), ripple("Ripple"),
            ],
            swiftSettings: swiftSettings
        ),
        // What the tests of the tools as processes share: a lifeline on a tool's standard input.
        .target(name: "ToolTestSupport", path: "Tests/ToolTestSupport", swiftSettings: swiftSettings),
        // `ripple-ble` as a process, on its built-in simulator.
        .testTarget(
            name: "RippleBLETests",
            dependencies: ["ripple-ble", "ToolTestSupport", ripple("RippleDBus")],
            swiftSettings: swiftSettings
        ),
        // `ripple-bluez-sim` as a process: world files, the bus address, the control service, SIGTERM.
        .testTarget(
            name: "RippleBlueZSimTests",
            dependencies: [
                "ripple-bluez-sim", "ToolTestSupport", ripple("RippleBlueZSimulator"), ripple("RippleDBus"),
                ripple("RippleLoop"), ripple("Ripple"),
            ],
            swiftSettings: swiftSettings
        ),
        // The central against real bluetoothd and `ripple-gatt-peripheral`, inside Scripts/bluez-guest
        // (Scripts/guest/real-bluez-checks); skipped anywhere else.
        .testTarget(
            name: "RealBlueZTests",
            dependencies: [
                "ripple-gatt-peripheral", ripple("RippleBlueZ"), ripple("RippleDBus"), ripple("RippleLoop"),
                ripple("Ripple"),
            ],
            path: "Tests/RealBlueZTests",
            swiftSettings: swiftSettings
        ),
    ]
)
