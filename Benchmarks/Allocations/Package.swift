// swift-tools-version: 6.1
//
// Ripple's allocation gate: heap allocations counted in a release build, per element and per pipeline, for
// the benchmark pipelines (the same source as Benchmarks/, Shared/Pipelines.swift) and per notification
// for the notification receive paths on the simulator. `Scripts/check-allocations` builds and runs it; it
// fails when a count rises above its limit in `limits.txt`. A package of its own, so that it needs nothing
// but the libraries (Benchmarks/ resolves ordo-one/benchmark and OpenCombine).
import PackageDescription

/// SwiftPM names a path dependency after its folder, which is whatever the clone was called.
let rippleRoot = String(#filePath.split(separator: "/").dropLast(3).last ?? "Ripple")

let package = Package(
    name: "RippleAllocations",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../..")
    ],
    targets: [
        // malloc and its relatives, counted per thread.
        .target(name: "AllocationCounter"),
        .executableTarget(
            name: "ripple-allocations",
            dependencies: [
                "AllocationCounter",
                .product(name: "Ripple", package: rippleRoot),
                .product(name: "RippleLoop", package: rippleRoot),
                .product(name: "RippleDBus", package: rippleRoot),
                .product(name: "RippleBlueZ", package: rippleRoot),
                .product(name: "RippleBlueZSimulator", package: rippleRoot),
            ],
            // As the benchmark targets compile the shared pipelines (see Benchmarks/Package.swift).
            swiftSettings: [
                .swiftLanguageMode(.v6), .define("RIPPLE"), .unsafeFlags(["-enforce-exclusivity=unchecked"]),
            ]
        ),
    ]
)
