import RippleDBus

/// A private D-Bus of its own for a simulator: a `dbus-daemon` started by this process in a temporary
/// directory, stopped by ``stop()`` or when released. Nothing on it can reach the system bus.
///
/// ```swift
/// let bus = try SimulatedBus()
/// let simulator = BlueZSimulator(world: world, bus: bus.bus)
/// try await simulator.start()
/// // clients: DBUS_SYSTEM_BUS_ADDRESS=\(bus.address)
/// ```
public final class SimulatedBus: Sendable {
    private let daemon: PrivateDBusDaemon

    /// Starts the daemon and waits until it listens. With `refusingClients`, its policy refuses every
    /// method call to `org.bluez` (`org.freedesktop.DBus.Error.AccessDenied`), as the system bus refuses
    /// a process that is not allowed to talk to bluetoothd: a test of how an app reports that.
    ///
    /// - Parameter refusingClients: whether the bus refuses every call to `org.bluez`.
    /// - Throws: ``SimulatorError/bus(_:)`` when `dbus-daemon` (Debian: the `dbus` package) cannot be started.
    public init(refusingClients: Bool = false) throws(SimulatorError) {
        do {
            daemon = try PrivateDBusDaemon(deniedDestinations: refusingClients ? [BlueZInterface.service] : [])
        } catch {
            throw .bus(error)
        }
    }

    /// The address clients connect to; set it as `DBUS_SYSTEM_BUS_ADDRESS` for a client that expects
    /// bluetoothd on the system bus.
    public var address: String { daemon.address }

    /// The bus, for ``BlueZSimulator/init(world:bus:configuration:)`` and RippleDBus connections.
    public var bus: DBusBus { daemon.bus }

    /// The daemon's process ID: a test can stop it (`SIGSTOP`) to play a bus that reads nothing for a
    /// while, and continue it (`SIGCONT`).
    public var processID: Int32 { daemon.processID }

    /// Stops the daemon; every connection to it sees the bus go away. Idempotent.
    public func stop() {
        daemon.stop()
    }
}
