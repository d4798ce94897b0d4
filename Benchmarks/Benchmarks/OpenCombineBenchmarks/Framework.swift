// The OpenCombine side of the comparison: `Pipelines.swift` is the shared source, linked into this target.
@_exported import OpenCombine

let benchmarks: @Sendable () -> Void = {
    registerPipelines(framework: "OpenCombine")
}
