/// Where a discovery client's advertisements and end go: a ``Central/startDiscovery(filter:resumesAfterInterruption:buffering:statistics:)``
/// subscriber's event stream, or an ``Central/availablePeripherals(filter:expiry:)`` subscriber's list
/// (made on any thread, called on the loop thread).
struct DiscoverySink: Sendable {
    /// An advertisement that passed the client's filter.
    let deliver: @Sendable (PeripheralDiscovery) -> Void
    /// The client's discovery ended with the error.
    let fail: @Sendable (BluetoothError) -> Void
    /// Whether the subscriber is still there (one that left before its client was added is not added).
    let isLive: @Sendable () -> Bool
}
