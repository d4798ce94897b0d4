import AllocationCounter

/// The heap allocations the calling thread has made so far, counted by the gate's own `malloc`.
struct AllocationCount: Sendable {
    /// Every allocation (`malloc`, `calloc`, `realloc`, aligned allocations).
    var all: UInt64
    /// Those called for from libdbus's own code.
    var libdbus: UInt64

    /// The calling thread's counts now.
    static var now: AllocationCount {
        AllocationCount(all: allocation_counter_allocations(), libdbus: allocation_counter_attributed_allocations())
    }

    /// What was counted between `earlier` and this.
    static func - (later: AllocationCount, earlier: AllocationCount) -> AllocationCount {
        AllocationCount(all: later.all &- earlier.all, libdbus: later.libdbus &- earlier.libdbus)
    }
}
