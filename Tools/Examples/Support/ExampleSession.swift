import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus

/// Where an example runs: a `Central` on the built-in simulator (a private bus and a simulated
/// bluetoothd serving the peripherals the example needs) or on bluetoothd on the system bus.
///
/// ``run(_:simulating:_:)`` prepares it, runs the example's body within the time limit, prints a
/// failure to standard error and throws ``ExampleFailure`` (the example's `main` then exits with status
/// 1), and always takes the simulator down.
public enum ExampleSession {
    /// Runs `body` with a ready central: on the simulator serving `peripherals`, or on real bluetoothd
    /// when `settings.real`.
    ///
    /// - Parameters:
    ///   - settings: where the example runs and for how long.
    ///   - peripherals: the peripherals the built-in simulator serves.
    ///   - body: the example, given a ready central.
    /// - Throws: ``ExampleFailure`` after printing why when Bluetooth fails, the body throws or time runs
    ///   out.
    public static func run(
        _ settings: ExampleSettings, simulating peripherals: [SimulatedPeripheral],
        _ body: @escaping @Sendable (Central) async throws -> Void
    ) async throws(ExampleFailure) {
        var simulation = Simulation()
        do {
            let central: Central
            if settings.real {
                central = try Central(bus: .system, adapter: settings.adapter)
            } else {
                let bus = try await simulation.start(
                    SimulatedWorld(peripherals: peripherals.map { SimulatedWorld.Placement($0) }),
                    order: settings.signalOrder)
                central = try Central(bus: bus, adapter: settings.adapter)
            }
            defer { central.close() }
            try await central.waitUntilReady()
            try await withTimeLimit(.seconds(settings.timeout)) { try await body(central) }
        } catch {
            await simulation.stop()
            throw failure(error)
        }
        await simulation.stop()
    }

    /// Prints what went wrong, with a hint for the usual causes on a real machine.
    ///
    /// - Parameter error: what went wrong.
    /// - Returns: the failure to throw.
    private static func failure(_ error: any Error) -> ExampleFailure {
        var message = "error: \(error)"
        if let bluetooth = error as? BluetoothError {
            switch bluetooth.kind {
            case .bluetoothUnavailable: message += "\nhint: is bluetoothd running? (systemctl status bluetooth)"
            case .unauthorized:
                message += "\nhint: the bus refuses this user; run as a member of the bluetooth group or as root"
            case .poweredOff:
                message += "\nhint: power the adapter on (bluetoothctl power on; rfkill unblock bluetooth)"
            case .noAdapter: message += "\nhint: no Bluetooth adapter is present (hciconfig -a, or plug one in)"
            default: break
            }
        }
        var standardError = StandardError()
        print(message, to: &standardError)
        return ExampleFailure(message: message)
    }
}

/// Why an example stopped before it finished.
public struct ExampleTimeout: Error, CustomStringConvertible {
    /// How long it ran.
    public let limit: Duration
    /// "gave up after 30 seconds".
    public var description: String { "gave up after \(limit.components.seconds) seconds (--timeout)" }
}

/// Runs `body`, cancelling it and throwing ``ExampleTimeout`` when it runs longer than `limit`.
func withTimeLimit(_ limit: Duration, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw ExampleTimeout(limit: limit)
        }
        defer { group.cancelAll() }
        try await group.next()
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = writeToStandardError(buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

extension ExampleSession {
    /// Runs `body` (a peripheral on bluetoothd on the system bus), printing a failure to standard error.
    ///
    /// - Parameter body: the example.
    /// - Throws: ``ExampleFailure`` after printing why when the body throws.
    public static func serve(_ body: @escaping @Sendable () async throws -> Void) async throws(ExampleFailure) {
        do {
            try await body()
        } catch {
            throw failure(error)
        }
    }

    /// Runs `body` with the bus of a built-in simulator of two adapters, hci0 and hci1 (a peripheral on
    /// one, a central on the other), within `timeout` seconds; always takes the simulator down.
    ///
    /// - Parameters:
    ///   - timeout: how many seconds the example may run.
    ///   - body: the example, given the simulator's bus.
    /// - Throws: ``ExampleFailure`` after printing why when the simulator fails, the body throws or time
    ///   runs out.
    public static func serveOnSimulator(
        timeout: Int, _ body: @escaping @Sendable (DBusBus) async throws -> Void
    ) async throws(ExampleFailure) {
        var simulation = Simulation()
        do {
            let bus = try await simulation.start(
                SimulatedWorld(adapters: [
                    SimulatedAdapter(name: "hci0", address: "00:1A:7D:DA:71:13"),
                    SimulatedAdapter(name: "hci1", address: "00:1A:7D:DA:71:14"),
                ]))
            try await withTimeLimit(.seconds(timeout)) { try await body(bus) }
        } catch {
            await simulation.stop()
            throw failure(error)
        }
        await simulation.stop()
    }
}

/// The built-in simulator of an example: a private bus and a simulated bluetoothd on it.
private struct Simulation {
    private var bus: SimulatedBus?
    private var simulator: BlueZSimulator?

    /// Starts a simulator of `world` on a private bus, sending in `order` (says so), and returns the bus.
    mutating func start(_ world: SimulatedWorld, order: BlueZSimulator.SignalOrder = .inOrder) async throws
        -> DBusBus
    {
        let privateBus = try SimulatedBus()
        bus = privateBus
        let simulated = BlueZSimulator(
            world: world, bus: privateBus.bus, configuration: BlueZSimulator.Configuration(signalOrder: order))
        simulator = simulated
        try await simulated.start()
        let sending = order == .inOrder ? "" : ", sending in the order \(order)"
        print("On the built-in simulator (bluetoothd simulated on a private bus\(sending); --real for BlueZ).")
        return privateBus.bus
    }

    /// Stops what ``start(_:)`` started (nothing when it was not called).
    func stop() async {
        await simulator?.stop()
        bus?.stop()
    }
}
