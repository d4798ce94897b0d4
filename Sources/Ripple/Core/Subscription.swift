/// The link between a publisher and one subscriber: the subscriber requests values and cancels
/// through it.
///
/// Ripple's subscriptions accept `request(_:)` and `cancel()` from any thread, also while values are
/// being delivered; `cancel()` may be called any number of times.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Asks the publisher for up to `demand` more values. `demand` must not be `.none` (that traps, as
    /// in Combine).
    func request(_ demand: Subscribers.Demand)
}
