// Registers the shared pipelines (Pipelines.swift) with ordo-one/benchmark; linked into `RippleBenchmarks`
// and `OpenCombineBenchmarks` beside Pipelines.swift.
import Benchmark

/// Registers every pipeline as a benchmark named `"<framework> | <pipeline> | <elements>"`.
func registerPipelines(framework: String) {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 15
    )
    for pipeline in pipelines() {
        // The time budget grows with the work of one iteration, so that the largest runs (10^7 elements,
        // over a second an iteration) still give several samples for the median rather than one or two.
        var configuration = Benchmark.defaultConfiguration
        configuration.maxDuration = .seconds(max(2, pipeline.elements / 1_000_000))
        Benchmark("\(framework) | \(pipeline.name) | \(pipeline.elements)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { pipeline.run(pipeline.elements) }
        }
    }
}
