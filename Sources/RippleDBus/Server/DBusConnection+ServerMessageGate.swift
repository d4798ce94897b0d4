/// One message the server side of a connection was about to send — a signal of an exported object, a
/// `PropertiesChanged`, an `InterfacesAdded` or `InterfacesRemoved`, or a reply to a method call — handed
/// to the connection's server message gate instead (see ``DBusConnection/setServerMessageGate(_:)``).
package struct DBusServerMessage: Sendable {
    /// The message as it would have gone out (no serial yet).
    package let message: DBusMessage
    /// The same message, encoded and ready to send.
    let encoded: EncodedMessage
}

extension DBusConnection {
    /// Routes what the exported objects send — their signals and property changes, the object managers'
    /// `InterfacesAdded` and `InterfacesRemoved`, and the replies to method calls — through `gate` instead of
    /// straight to the wire; nil sends them straight again.
    ///
    /// This is for a server that models its own send order: the simulated bluetoothd holds and reorders
    /// messages as BlueZ's GDBus layer may. The gate runs on the loop thread, once per message, in the order
    /// the changes took effect; it sends each message later with ``sendServerMessage(_:)`` (as it was) or
    /// ``send(_:)`` (a message of its own), or drops it. It must not change exported objects itself. Call
    /// before exporting anything; safe from any thread.
    ///
    /// - Parameters:
    ///   - gate: What receives each message the server side sends, or nil.
    package func setServerMessageGate(_ gate: (@Sendable (DBusServerMessage) -> Void)?) {
        core.perform { core in core.serverMessageGate = gate }
    }

    /// Sends a message a server message gate held, as it was (a reply keeps its destination and the serial
    /// it answers). On the loop thread it goes out before this returns; a closed connection drops it.
    ///
    /// - Parameters:
    ///   - message: A message handed to the gate of ``setServerMessageGate(_:)``.
    package func sendServerMessage(_ message: DBusServerMessage) {
        let encoded = message.encoded
        core.perform { core in _ = try? core.send(encoded) }
    }

    /// Calls `observer` with each method call addressed to this connection, on the loop thread, just before
    /// it is dispatched to the exported objects (and before the call's own handler runs); nil removes it.
    ///
    /// The simulated bluetoothd uses this to choose which of its held signals go out before the call is
    /// handled, as BlueZ's GDBus dispatches calls from the same idle queue as its signals. Safe from any
    /// thread.
    ///
    /// - Parameters:
    ///   - observer: What sees each incoming method call before its dispatch, or nil.
    package func setMethodCallObserver(_ observer: (@Sendable (DBusMessage) -> Void)?) {
        core.perform { core in core.methodCallObserver = observer }
    }
}
