import Ripple
import RippleDBus

/// One characteristic's notification session in the central: its ``NotificationSessionStateMachine``,
/// its listeners, and what the machine's actions left running (loop-confined, in
/// ``CentralCore/Confined``).
struct NotificationSessionRecord {
    var machine = NotificationSessionStateMachine()
    var listeners: [Int: NotificationListener] = [:]
    /// What the first listener asked for: the characteristic (to find it again after a reconnection or
    /// a database change), the transport and the peripheral (a record made for reads alone takes the
    /// first listener's).
    var reference: CharacteristicReference
    var transport: NotificationTransport
    var device: Peripheral
    /// `AcquireNotify` or `StartNotify` under way.
    var call: AnyCancellable?
    /// The acquired socket, while notifications come through one.
    var socket: NotificationSocket?
    /// Called once the session is on (``Peripheral/writeAndListen(_:to:reply:type:)``).
    var onStarted: [@Sendable () -> Void] = []
    /// The wait for the characteristic to come back (a re-arm that did not find it).
    var attributeTimer: AnyCancellable?

    init(reference: CharacteristicReference, transport: NotificationTransport, device: Peripheral) {
        self.reference = reference
        self.transport = transport
        self.device = device
    }
}

/// A listener waiting for its characteristic to be exported before it joins a session
/// (loop-confined).
struct PendingListener {
    let listener: NotificationListener
    let reference: CharacteristicReference
    let peripheral: Peripheral
    let transport: NotificationTransport
    let onStarted: (@Sendable () -> Void)?
    var timer: AnyCancellable?
}
