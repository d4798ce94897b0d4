import Ripple
import RippleDBus

extension CentralCore {
    /// The time limit of an attempt made by a reconnection policy.
    static let reconnectionTimeout: Duration = .seconds(30)

    /// The timer before a reconnection of `path` fired: the machine makes the attempt, told what
    /// bluetoothd knows of the device now.
    ///
    /// - Parameter path: the device's object path.
    func reconnectTimerFired(_ path: DBusObjectPath) {
        confined.value.connections[path]?.reconnect = nil
        let properties = deviceProperties(path)
        let presence: ConnectionStateMachine.DevicePresence =
            properties == nil
            ? .absent : properties?["ServicesResolved"]?.boolean == true ? .connectedAndResolved : .known
        connectionEvent(path, .reconnectTimerFired(timeout: Self.reconnectionTimeout, device: presence))
    }

    /// bluetoothd and the adapter are back: every peripheral waiting under a policy (and not lent)
    /// reconnects.
    func reconnectionsMayResume() {
        for path in heldForReconnection().sorted() where canReconnect(path) {
            connectionEvent(path, .reconnectAllowed)
        }
    }
}
