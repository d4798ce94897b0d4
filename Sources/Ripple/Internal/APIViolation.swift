/// Traps for programmer misuse of the reactive-streams contract, where Combine traps.
///
/// These are never reached from data that comes from outside the process: only from code that breaks
/// the rules of `Publisher`/`Subscriber`/`Subscription` (such as requesting a demand of zero from an
/// operator that keeps values of its own, or sending a value before the subscription), which Combine also
/// treats as a fatal programming error. Each operator traps exactly where Combine's does.
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

    /// Traps because an upstream sent a value before it sent its subscription.
    @usableFromInline
    package static func valueBeforeSubscription(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: received a value before the subscription", file: file, line: line)
    }

    /// Traps because an upstream sent a completion the operator cannot take (before its subscription, or a
    /// second failure).
    @usableFromInline
    package static func unexpectedCompletion(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: received an unexpected completion", file: file, line: line)
    }

    /// Traps because the downstream requested values before the operator sent it its subscription.
    @usableFromInline
    package static func requestBeforeSubscription(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: received a request before the subscription", file: file, line: line)
    }

    /// Traps because an upstream sent more values than were requested from it.
    @usableFromInline
    package static func unrequestedValue(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: received a value that was not requested", file: file, line: line)
    }

    /// Traps because an upstream sent a value after the operator cancelled it.
    @usableFromInline
    package static func valueAfterCancel(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: received a value after cancelling", file: file, line: line)
    }

    /// Traps because `timeout` was given ``ImmediateScheduler``, which runs the timeout at once, inside the
    /// subscription (Combine traps on it too).
    @usableFromInline
    package static func timeoutOnImmediateScheduler(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: timeout cannot run on ImmediateScheduler", file: file, line: line)
    }

    /// Traps because a call re-entered an operator from inside a closure that the operator runs while it
    /// cannot take signals (Combine deadlocks there).
    @usableFromInline
    package static func reentrantCall(file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("API Violation: re-entered an operator from its own closure", file: file, line: line)
    }
}
