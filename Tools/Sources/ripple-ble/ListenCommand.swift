import ArgumentParser
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble listen`: a characteristic's notifications as they arrive, with rate and loss statistics.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Print a characteristic's notifications as they arrive; rate and loss on standard error.",
        discussion: "Runs until --count, --duration, or Ctrl-C, then prints the statistics.")

    @OptionGroup var target: TargetOptions
    @OptionGroup var notifications: NotificationOptions

    @Argument(help: "The peripheral's address (C0:FF:EE:00:00:01).")
    var address: String

    @Argument(help: "The characteristic: a UUID (2a37, 0x2A37, 128-bit), or SERVICE/CHARACTERISTIC.")
    var characteristic: String

    @Option(help: "How values are shown: hex, text, decimal, or auto (decoded where the format is known).")
    var format: ValueFormat = .auto

    @Flag(help: "Print each value with the seconds since listening started.")
    var timestamps = false

    @OptionGroup var lifeline: LifelineOption

    func validate() throws {
        _ = try ArgumentParsing.address(address)
        _ = try ArgumentParsing.characteristic(characteristic)
    }

    func run() async throws {
        lifeline.start()
        try await runReportingFailures {
            let address = try ArgumentParsing.address(address)
            let reference = try ArgumentParsing.characteristic(characteristic)
            try await BluetoothSession.with(target) { session in
                let peripheral = try await session.connect(address, within: target.timeLimit)
                Output.progress("listening to \(reference) of \(peripheral) (Ctrl-C stops)")
                let format = self.format
                let start = NotificationMeter.monotonicNanoseconds()
                let timestamps = self.timestamps
                let run = NotificationRun(
                    peripherals: [peripheral], characteristic: reference, transport: notifications.transport.transport,
                    layout: notifications.payload, count: notifications.count, limit: notifications.limit,
                    onValue: { _, value in
                        let shown = format.show(value, of: reference.uuid)
                        if timestamps {
                            let seconds = Double(NotificationMeter.monotonicNanoseconds() - start) / 1e9
                            Output.line(formatted(seconds, 3) + " " + shown)
                        } else {
                            Output.line(shown)
                        }
                    },
                    showsProgress: true)
                let result = await run.run(on: session.central.loop)
                result.summary.forEach(Output.progress)
                if case .failed(let error) = result.outcome { throw error }
                try? await peripheral.disconnectPeripheral()
                if result.sawLoss { throw ExitStatus.lossFound }
            }
        }
    }
}
