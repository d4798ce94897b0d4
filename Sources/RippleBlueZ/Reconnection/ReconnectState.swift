import Ripple

/// A peripheral's reconnection policy and where its reconnection stands.
struct ReconnectState {
    let peripheral: Peripheral
    let policy: ReconnectPolicy
    /// Attempts that failed since the link dropped.
    var failures = 0
    /// The wait before the next attempt, or the attempt under way.
    var pending: AnyCancellable?
}
