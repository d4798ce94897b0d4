import RippleDBus
import RippleLoop

/// What the GATT objects of a connected peripheral need from the device and the simulator: where they
/// live, the connection that exports them, the loop, the connection's MTU, the faults, the counters, and
/// a way to drop the link. One per connection; loop-confined (touched only on ``loop``'s thread).
final class PeripheralLink: Sendable {
    /// The device's object path (`/org/bluez/hci0/dev_C0_FF_EE_00_00_01`); GATT objects live below it.
    let devicePath: DBusObjectPath
    /// The peripheral's address.
    let address: BluetoothAddress
    /// The connection that owns `org.bluez` and exports the objects.
    let connection: DBusConnection
    /// The simulator's loop; every method of the GATT objects runs on its thread.
    let loop: EventLoop
    /// The ATT MTU of this connection.
    let mtu: Int
    /// The faults waiting for the peripheral's operations.
    let faults: FaultBook
    /// The simulator's counters.
    let statistics: SimulatorStatistics
    /// The shuffled order's outbox and source of choices; nil in order.
    let outbox: SignalOutbox?
    /// Drops the link from the peripheral's side (an ``OperationFault/disconnect(_:)`` fault): the device
    /// tears the connection down with the reason. Set by the device; called on the loop thread.
    nonisolated(unsafe) var dropLink: (DisconnectReason) -> Void = { _ in }

    init(
        devicePath: DBusObjectPath, address: BluetoothAddress, connection: DBusConnection, loop: EventLoop, mtu: Int,
        faults: FaultBook, statistics: SimulatorStatistics, outbox: SignalOutbox? = nil
    ) {
        self.devicePath = devicePath
        self.address = address
        self.connection = connection
        self.loop = loop
        self.mtu = mtu
        self.faults = faults
        self.statistics = statistics
        self.outbox = outbox
    }
}
