#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import RippleBlueZSimulator
import RippleDBus
import RippleLoop

/// Serves a world until SIGINT or SIGTERM: the bus, the simulator, the control service, the address line,
/// and the statistics at the end.
struct Server {
    let world: SimulatedWorld
    let busAddress: String?
    let systemBus: Bool

    func run() async throws {
        var daemon: PrivateDBusDaemon?
        let bus: DBusBus
        let address: String
        if systemBus {
            bus = .system
            address = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
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

        let simulator = BlueZSimulator(world: world, bus: bus)
        let controlLoop = try EventLoopThread(name: "ripple-bluez-sim-control")
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

        Output.line("DBUS_SYSTEM_BUS_ADDRESS=\(address)")
        Output.error("serving org.bluez on \(address); scripting on \(SimulatorControlService.busName)")
        WorldSummary.lines(world).forEach { Output.error("  " + $0) }

        let signal = await TerminationSignal.wait()
        Output.error("signal \(signal): stopping")
        await control.stop()
        await simulator.stop()
        StatisticsReport.lines(simulator.statistics.snapshot).forEach(Output.line)
    }
}
