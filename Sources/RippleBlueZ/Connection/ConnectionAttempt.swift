import Ripple

/// A `Device1.Connect()` under way, shared by every subscriber that asked for the same peripheral.
struct ConnectionAttempt {
    let peripheral: Peripheral
    var subjects: [Int: PassthroughSubject<Peripheral, BluetoothError>] = [:]
    /// bluetoothd answered `Connect()` with success: the link is up even if `Connected` never changes
    /// (BlueZ 5.66 can answer without ever signalling it).
    var replied = false
    /// `Connected = true` was signalled.
    var signalled = false
    /// ``ConnectionEvent/connected(_:)`` was emitted.
    var announced = false
    var timer: AnyCancellable?
    var call: AnyCancellable?
    /// The connection tasks, once the services are resolved.
    var tasks: AnyCancellable?
    var tasksStarted = false

    var linkIsUp: Bool { replied || signalled }
}
