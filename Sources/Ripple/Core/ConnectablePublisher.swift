/// A publisher that starts producing only when ``connect()`` is called, so every subscriber can attach
/// first.
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Connects to the upstream publisher.
    ///
    /// - Returns: a cancellable that disconnects; keep it for as long as the connection should last.
    func connect() -> any Cancellable
}
