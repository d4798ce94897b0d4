import ArgumentParser
import Foundation
import RippleBlueZ
import RippleSimulatorServing

/// `ripple-ble bench`: notification throughput, CPU cost, loss and latency against any peripheral.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure notification throughput from a peripheral: rate, CPU per notification, loss, latency.",
        discussion: """
            Connects, subscribes to the characteristic (with --also, on several peripherals at once) and \
            counts --count notifications (10,000 by default) or for --duration seconds. The CPU time is this \
            process's, from subscribing to the end. With --payload numbered or timestamped it checks sequence \
            numbers (loss, reordering), and with timestamped the latency from the sender's clock (same \
            machine only: the simulator's `timestamped` notification payload). --json prints the figures as \
            one JSON object; its transport is the path the notifications came by (socket when bluetoothd \
            acquired one, bus when --transport auto fell back to StartNotify), requested_transport the \
            --transport asked for. Exits 3 when notifications were lost or reordered.
            """)

    @OptionGroup var target: TargetOptions
    @OptionGroup var notifications: NotificationOptions

    @Argument(help: "The peripheral's address (C0:FF:EE:00:00:01).")
    var address: String

    @Argument(help: "The characteristic: a UUID, or SERVICE/CHARACTERISTIC.")
    var characteristic: String

    @Option(help: ArgumentHelp("Listen on this peripheral too (repeatable).", valueName: "address"))
    var also: [String] = []

    @Flag(help: "Print the figures as one JSON object on standard output.")
    var json = false

    @Flag(help: "No progress lines.")
    var quiet = false

    @OptionGroup var lifeline: LifelineOption

    func validate() throws {
        _ = try ArgumentParsing.address(address)
        _ = try ArgumentParsing.characteristic(characteristic)
        for other in also { _ = try ArgumentParsing.address(other) }
    }

    func run() async throws {
        lifeline.start()
        try await runReportingFailures {
            let addresses = try ([address] + also).map(ArgumentParsing.address)
            let reference = try ArgumentParsing.characteristic(characteristic)
            let count = notifications.count ?? (notifications.duration == nil ? 10_000 : nil)
            try await BluetoothSession.with(target) { session in
                var peripherals: [Peripheral] = []
                for address in addresses {
                    peripherals.append(try await session.connect(address, within: target.timeLimit))
                }
                if !quiet { Output.progress("measuring \(reference) on \(peripherals.count) peripheral(s)") }
                let run = NotificationRun(
                    peripherals: peripherals, characteristic: reference, transport: notifications.transport.transport,
                    layout: notifications.payload, count: count, limit: notifications.limit ?? .seconds(300),
                    onValue: nil, showsProgress: !quiet)
                let result = await run.run(on: session.central.loop)
                if case .failed(let error) = result.outcome { throw error }
                if json {
                    Output.line(Self.json(result, transport: notifications.transport, peripherals: peripherals.count))
                } else {
                    result.summary.forEach(Output.line)
                }
                for peripheral in peripherals { try? await peripheral.disconnectPeripheral() }
                if case .timeUp = result.outcome, let count, result.figures.received < count {
                    Output.error("only \(result.figures.received) of \(count) notifications arrived in time")
                    throw ExitStatus.timedOut
                }
                if result.sawLoss { throw ExitStatus.lossFound }
            }
        }
    }

    /// The figures as a JSON object (the benchmark suite reads it). `transport` is the path the
    /// notifications came by: `socket` when bluetoothd acquired one for every peripheral, `bus` when for
    /// none (`--transport bus`, or `auto` fell back to `StartNotify`), `mixed` otherwise;
    /// `requested_transport` is the `--transport` asked for.
    static func json(_ result: NotificationRun.Result, transport: TransportChoice, peripherals: Int) -> String {
        let latencies = result.figures.latencies
        var object: [String: Any] = [
            "client": "ripple", "transport": path(result.acquired), "requested_transport": transport.rawValue,
            "peripherals": peripherals,
            "received": result.figures.received, "bytes": result.figures.bytes, "lost": result.figures.lost,
            "reordered": result.figures.reordered, "dropped": result.dropped, "seconds": result.activeSeconds,
            "rate": result.rate, "cpu_ns": result.cpuNanoseconds, "cpu_ns_per_notification": result.cpuPerNotification,
        ]
        if let p50 = latencies.percentile(0.5), let p99 = latencies.percentile(0.99), let maximum = latencies.last {
            object["latency_p50_us"] = Double(p50) / 1000
            object["latency_p99_us"] = Double(p99) / 1000
            object["latency_max_us"] = Double(maximum) / 1000
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The path the notifications came by, from each peripheral's `NotifyAcquired` (unknown counts as not
    /// acquired: StartNotify).
    static func path(_ acquired: [Bool?]) -> String {
        let sockets = acquired.filter { $0 == true }.count
        if sockets == 0 { return "bus" }
        return sockets == acquired.count ? "socket" : "mixed"
    }
}
