/// The scripting operations of a running simulator that ``SimulatorControlService`` offers on D-Bus —
/// the part of `BlueZSimulator`'s API a test in another language needs to change the world.
///
/// Each operation is asynchronous and returns once the change has taken effect (its signals queued);
/// arguments that name nothing in the world fail with ``SimulatorError``.
public protocol SimulatorScripting: Sendable {
    /// The peripheral at `peripheral` drops its connection, which ends with `reason`.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - reason: the reason the device reports.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func disconnect(peripheral: BluetoothAddress, reason: DisconnectReason) async throws(SimulatorError)
    /// Moves the peripheral at `peripheral` into range (`true`) or out of it (`false`).
    ///
    /// - Parameters:
    ///   - inRange: whether the peripheral is in range.
    ///   - peripheral: the peripheral's address.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func setInRange(_ inRange: Bool, peripheral: BluetoothAddress) async throws(SimulatorError)
    /// Powers the adapter named `adapter` (`hci0`) on or off.
    ///
    /// - Parameters:
    ///   - powered: on (true) or off.
    ///   - adapter: the adapter's name.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func setPowered(_ powered: Bool, adapter: String) async throws(SimulatorError)
    /// The peripheral notifies `value` on `characteristic` (and stores it).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral's address.
    ///   - characteristic: the characteristic's UUID.
    ///   - value: the bytes notified.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func notify(peripheral: BluetoothAddress, characteristic: BluetoothUUID, value: [UInt8])
        async throws(SimulatorError)
    /// The next `times` calls (nil: every call) of `operation` on `peripheral` meet `fault`.
    ///
    /// - Parameters:
    ///   - fault: what the calls meet.
    ///   - operation: the operation whose calls meet it.
    ///   - peripheral: the peripheral's address.
    ///   - times: how many calls meet it; nil for every call.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func inject(_ fault: OperationFault, on operation: SimulatedOperation, of peripheral: BluetoothAddress, times: Int?)
        async throws(SimulatorError)
    /// Removes every fault waiting for `peripheral`'s operations.
    ///
    /// - Parameter peripheral: the peripheral's address.
    /// - Throws: ``SimulatorError`` when an argument names nothing in the world, or the simulator is not running.
    func clearFaults(of peripheral: BluetoothAddress) async throws(SimulatorError)
    /// bluetoothd "restarts": gives up `org.bluez` for `downtime`, then takes it back with a fresh tree.
    ///
    /// - Parameter downtime: how long bluetoothd is away.
    /// - Throws: ``SimulatorError`` when the simulator is not running or the bus fails.
    func restart(downtime: Duration) async throws(SimulatorError)
    /// What the simulator has sent and what it cost.
    var statistics: SimulatorStatistics { get }
}
