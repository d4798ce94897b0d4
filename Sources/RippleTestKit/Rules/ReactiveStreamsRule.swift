/// A rule of the Reactive Streams specification (version 1.0.4) that Ripple's publishers keep, as
/// Combine's do, named by its number in the specification.
///
/// ``PublisherRuleChecker`` checks a publisher against each of them. The numbers are the specification's:
/// §1.x are the rules of a publisher, §3.x those of a subscription.
public enum ReactiveStreamsRule: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// §1.1: the total number of values signalled must not exceed the total demand requested, at all times.
    case demand = "1.1"
    /// §1.3: signals to one subscriber (subscription, values, completion) must not overlap; they come one at
    /// a time.
    case serialSignals = "1.3"
    /// §1.7: no signals after a terminal signal (finished, or a failure).
    case noSignalsAfterTermination = "1.7"
    /// §1.8: once a subscription is cancelled, its subscriber must stop being signalled.
    case stopAfterCancel = "1.8"
    /// §1.9: the subscription must be signalled first, before any value or completion, and once.
    case subscriptionFirst = "1.9"
    /// §3.3: a request made from inside `receive(_:)` must not deliver values recursively without bound.
    case boundedRecursion = "3.3"
    /// §3.6: a request made after cancel must do nothing.
    case requestAfterCancelDoesNothing = "3.6"

    /// The rule's number in the specification, e.g. `"1.1"`.
    public var number: String { rawValue }

    /// What the rule requires, in a sentence.
    public var requirement: String {
        switch self {
        case .demand: "the total number of values signalled must not exceed the total demand requested"
        case .serialSignals: "signals to one subscriber must not overlap"
        case .noSignalsAfterTermination: "no signals after a terminal signal (finished or failure)"
        case .stopAfterCancel: "a cancelled subscriber must stop being signalled"
        case .subscriptionFirst: "the subscription must come first, and once"
        case .boundedRecursion: "a request from inside receive(_:) must not recurse without bound"
        case .requestAfterCancelDoesNothing: "a request after cancel must do nothing"
        }
    }

    /// `§1.1 (the total number of values signalled must not exceed the total demand requested)`.
    public var description: String { "§\(number) (\(requirement))" }
}
