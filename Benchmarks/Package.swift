// swift-tools-version: 6.1
//
// Ripple's benchmarks: their own package, so that library users never resolve benchmark dependencies.
// Run with `Scripts/benchmarks` from the repository root.
import PackageDescription

/// SwiftPM names a path dependency after its folder, which is whatever the clone was called.
let rippleRoot = String(#filePath.split(separator: "/").dropLast(2).last ?? "Ripple")

/// The shared pipeline source accumulates into captured `var`s; without this, each access pays a dynamic
/// exclusivity check (the same harness cost per element on both sides). It applies to the benchmark
/// targets' own code only: Ripple and OpenCombine are compiled with their own settings.
let harnessWithoutExclusivityChecks = SwiftSetting.unsafeFlags(["-enforce-exclusivity=unchecked"])

let package = Package(
    name: "RippleBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // libdbus through pkg-config (`dbus-1`), for the C peer below.
        .systemLibrary(
            name: "CLibDBus",
            path: "Benchmarks/CLibDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        // A minimal libdbus client in C: the ceiling RippleDBus is compared with, the signal emitter and
        // the method responder both sides use.
        .target(
            name: "LibDBusPeer",
            dependencies: ["CLibDBus"],
            path: "Benchmarks/LibDBusPeer"
        ),
        .executableTarget(
            name: "DBusBenchmarks",
            dependencies: [
                "LibDBusPeer",
                .product(name: "Ripple", package: rippleRoot),
                .product(name: "RippleLoop", package: rippleRoot),
                .product(name: "RippleDBus", package: rippleRoot),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/DBusBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The simulator's own cost: AcquireNotify notifications per second and emitter CPU per notification.
        .executableTarget(
            name: "SimulatorBenchmarks",
            dependencies: [
                .product(name: "Ripple", package: rippleRoot),
                .product(name: "RippleLoop", package: rippleRoot),
                .product(name: "RippleDBus", package: rippleRoot),
                .product(name: "RippleBlueZSimulator", package: rippleRoot),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SimulatorBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // End-to-end notification throughput, CPU and latency: ripple-ble, the C peers and bleak, each a
        // process against the simulator in a process of its own (run by Scripts/notification-benchmarks).
        .executableTarget(
            name: "NotificationBenchmarks",
            dependencies: [
                .product(name: "RippleBluetooth", package: rippleRoot),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NotificationBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LoopBenchmarks",
            dependencies: [
                .product(name: "Ripple", package: rippleRoot),
                .product(name: "RippleLoop", package: rippleRoot),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/LoopBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "RippleBenchmarks",
            dependencies: [
                .product(name: "Ripple", package: rippleRoot),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RippleBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6), .define("RIPPLE"), harnessWithoutExclusivityChecks],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "OpenCombineBenchmarks",
            dependencies: [
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/OpenCombineBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6), harnessWithoutExclusivityChecks],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
