import Ripple
import RippleLoop

/// The subscription of a stream a connection feeds from its loop thread (signals, name owners, object
/// manager changes): Ripple's buffered subscription, delivering on the loop thread, that ends the stream
/// with ``DBusError/bufferOverflow(limit:)`` when more than `limit` values wait for demand.
///
/// - `request` and `cancel` come from any thread. A request that finds values waiting has them delivered
///   on the loop thread (at once when it is made there, outside a delivery).
/// - Overflow ends the stream at once: the waiting values are dropped with it, and the detach runs.
/// - A completion offered by the source (the connection closed, the stream's own end) is delivered after
///   the values already waiting, as demand allows; with nothing waiting, at once.
typealias LoopStreamSubscription<Downstream: Subscriber> = BufferedSubscription<Downstream>
where Downstream.Failure == DBusError

extension BufferedSubscription where Downstream.Failure == DBusError {
    /// A subscription of one of `core`'s streams for `downstream`.
    ///
    /// - Parameters:
    ///   - core: the connection feeding the stream (its loop thread delivers).
    ///   - limit: the most values kept waiting for demand (at least 1).
    ///   - description: the stream's name.
    ///   - downstream: the subscriber.
    convenience init(core: ConnectionCore, limit: Int, description: String, downstream: Downstream) {
        self.init(
            downstream: downstream, capacity: limit, overflow: .end { .failure(.bufferOverflow(limit: $0)) },
            context: .loop(core.loop), description: description)
    }

    /// Sets what unregisters the stream from `core` (run on the loop thread when the stream ends) and
    /// returns true; returns false, keeping nothing, when the stream already ended (the caller then must
    /// not register it: nothing would unregister it).
    ///
    /// - Parameters:
    ///   - core: the connection the stream is registered with.
    ///   - body: unregisters it.
    /// - Returns: whether the stream is still live.
    func setDetach(on core: ConnectionCore, _ body: @escaping (ConnectionCore) -> Void) -> Bool {
        setOnEnd { core.perform(body) }
    }
}
