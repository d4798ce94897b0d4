/// The link between a publisher and one subscriber: the subscriber requests values and cancels
/// through it.
///
/// Ripple's subscriptions accept `request(_:)` and `cancel()` from any thread, also while values are
/// being delivered; `cancel()` may be called any number of times.
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Asks the publisher for up to `demand` more values.
    ///
    /// As in Combine, `.none` is a programming error for the subjects, `Just`, `Future`, the `Optional`
    /// and `Result` publishers and the operators that keep values of their own (they trap), while the
    /// other operators pass it upstream unchanged.
    ///
    /// - Parameter demand: how many more values the subscriber can take.
    func request(_ demand: Subscribers.Demand)
}
