import ArgumentParser
import Foundation
import RippleBlueZSimulator
import RippleDBus
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

/// Serves a world as a process until SIGINT, SIGTERM or (when a lifeline watches it) the end of standard
/// input: a private bus (unless told another), the simulator, the control service, the address line first on
/// standard output, and the statistics at the end.
public struct Server {
    /// The world served.
    public let world: SimulatedWorld
    /// The bus to serve on instead of a private one.
    public let busAddress: String?
    /// Serve on the system bus instead of a private one.
    public let systemBus: Bool
    /// The simulator's configuration (timing, release, signal order).
    public let configuration: BlueZSimulator.Configuration

    /// A server of `world` on a private bus, the bus at `busAddress`, or the system bus.
    ///
    /// - Parameters:
    ///   - world: The world served.
    ///   - busAddress: The bus to serve on instead of a private one.
    ///   - systemBus: Whether to serve on the system bus.
    ///   - configuration: The simulator's configuration.
    public init(
        world: SimulatedWorld, busAddress: String?, systemBus: Bool,
        configuration: BlueZSimulator.Configuration = .init()
    ) {
        self.world = world
        self.busAddress = busAddress
        self.systemBus = systemBus
        self.configuration = configuration
    }

    /// Serves until ``Termination/wait()`` returns. Prints `DBUS_SYSTEM_BUS_ADDRESS=<address>` on standard output once
    /// it serves; throws `ExitCode(1)` after printing why when the bus or the simulator cannot start.
    public func run() async throws {
        var daemon: PrivateDBusDaemon?
        let bus: DBusBus
        let address: String
        if systemBus {
            bus = .system
            address =
                ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
                ?? "unix:path=/run/dbus/system_bus_socket"
        } else if let busAddress {
            bus = .address(busAddress)
            address = busAddress
        } else {
            do {
                let started = try PrivateDBusDaemon()
                daemon = started
                bus = started.bus
                address = started.address
            } catch {
                Output.error("cannot start a private bus: \(error)")
                throw ExitCode(1)
            }
        }
        defer { daemon?.stop() }

        let simulator = BlueZSimulator(world: world, bus: bus, configuration: configuration)
        let controlLoop = try EventLoopThread(name: "simulator-control")
        defer { controlLoop.stop() }
        let control = SimulatorControlService(simulator: simulator, bus: bus, loop: controlLoop.loop)
        do {
            try await simulator.start()
            try await control.start()
        } catch {
            Output.error(error.description)
            await control.stop()
            await simulator.stop()
            throw ExitCode(1)
        }

        // Caught before the first line: a client may send SIGTERM as soon as it has read it.
        let termination = Termination.Watch()
        Output.line("DBUS_SYSTEM_BUS_ADDRESS=\(address)")
        Output.error("serving org.bluez on \(address); scripting on \(SimulatorControlService.busName)")
        if configuration.signalOrder != .inOrder {
            Output.error("signals in the order \(configuration.signalOrder)")
        }
        WorldSummary.lines(world).forEach { Output.error("  " + $0) }

        let cause = await termination.first()
        Output.error("\(cause): stopping")
        await control.stop()
        await simulator.stop()
        StatisticsReport.lines(simulator.statistics.snapshot).forEach(Output.line)
    }
}
