import Ripple

/// One peripheral's connection in the central: its ``ConnectionStateMachine`` and what the machine's
/// actions left running (loop-confined, in ``CentralCore/Confined``).
struct ConnectionRecord {
    var machine: ConnectionStateMachine
    /// The peripheral's address, for the handles its events name (kept: the device may leave bluetoothd's
    /// tree). Not a ``Peripheral``: a handle holds its central, which holds this record.
    let address: BluetoothAddress
    /// The time limit of the attempt under way (for its `Connect()` calls).
    var attemptTimeout: Duration = .seconds(30)
    /// The attempt's deadline timer.
    var deadline: AnyCancellable?
    /// `Device1.Connect()` under way.
    var call: AnyCancellable?
    /// The timer before the next `Connect()`.
    var retry: AnyCancellable?
    /// `GetManagedObjects` under way.
    var refresh: AnyCancellable?
    /// The connection tasks under way (the queue is held meanwhile).
    var tasks: AnyCancellable?
    /// The timer before a reconnection.
    var reconnect: AnyCancellable?

    init(address: BluetoothAddress) {
        self.address = address
        machine = ConnectionStateMachine(address: address)
    }

    /// Takes what the attempt left running, to be cancelled.
    mutating func takeAttemptWork() -> [AnyCancellable] {
        defer {
            deadline = nil
            call = nil
            retry = nil
            refresh = nil
            tasks = nil
        }
        return [deadline, call, retry, refresh, tasks].compactMap { $0 }
    }
}
