import Ripple
import RippleDBus
import RippleLoop

/// The BLE central: drives any number of peripherals through bluetoothd over one D-Bus connection, on
/// that connection's `EventLoop` (RippleLoop).
///
/// ```swift
/// let central = try Central()                       // the system bus, the default adapter
/// central.startDiscovery(filter: .services([.heartRate]))
///     .first()
///     .connect(on: central)
///     .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
///     .sink { completion in … } receiveValue: { print($0.beatsPerMinute) }
///     .store(in: &cancellables)
/// ```
///
/// Every publisher delivers on the loop thread. Every operation checks ``state`` first, so that one
/// started while the adapter is off fails at once with ``BluetoothError/Kind/poweredOff``.
///
/// The adapter is the one named at creation, or else — deterministically — the lowest-numbered powered
/// adapter (`hci0` before `hci1`), or else the lowest-numbered one.
public final class Central: Sendable {
    let core: CentralCore

    /// A central on `bus` (the system bus by default, where bluetoothd is), using the adapter named
    /// `adapter` (`"hci1"`) or the default one, with a connection of its own on `loop`.
    ///
    /// - Parameters:
    ///   - bus: the bus bluetoothd is on.
    ///   - adapter: the adapter's name, or nil for the default one.
    ///   - loop: the loop the central delivers on.
    ///   - attributeTimeout: how long a GATT operation waits for its service, characteristic or descriptor
    ///     when bluetoothd has not exported it (yet) — while it resolves a database again after a
    ///     reconnection or a Service Changed — before failing with ``BluetoothError/Kind/attributeNotFound``.
    /// - Throws: ``BluetoothError/Kind/bluetoothUnavailable`` when the bus cannot be reached, and
    ///   ``BluetoothError/Kind/unauthorized`` when it refuses this process.
    public convenience init(
        bus: DBusBus = .system, adapter: String? = nil, loop: EventLoop = .shared,
        attributeTimeout: Duration = .seconds(5)
    ) throws(BluetoothError) {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(bus: bus, loop: loop)
        } catch {
            throw BluetoothError(error, during: "connecting to \(bus)")
        }
        self.init(connection: connection, adapter: adapter, ownsConnection: true, attributeTimeout: attributeTimeout)
    }

    /// A central on an existing connection (which it does not close), using the adapter named `adapter`
    /// or the default one.
    ///
    /// - Parameters:
    ///   - connection: the connection to bluetoothd's bus.
    ///   - adapter: the adapter's name, or nil for the default one.
    ///   - attributeTimeout: how long a GATT operation waits for an attribute bluetoothd has not exported
    ///     (yet): see ``init(bus:adapter:loop:attributeTimeout:)``.
    public convenience init(
        connection: DBusConnection, adapter: String? = nil, attributeTimeout: Duration = .seconds(5)
    ) {
        self.init(connection: connection, adapter: adapter, ownsConnection: false, attributeTimeout: attributeTimeout)
    }

    private init(connection: DBusConnection, adapter: String?, ownsConnection: Bool, attributeTimeout: Duration) {
        core = CentralCore(
            connection: connection, adapterName: adapter, ownsConnection: ownsConnection,
            attributeTimeout: attributeTimeout)
        core.central = self
        core.start()
    }

    deinit {
        core.stop()
    }

    /// Stops following bluetoothd and closes the central's own connection, and ends every stream of the
    /// central: discoveries, connection attempts, operations and notifications fail with
    /// ``BluetoothError/Kind/bluetoothUnavailable``; ``state``, ``isScanning``, ``connectedPeripherals``,
    /// ``connectingPeripherals`` and ``connectionEvents`` finish, after their last values (no peripheral left
    /// connected or connecting).
    ///
    /// Subscribers of a closed central are released: no cancellable is needed to end what it fed.
    public func close() {
        core.stop()
    }

    /// The D-Bus connection the central talks to bluetoothd on (for hand-over to another tool).
    public var connection: DBusConnection { core.connection }

    /// The event loop the central delivers on.
    public var loop: EventLoop { core.loop }

    /// The state now, then each change: a *state* stream (never fails; finishes when the central closes).
    ///
    /// A new subscriber gets the state now first; a slow one gets the latest state, never a stale one.
    /// When a change is delivered, what it ends has ended (discovery stopped, links and listeners ended
    /// with the state's error) and ``currentState`` says the same.
    public var state: AnyPublisher<CentralState, Never> {
        core.state.eraseToAnyPublisher()
    }

    /// The state now.
    public var currentState: CentralState { core.state.value }

    /// Every adapter bluetoothd has, `hci0` first.
    public var adapters: [BluetoothAdapter] { core.adapters }

    /// The adapter the central uses now, if there is one.
    public var adapter: BluetoothAdapter? { core.adapter }

    /// Waits until the state is ``CentralState/poweredOn`` and returns; throws the state's error when it is
    /// still something else after `patience`, or at once when the bus refuses this process.
    ///
    /// bluetoothd coming up (after a restart, or at boot together with the program) passes through
    /// ``CentralState/bluetoothUnavailable``, ``CentralState/noAdapter`` (its name is on the bus before the
    /// adapter) and ``CentralState/poweredOff`` (the adapter before bluetoothd powers it) within a moment:
    /// `patience` waits that out. ``CentralState/unauthorized`` does not pass by waiting and is thrown as
    /// soon as it is known; so is the end of the central (``close()``). Pass `.zero` to throw whatever the
    /// first answer from the bus is.
    ///
    /// - Parameter patience: how long a state other than powered on may last before it is thrown (from the
    ///   first answer from the bus; 3 seconds by default).
    /// - Throws: the state's error: ``BluetoothError/Kind/poweredOff``, ``BluetoothError/Kind/unauthorized``,
    ///   ``BluetoothError/Kind/bluetoothUnavailable`` or ``BluetoothError/Kind/noAdapter`` (``CentralState/error``).
    public func waitUntilReady(patience: Duration = .seconds(3)) async throws(BluetoothError) {
        let settled = await core.state.first { $0 != .unknown }.values.first { _ in true }
        var state = settled ?? .bluetoothUnavailable
        if state != .poweredOn, state != .unauthorized, settled != nil, patience > .zero {
            // A state that passes: wait for one that does not (or the central's end) within the patience.
            let waited = await core.state.first { $0 == .poweredOn || $0 == .unauthorized }
                .timeout(.nanoseconds(patience.clampedNanoseconds), scheduler: core.loop)
                .values.first { _ in true }
            state = waited ?? core.state.value
        }
        if let error = state.error { throw error }
    }
}
