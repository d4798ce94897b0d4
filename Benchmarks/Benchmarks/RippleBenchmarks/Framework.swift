// The Ripple side of the comparison: `Pipelines.swift` is the shared source, linked into this target.
@_exported import Ripple

let benchmarks: @Sendable () -> Void = {
    registerPipelines(framework: "Ripple")
}
