import ArgumentParser
import Foundation
import RippleBlueZSimulator
import RippleSimulatorServing

/// `ripple-bluez-sim`: a simulated bluetoothd on a private D-Bus bus, serving a world file.
@main
struct RippleBlueZSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-bluez-sim",
        abstract: "A simulated bluetoothd (org.bluez) on a private D-Bus bus, serving a world of BLE peripherals.",
        discussion: """
            Starts a private dbus-daemon (unless --bus-address or --system-bus is given), takes org.bluez on it \
            and serves the world of --world (JSON or YAML; without it, a demo world: a powered hci0, a \
            heart-rate monitor with battery and device information, and an LED/button device). It also takes \
            org.ripple.BlueZSimulator, whose object /org/ripple/BlueZSimulator (interface \
            org.ripple.BlueZSimulator1) scripts the world: Disconnect, SetInRange, SetPowered, Notify, \
            InjectFault, ClearFaults, Restart, GetStatistics.

            The first line on standard output is DBUS_SYSTEM_BUS_ADDRESS=<address>, printed once the simulator \
            serves: point a BlueZ client at the simulator with that variable. It runs until SIGINT or SIGTERM \
            (or, with --exit-when-stdin-closes, the end of standard input), then prints its statistics and \
            stops the bus it started.

            A test harness or script that starts it should give it --exit-when-stdin-closes and a pipe on \
            standard input whose other end only the harness holds: however the harness ends, even by \
            SIGKILL, the simulator and its bus end with it.
            """)

    @Option(name: .long, help: ArgumentHelp("The world file (.json, .yaml or .yml).", valueName: "file"))
    var world: String?

    @Option(
        name: .customLong("bus-address"),
        help: ArgumentHelp("Serve on the bus at this D-Bus address instead of a private bus.", valueName: "address"))
    var busAddress: String?

    @Flag(name: .customLong("system-bus"), help: "Serve on the system bus (it must let this process own org.bluez).")
    var systemBus = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The order of signals and replies: in-order (the default), or shuffled:SEED for any order bluetoothd "
                + "may send, drawn from SEED (overrides the world file's signalOrder).",
            valueName: "order"))
    var order: String?

    @Flag(name: .long, help: "Check the world file, print what it holds, and exit.")
    var check = false

    @OptionGroup var lifeline: LifelineOption

    func validate() throws {
        if busAddress != nil && systemBus {
            throw ValidationError("--bus-address and --system-bus cannot be used together.")
        }
        if let order, BlueZSimulator.SignalOrder(order) == nil {
            throw ValidationError("--order \(order) is not an order: use in-order or shuffled:SEED (a 64-bit seed).")
        }
    }

    func run() async throws {
        Output.commandName = "ripple-bluez-sim"
        let world: SimulatedWorld
        var signalOrder = order.flatMap(BlueZSimulator.SignalOrder.init)
        do {
            let (served, named) = try WorldFileLoader.served(self.world)
            world = served
            signalOrder = signalOrder ?? named
        } catch {
            Output.error(error.description)
            throw ExitCode(2)
        }
        if check {
            Output.line(self.world.map { "\($0): valid" } ?? "the demo world: valid")
            WorldSummary.lines(world).forEach(Output.line)
            if let signalOrder { Output.line("signal order: \(signalOrder)") }
            return
        }
        lifeline.start()
        try await Server(
            world: world, busAddress: busAddress, systemBus: systemBus,
            configuration: BlueZSimulator.Configuration(signalOrder: signalOrder ?? .inOrder)
        ).run()
    }
}
