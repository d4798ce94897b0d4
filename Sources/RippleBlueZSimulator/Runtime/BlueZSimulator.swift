import Ripple
import RippleDBus
import RippleLoop

/// A simulated bluetoothd: it owns `org.bluez` on a bus it is given (normally a ``SimulatedBus``) and
/// serves BlueZ's D-Bus API — object manager, adapters, discovery, devices, connections, GATT,
/// notifications — for the world it simulates, which a test or a tool scripts while clients use it.
///
/// ```swift
/// let bus = try SimulatedBus()
/// let simulator = BlueZSimulator(world: SimulatedWorld(peripherals: [.init(.heartRateMonitor())]), bus: bus.bus)
/// try await simulator.start()
/// // … a client on bus.address scans, connects, reads, listens …
/// try await simulator.disconnect(peripheral: "C0:FF:EE:00:00:01", reason: .remote)
/// await simulator.stop()
/// ```
///
/// It runs on an event loop thread of its own; every scripting method is safe from any thread and
/// returns once its change has taken effect (its signals queued on the bus connection), so a test that
/// awaits it can check what clients see next.
public final class BlueZSimulator: Sendable {
    /// How the simulated bluetoothd times things, and which release's signals it sends.
    public struct Configuration: Sendable, Hashable {
        /// How long a device that is not connected, paired or known stays in the tree after it was last
        /// seen (bluetoothd's `TemporaryTimeout`, 30 s by default).
        public var deviceTimeout: Duration
        /// How long a connection attempt to a peripheral that does not answer (out of range, not
        /// connectable) lasts before it fails.
        public var connectTimeout: Duration

        /// Whether a link's end is also signalled as `Device1.Disconnected(reason, message)`, which
        /// bluetoothd emits from release 5.83 on. Off by default, as in bluetoothd 5.66 (Debian 12),
        /// where a client learns of the end only from `Connected` becoming false.
        public var signalsDisconnectionReasons: Bool

        /// The order of the signals and replies: ``SignalOrder/inOrder`` (the default: each change signalled
        /// as it is made), or ``SignalOrder/shuffled(seed:)``, any order bluetoothd may send, drawn from a
        /// seed (see <doc:SignalOrdering>).
        public var signalOrder: SignalOrder

        /// bluetoothd's timing, or shorter for tests; `signalsDisconnectionReasons` for a newer bluetoothd;
        /// `signalOrder` to test a client against every order bluetoothd may send.
        ///
        /// - Parameters:
        ///   - deviceTimeout: How long an unconnected, unpaired, unknown device stays after it was last seen.
        ///   - connectTimeout: How long a connection attempt to a silent peripheral lasts before it fails.
        ///   - signalsDisconnectionReasons: Whether to send `Device1.Disconnected(reason, message)`.
        ///   - signalOrder: The order of signals and replies.
        public init(
            deviceTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
            signalsDisconnectionReasons: Bool = false, signalOrder: SignalOrder = .inOrder
        ) {
            self.deviceTimeout = deviceTimeout
            self.connectTimeout = connectTimeout
            self.signalsDisconnectionReasons = signalsDisconnectionReasons
            self.signalOrder = signalOrder
        }
    }

    /// The world the simulator starts with.
    public let world: SimulatedWorld
    /// The bus it serves on.
    public let bus: DBusBus
    /// Its timing.
    public let configuration: Configuration
    /// What it has sent and what that cost.
    public let statistics = SimulatorStatistics()

    /// Makes the GATT database of a peripheral.
    static let makeGATT: @Sendable ([SimulatedService]) throws(SimulatorError) -> any PeripheralGATT = {
        services throws(SimulatorError) in try GATTServer(services: services)
    }

    private struct Running: Sendable {
        let thread: EventLoopThread
        let core: SimulatorCore
    }

    private let lock = Lock()
    private nonisolated(unsafe) var running: Running?

    /// A simulator of `world` that will serve on `bus` once started.
    ///
    /// - Parameters:
    ///   - world: the world the simulator starts with.
    ///   - bus: the bus it serves on.
    ///   - configuration: its timing.
    public init(world: SimulatedWorld = SimulatedWorld(), bus: DBusBus, configuration: Configuration = Configuration())
    {
        self.world = world
        self.bus = bus
        self.configuration = configuration
    }

