// One notification stream, many subscribers: a connectable listener feeds a printer, a running average
// and a minimum/maximum from one bluetoothd session, started once every subscriber is in place.
//
//   swift run --package-path Tools ripple-example-shared-listener
//   swift run --package-path Tools ripple-example-shared-listener --real --count 30
import ArgumentParser
import Ripple
import RippleBlueZ
import RippleExampleOptions
import RippleExampleSupport

@main
struct SharedListener: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ripple-example-shared-listener",
        abstract: "Three subscribers share one heart-rate notification stream (connectableListen).")

    @OptionGroup var bluetooth: BluetoothOptions

    @OptionGroup var count: MeasurementCount

    func run() async throws {
        let bluetooth = self.bluetooth
        let count = self.count.value
        try await ExampleSession.run(bluetooth, simulating: [.heartRateMonitor(rate: 4)]) { central in
            print("Scanning for heart-rate monitors…")
            let found = try await central.startDiscovery(filter: .services([.heartRate]))
                .first(address: bluetooth.address).values.first { _ in true }
            guard let found else { return }
            let monitor = try await central.connectPeripheral(to: found.address)
            print("Connected to \(monitor.name ?? "?") (\(monitor.address))")

            let shared = monitor.connectableListen(to: .heartRateMeasurement)
            // Each subscriber subscribes to the connectable listener itself.
            let rates = {
                shared.tryMap { try HeartRateMeasurement(bluetoothBytes: $0).beatsPerMinute }.prefix(count)
            }
            let (ends, finished) = AsyncStream<String>.makeStream()
            var cancellables: [AnyCancellable] = []
            func report(_ name: String) -> (Subscribers.Completion<any Error>) -> Void {
                { completion in
                    if case .failure(let error) = completion {
                        finished.yield("\(name) failed: \(error)")
                    } else {
                        finished.yield("\(name) finished")
                    }
                }
            }
            rates().sink(receiveCompletion: report("printer")) { print("  printer: \($0) bpm") }
                .store(in: &cancellables)
            rates().scan((sum: 0, count: 0)) { ($0.sum + $1, $0.count + 1) }
                .sink(receiveCompletion: report("average")) {
                    print("  average: \($0.sum / $0.count) bpm over \($0.count)")
                }
                .store(in: &cancellables)
            rates().scan((low: Int.max, high: Int.min)) { (min($0.low, $1), max($0.high, $1)) }
                .sink(receiveCompletion: report("range")) { print("  range: \($0.low)–\($0.high) bpm") }
                .store(in: &cancellables)

            // Nothing flows until now: all three see the first measurement.
            let session = shared.connect()
            var ended = 0
            for await end in ends {
                print(end)
                ended += 1
                if ended == 3 { break }
            }
            session.cancel()
            try await monitor.disconnectPeripheral()
        }
    }
}
