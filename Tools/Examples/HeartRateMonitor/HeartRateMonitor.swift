// A heart-rate monitor: scan for the Heart Rate service, connect to the first monitor found, and print
// its measurements — the pipeline users bring from iOS, on Linux.
//
//   swift run --package-path Tools ripple-example-heart-rate         # on the built-in simulator
//   swift run --package-path Tools ripple-example-heart-rate --real  # on bluetoothd, with a real monitor nearby
import ArgumentParser
import Ripple
import RippleBlueZ
import RippleExampleOptions
import RippleExampleSupport

@main
struct HeartRateMonitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-example-heart-rate",
        abstract: "Prints a heart-rate monitor's measurements (on the built-in simulator unless --real).")

    @OptionGroup var bluetooth: BluetoothOptions

    @OptionGroup var count: MeasurementCount

    func run() async throws {
        let bluetooth = self.bluetooth
        let count = self.count.value
        try await ExampleSession.run(bluetooth, simulating: [.heartRateMonitor(rate: 4)]) { central in
            print("Scanning for heart-rate monitors…")
            let connected = ConnectedPeripheral()
            let measurements = central.startDiscovery(filter: .services([.heartRate]))
                .first(address: bluetooth.address)
                .connect(on: central)
                .handleEvents(receiveOutput: { connected.keep($0) })
                .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
                .prefix(count)
            for try await measurement in measurements.values {
                print(measurement)
            }
            try await connected.disconnectPeripheral()
        }
    }
}
