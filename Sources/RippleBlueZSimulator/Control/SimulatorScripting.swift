/// The scripting operations of a running simulator that ``SimulatorControlService`` offers on D-Bus —
/// the part of `BlueZSimulator`'s API a test in another language needs to change the world.
///
/// Each operation is asynchronous and returns once the change has taken effect (its signals queued);
/// arguments that name nothing in the world fail with ``SimulatorError``.
public protocol SimulatorScripting: Sendable {
    /// The peripheral at `peripheral` drops its connection, which ends with `reason`.
    func disconnect(peripheral: BluetoothAddress, reason: DisconnectReason) async throws(SimulatorError)
    /// Moves the peripheral at `peripheral` into range (`true`) or out of it (`false`).
    func setInRange(_ inRange: Bool, peripheral: BluetoothAddress) async throws(SimulatorError)
    /// Powers the adapter named `adapter` (`hci0`) on or off.
    func setPowered(_ powered: Bool, adapter: String) async throws(SimulatorError)
    /// The peripheral notifies `value` on `characteristic` (and stores it).
    func notify(peripheral: BluetoothAddress, characteristic: BluetoothUUID, value: [UInt8])
        async throws(SimulatorError)
    /// The next `times` calls (nil: every call) of `operation` on `peripheral` meet `fault`.
    func inject(_ fault: OperationFault, on operation: SimulatedOperation, of peripheral: BluetoothAddress, times: Int?)
        async throws(SimulatorError)
    /// Removes every fault waiting for `peripheral`'s operations.
    func clearFaults(of peripheral: BluetoothAddress) async throws(SimulatorError)
    /// bluetoothd "restarts": gives up `org.bluez` for `downtime`, then takes it back with a fresh tree.
    func restart(downtime: Duration) async throws(SimulatorError)
    /// What the simulator has sent and what it cost.
    var statistics: SimulatorStatistics { get }
}
