import ArgumentParser
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleSimulatorServing

/// A central for a command: on bluetoothd on the system bus, or on a simulator this process runs on a
/// private bus. ``close()`` takes down what it started.
final class BluetoothSession: Sendable {
    /// The central the command uses.
    let central: Central
    /// Whether the central talks to the built-in simulator.
    let isSimulated: Bool
    private let simulator: BlueZSimulator?
    private let bus: SimulatedBus?

    private init(central: Central, simulator: BlueZSimulator?, bus: SimulatedBus?) {
        self.central = central
        self.simulator = simulator
        self.bus = bus
        isSimulated = simulator != nil
    }

    /// Opens a session as `options` ask: the simulator with `--simulated`/`--world`; else bluetoothd on the
    /// system bus, falling back to the simulator (with a note) when no bluetoothd answers there, unless
    /// `--real`. With `requireReady`, throws the central's state error (no adapter, powered off, …)
    /// unless the adapter is powered on.
    static func open(_ options: TargetOptions, requireReady: Bool = true) async throws -> BluetoothSession {
        Output.commandName = "ripple-ble"
        if options.simulated || options.world != nil {
            return try await simulated(options)
        }
        let central: Central
        do {
            central = try Central(bus: .system, adapter: options.adapter)
        } catch {
            guard error.kind == .bluetoothUnavailable, !options.real else { throw error }
            Output.error("the system bus cannot be reached: using the built-in simulator (--real insists on BlueZ)")
            return try await simulated(options)
        }
        let state = await settledState(of: central)
        if state == .bluetoothUnavailable || state == .unknown, !options.real {
            central.close()
            Output.error("no bluetoothd on the system bus: using the built-in simulator (--real insists on BlueZ)")
            return try await simulated(options)
        }
        if requireReady, let error = state.error {
            central.close()
            throw error
        }
        return BluetoothSession(central: central, simulator: nil, bus: nil)
    }

    /// Starts the simulator on a private bus, serving `--world` or the demo world.
    private static func simulated(_ options: TargetOptions) async throws -> BluetoothSession {
        let world: SimulatedWorld
        let signalOrder: BlueZSimulator.SignalOrder?
        do {
            (world, signalOrder) = try WorldFileLoader.served(options.world)
        } catch {
            throw ValidationError(error.description)
        }
        let bus = try SimulatedBus()
        let simulator = BlueZSimulator(
            world: world, bus: bus.bus,
            configuration: BlueZSimulator.Configuration(signalOrder: signalOrder ?? .inOrder))
        do {
            try await simulator.start()
            let central = try Central(bus: bus.bus, adapter: options.adapter)
            let session = BluetoothSession(central: central, simulator: simulator, bus: bus)
            if let error = await settledState(of: central).error {
                await session.close()
                throw error
            }
            return session
        } catch {
            await simulator.stop()
            bus.stop()
            throw error
        }
    }

    /// The central's first settled state (anything but unknown), or unknown when none came within 5 s.
    private static func settledState(of central: Central) async -> CentralState {
        let settled = central.state.first { $0 != .unknown }
            .timeout(.seconds(5), scheduler: central.loop)
        for await state in settled.values { return state }
        return .unknown
    }

    /// Closes the central and stops the simulator and its bus, if this session started them.
    func close() async {
        central.close()
        await simulator?.stop()
        bus?.stop()
    }

    /// Runs `body` with a session opened as `options` ask, and closes it however `body` ends.
    static func with(
        _ options: TargetOptions, requireReady: Bool = true, _ body: (BluetoothSession) async throws -> Void
    ) async throws {
        let session = try await open(options, requireReady: requireReady)
        do {
            try await body(session)
        } catch {
            await session.close()
            throw error
        }
        await session.close()
    }
}
