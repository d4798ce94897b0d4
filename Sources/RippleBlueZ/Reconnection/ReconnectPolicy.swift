/// Whether and when a central reconnects a peripheral whose link dropped.
///
/// While a peripheral reconnects, its listeners wait (nothing ends them); after the reconnection they
/// are re-armed, and ``ConnectionEvent/autoConnected(_:)`` marks the end of the gap. An explicit
/// disconnect cancels the policy. When the policy gives up, the listeners end with the last error.
public struct ReconnectPolicy: Sendable {
    /// The wait before each attempt after a drop: the first entry before the first attempt, and so on;
    /// the last entry repeats.
    public var delays: [Duration]
    /// How many attempts in a row may fail before the policy gives up; nil for never.
    public var maximumAttempts: Int?
    /// Decides from the reason of the drop whether to reconnect at all.
    public var shouldReconnect: @Sendable (DisconnectReason) -> Bool
    /// Decides from the error of a failed attempt whether to try again (within ``maximumAttempts``).
    public var shouldRetry: @Sendable (BluetoothError) -> Bool

    /// A policy with this backoff schedule (empty: no wait), limit and decisions.
    ///
    /// - Parameters:
    ///   - delays: the wait before each attempt after a drop: the first entry before the first attempt, and so on; the
    ///     last entry repeats.
    ///   - maximumAttempts: how many attempts in a row may fail before the policy gives up; nil for never.
    ///   - shouldReconnect: decides from the reason of the drop whether to reconnect at all.
    ///   - shouldRetry: decides from the error of a failed attempt whether to try again (within ``maximumAttempts``).
    public init(
        delays: [Duration] = [.zero, .milliseconds(250), .seconds(1), .seconds(2), .seconds(5)],
        maximumAttempts: Int? = nil,
        shouldReconnect: @escaping @Sendable (DisconnectReason) -> Bool = { _ in true },
        shouldRetry: @escaping @Sendable (BluetoothError) -> Bool = { _ in true }
    ) {
        self.delays = delays
        self.maximumAttempts = maximumAttempts
        self.shouldRetry = shouldRetry
        self.shouldReconnect = shouldReconnect
    }

    /// Reconnects after every drop, at once, then after 0.25, 1, 2 and every 5 seconds, for ever.
    public static let always = ReconnectPolicy()

    /// The wait before attempt number `attempt` (0 for the first after a drop).
    func delay(before attempt: Int) -> Duration {
        guard let last = delays.last else { return .zero }
        return attempt < delays.count ? delays[attempt] : last
    }
}
