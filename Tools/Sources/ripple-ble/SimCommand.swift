import ArgumentParser
import RippleBlueZSimulator
import RippleSimulatorServing

/// `ripple-ble sim`: serves a simulated world (a simulated bluetoothd on a private bus) until interrupted.
struct SimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sim",
        abstract: "Serve a simulated bluetoothd with the peripherals of a world file, until Ctrl-C.",
        discussion: """
            Starts a private dbus-daemon, serves org.bluez on it with the world of --world (the demo world \
            without it), and prints DBUS_SYSTEM_BUS_ADDRESS=<address> first: run another ripple-ble (or any \
            BlueZ client) with that variable set and it talks to the simulator as if it were bluetoothd. \
            Scripting: org.ripple.BlueZSimulator on the same bus (see ripple-bluez-sim --help). Runs until \
            SIGINT or SIGTERM (or, with --exit-when-stdin-closes, the end of standard input).
            """)

    @Option(help: ArgumentHelp("The world file (.json, .yaml or .yml).", valueName: "file"))
    var world: String?

    @Option(
        name: .customLong("bus-address"),
        help: ArgumentHelp("Serve on this bus instead of a private one.", valueName: "address"))
    var busAddress: String?

    @OptionGroup var lifeline: LifelineOption

    func run() async throws {
        Output.commandName = "ripple-ble"
        lifeline.start()
        let world: SimulatedWorld
        let signalOrder: BlueZSimulator.SignalOrder?
        do {
            (world, signalOrder) = try WorldFileLoader.served(self.world)
        } catch {
            Output.error("\(error)")
            throw ExitCode.validationFailure
        }
        try await Server(
            world: world, busAddress: busAddress, systemBus: false,
            configuration: BlueZSimulator.Configuration(signalOrder: signalOrder ?? .inOrder)
        ).run()
    }
}
