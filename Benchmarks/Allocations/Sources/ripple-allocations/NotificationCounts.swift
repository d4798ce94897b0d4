import AllocationCounter
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleLoop
import Synchronization

/// The allocations of RippleBlueZ's notification receive paths, per notification, on the central's loop
/// thread (where libdbus reads and dispatches, and where every listener's value is delivered): a simulated
/// peripheral in this process notifies as fast as the client takes its notifications, and a `sink` counts
/// them.
///
/// On the bus path (`StartNotify`, each notification a `PropertiesChanged` signal), libdbus's allocations
/// per message depend on how many messages each read of its socket brings, which the timing decides; they
/// are told apart from the rest (Ripple's, the Swift runtime's, libuv's), which the timing does not change.
struct NotificationRig {
    /// One measured path: a characteristic of the simulated peripheral and the transport asked for.
    struct Path: Sendable {
        let name: String
        let characteristic: BluetoothUUID
        let payloadSize: Int
        let transport: NotificationTransport
    }

    /// Per notification on the loop thread: every allocation, and libdbus's share of them.
    struct Count {
        var all: Double
        var libdbus: Double
        /// Everything but libdbus's own.
        var rest: Double { all - libdbus }
    }

    static let address: BluetoothAddress = "C0:FF:EE:00:00:21"
    static let service: BluetoothUUID = "52495054-0000-4000-8000-0000000000c0"
    static let paths = [
        Path(
            name: "bus 20 B", characteristic: "52495054-0000-4000-8000-0000000000c1", payloadSize: 20, transport: .bus),
        Path(
            name: "bus 244 B", characteristic: "52495054-0000-4000-8000-0000000000c2", payloadSize: 244, transport: .bus
        ),
        Path(
            name: "socket 20 B", characteristic: "52495054-0000-4000-8000-0000000000c3", payloadSize: 20,
            transport: .automatic),
    ]
    /// Notifications received before counting starts (the buffers and the bus's match rules settle), then
    /// the notifications counted.
    static let warmUp = 2_000
    static let counted = 20_000

    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let thread: EventLoopThread
    let central: Central
    let peripheral: Peripheral

    /// Starts a private bus, the simulator with one peripheral, and a central on a loop thread of its own,
    /// connected to the peripheral.
    static func start() async throws -> NotificationRig {
        let characteristics = paths.map { path in
            SimulatedCharacteristic(
                uuid: path.characteristic, flags: [.notify],
                notificationSource: NotificationSource(payload: .numbered(size: path.payloadSize)))
        }
        let peripheral = SimulatedPeripheral(
            address: address, name: "Allocations", isKnown: true,
            services: [SimulatedService(uuid: service, characteristics: characteristics)])
        let bus = try SimulatedBus()
        let simulator = BlueZSimulator(world: SimulatedWorld(peripherals: [.init(peripheral)]), bus: bus.bus)
        try await simulator.start()
        let thread = try EventLoopThread(name: "allocations-central")
        let central = try Central(bus: bus.bus, loop: thread.loop)
        try await central.waitUntilReady()
        let connected = try await central.connect(to: address).firstValue
        return NotificationRig(bus: bus, simulator: simulator, thread: thread, central: central, peripheral: connected)
    }

    /// Counts the allocations per notification of `path`.
    func measure(_ path: Path) async throws -> Count {
        let probe = Probe(warmUp: Self.warmUp, counted: Self.counted)
        let reference = CharacteristicReference(try BluetoothUUID(path.characteristic.description))
        let cancellable = peripheral.listen(to: reference, transport: path.transport)
            .sink(
                receiveCompletion: { completion in probe.fail("the stream ended: \(completion)") },
                receiveValue: { _ in probe.received() })
        let counts = try await probe.counts()
        cancellable.cancel()
        return Count(
            all: Double(counts.all) / Double(Self.counted), libdbus: Double(counts.libdbus) / Double(Self.counted))
    }

    func stop() async {
        central.close()
        await simulator.stop()
        thread.stop()
        bus.stop()
    }
}

/// What the `sink` of one measured path does with each notification, on the loop thread: it takes the
/// thread's allocation counts after the warm-up and again after the counted notifications.
private final class Probe: Sendable {
    struct State {
        var received = 0
        var start: AllocationCount?
        var result: Result<AllocationCount, NotificationCountError>?
        var waiter: CheckedContinuation<AllocationCount, any Error>?
    }

    let warmUp: Int
    let counted: Int
    let state = Mutex(State())

    init(warmUp: Int, counted: Int) {
        self.warmUp = warmUp
        self.counted = counted
    }

    /// One notification arrived (loop thread): counts are read after the warm-up's last and the counted ones'.
    func received() {
        let now = AllocationCount.now
        let finished = state.withLock { state -> (CheckedContinuation<AllocationCount, any Error>?, AllocationCount)? in
            state.received += 1
            if state.received == warmUp { state.start = now }
            guard state.received == warmUp + counted, let start = state.start else { return nil }
            state.result = .success(now - start)
            defer { state.waiter = nil }
            return (state.waiter, now - start)
        }
        if let (waiter, counts) = finished { waiter?.resume(returning: counts) }
    }

    /// The stream ended before the counting did.
    func fail(_ message: String) {
        let waiter = state.withLock { state -> CheckedContinuation<AllocationCount, any Error>? in
            guard state.result == nil else { return nil }
            state.result = .failure(NotificationCountError(message: message))
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: NotificationCountError(message: message))
    }

    /// Waits for the counts.
    func counts() async throws -> AllocationCount {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<AllocationCount, NotificationCountError>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

/// A notification path could not be measured.
struct NotificationCountError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