    /// Connects to the bus, exports bluetoothd's tree for the world, and takes the name `org.bluez`.
    /// Starting a running simulator does nothing.
    ///
    /// - Throws: ``SimulatorError/invalidWorld(_:)`` when the world is not valid (nothing is served then), and
    ///   ``SimulatorError/bus(_:)`` when the bus cannot be reached or `org.bluez` is owned by someone else.
    public func start() async throws(SimulatorError) {
        guard lock.withLock({ running == nil }) else { return }
        let thread: EventLoopThread
        let connection: DBusConnection
        do {
            thread = try EventLoopThread(name: "ripple-bluez-sim")
        } catch {
            throw .bus(.connectionFailed(name: "EventLoopThread", message: "\(error)"))
        }
        do {
            connection = try DBusConnection(bus: bus, loop: thread.loop)
        } catch {
            thread.stop()
            throw .bus(error)
        }
        let core = SimulatorCore(
            loop: thread.loop, connection: connection, configuration: configuration, statistics: statistics,
            makeGATT: Self.makeGATT)
        let world = self.world
        do {
            try await thread.loop.perform { () throws(SimulatorError) in
                core.outbox?.install()
                for adapter in world.adapters { try core.addAdapter(adapter) }
                for placement in world.peripherals {
                    try core.addPeripheral(placement.peripheral, adapter: placement.adapter)
                }
                try core.exportTree()
            }
            try await Self.takeName(on: connection)
        } catch {
            connection.close()
            thread.stop()
            throw error
        }
        lock.withLock { running = Running(thread: thread, core: core) }
    }

    /// Requests `org.bluez`, failing when someone else owns it.
    private static func takeName(on connection: DBusConnection) async throws(SimulatorError) {
        do {
            for try await reply in connection.requestName(BlueZInterface.service, flags: [.doNotQueue]).values {
                guard reply == .primaryOwner || reply == .alreadyOwner else {
                    throw SimulatorError.bus(
                        .remote(
                            name: "org.freedesktop.DBus.Error.AddressInUse",
                            message: "org.bluez is owned by another connection"))
                }
            }
        } catch let error as SimulatorError {
            throw error
        } catch let error as DBusError {
            throw .bus(error)
        } catch {
            throw .bus(.disconnected)
        }
    }

    /// Stops serving: every connection ends, sockets close, the name is released (when this returns, the
    /// bus no longer lists an owner of `org.bluez`) and the simulator's connection and thread end.
    /// Idempotent.
    public func stop() async {
        guard
            let running = lock.withLock({ () -> Running? in
                defer { running = nil }
                return running
            })
        else { return }
        await running.thread.loop.perform { running.core.unexportTree() }
        // A round trip, so that the bus has taken the name away before this returns (closing alone is
        // seen by the bus some time later).
        _ = try? await running.core.connection.releaseName(BlueZInterface.service).firstValue
        running.core.connection.close()
        running.thread.stop()
    }

    /// Whether the simulator serves now.
    public var isRunning: Bool { lock.withLock { running != nil } }

    /// Runs `body` on the simulator's loop with its core.
    func withCore<T: Sendable>(_ body: @escaping @Sendable (SimulatorCore) throws(SimulatorError) -> T)
        async throws(SimulatorError) -> T
    {
        guard let running = lock.withLock({ running }) else { throw .notRunning }
        return try await running.thread.loop.perform { () throws(SimulatorError) -> T in try body(running.core) }
    }

    /// Runs `body` on the simulator's loop with the device of `address`.
    func withDevice<T: Sendable>(
        _ address: BluetoothAddress, _ body: @escaping @Sendable (SimulatedDevice) throws(SimulatorError) -> T
    ) async throws(SimulatorError) -> T {
        try await withCore { core throws(SimulatorError) in
            guard let device = core.device(address) else { throw .unknownPeripheral(address) }
            return try body(device)
        }
    }
}
