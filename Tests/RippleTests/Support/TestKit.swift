import RippleTestKit

@testable import Ripple

/// An error for tests to fail publishers with.
enum TestError: Error, Equatable, Sendable {
    case oops
    case other
}

/// The recording subscriber of RippleTestKit.
typealias TestSubscriber<Input, Failure: Error> = RippleTestKit.TestSubscriber<Input, Failure>

/// The hand-driven publisher of RippleTestKit.
typealias TestPublisher<Output, Failure: Error> = RippleTestKit.TestPublisher<Output, Failure>

/// The virtual-time scheduler of RippleTestKit.
typealias VirtualTimeScheduler = RippleTestKit.VirtualTimeScheduler

/// One thing a ``TestSubscriber`` saw or did, for exact comparisons of whole sequences.
typealias Event<Value, Failure: Error> = RippleTestKit.TestSubscriber<Value, Failure>.Event
