import AllocationCounter

/// Keeps `value` (a pipeline's result) out of the optimiser's reach, so that the work computing it stays:
/// the gate's stand-in for ordo-one/benchmark's `blackHole`, which the shared pipelines call.
@inline(__always)
func blackHole(_ value: Int) {
    allocation_counter_black_hole(Int64(value))
}
