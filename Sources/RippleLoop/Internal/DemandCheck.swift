import Ripple

/// Traps for programmer misuse of the reactive-streams contract, as Combine (and `Ripple`) do.
enum DemandCheck {
    /// Traps if `demand` is `.none`: `request(.none)` is an API violation in Combine.
    @inline(__always)
    static func require(_ demand: Subscribers.Demand, file: StaticString = #file, line: UInt = #line) {
        if demand == .none {
            preconditionFailure("API Violation: demand must not be zero", file: file, line: line)
        }
    }
}
