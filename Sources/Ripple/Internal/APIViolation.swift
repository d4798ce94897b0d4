/// Traps for programmer misuse of the reactive-streams contract, matching Combine's.
///
/// These are never reached from data that comes from outside the process: only from code that breaks
/// the rules of `Publisher`/`Subscriber`/`Subscription` (such as requesting a demand of zero), which
/// Combine also treats as a fatal programming error.
@usableFromInline
package enum APIViolation {
    /// Traps because `request(_:)` was called with `.none`, which Combine forbids.
    @usableFromInline
    package static func zeroDemand(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: demand must not be zero", file: file, line: line)
    }

    /// Checks that a requested demand is not `.none`.
    @inlinable
    @inline(__always)
    package static func checkDemand(_ demand: Subscribers.Demand, file: StaticString = #file, line: UInt = #line) {
        if demand == .none { zeroDemand(file: file, line: line) }
    }
}
