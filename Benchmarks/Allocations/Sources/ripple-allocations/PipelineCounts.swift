/// The allocations of one benchmark pipeline: those that grow with the values pushed through it, and
/// those that do not (building, subscribing, tearing down).
struct PipelineCount {
    /// Allocations per value.
    var perElement: Double
    /// Allocations per run, whatever the number of values.
    var perPipeline: Double

    /// The counts per run are taken at these two sizes (multiples of every pipeline's granularity), after
    /// one run at the smaller size to make the one-time allocations of the process (type metadata, caches).
    static let sizes = (small: 16_000, large: 48_000)

    /// Counts `pipeline` on the calling thread (all of a pipeline's work runs on it).
    static func measure(_ pipeline: Pipeline) -> PipelineCount {
        precondition(sizes.small % pipeline.granularity == 0 && sizes.large % pipeline.granularity == 0)
        pipeline.run(sizes.small)
        let small = allocations { pipeline.run(sizes.small) }
        let large = allocations { pipeline.run(sizes.large) }
        let perElement = (large - small) / Double(sizes.large - sizes.small)
        return PipelineCount(perElement: perElement, perPipeline: small - perElement * Double(sizes.small))
    }

    /// The allocations `body` makes on the calling thread.
    private static func allocations(_ body: () -> Void) -> Double {
        let before = AllocationCount.now
        body()
        return Double((AllocationCount.now - before).all)
    }
}
