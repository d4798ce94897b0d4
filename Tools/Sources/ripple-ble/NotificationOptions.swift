import ArgumentParser
import RippleBlueZ

/// The options `listen` and `bench` share: the path, when to stop, and what the payload carries.
struct NotificationOptions: ParsableArguments {
    @Option(help: "Stop after this many notifications (in all).")
    var count: Int?

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @Option(
        help:
            "auto: an AcquireNotify socket where bluetoothd offers one, else StartNotify; bus: StartNotify (PropertiesChanged through the bus)."
    )
    var transport: TransportChoice = .auto

    @Option(
        help:
            "What the payload carries, to check for loss and latency: raw, numbered (UInt32 sequence first), timestamped (and a CLOCK_MONOTONIC send time)."
    )
    var payload: PayloadLayout = .raw

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count must be positive") }
        if let duration, !(duration > 0) || !duration.isFinite {
            throw ValidationError("--duration must be a positive number of seconds")
        }
    }

    /// The duration as a `Duration`.
    var limit: Duration? { duration.map { .milliseconds(Int64($0 * 1000)) } }
}

/// `--transport`'s values.
enum TransportChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, bus

    /// The central's transport for this choice.
    var transport: NotificationTransport { self == .auto ? .automatic : .bus }
}

extension NotificationRun.Result {
    /// Seconds from the first notification to the last (the rate's time base).
    var activeSeconds: Double {
        guard let first = figures.firstArrival, figures.lastArrival > first else { return 0 }
        return Double(figures.lastArrival - first) / 1e9
    }

    /// Notifications per second between the first and the last.
    var rate: Double {
        activeSeconds > 0 ? Double(figures.received - 1) / activeSeconds : 0
    }

    /// CPU nanoseconds per notification received.
    var cpuPerNotification: Double {
        figures.received > 0 ? Double(cpuNanoseconds) / Double(figures.received) : 0
    }

    /// Whether the run saw loss or reordering (sequence numbers, or the buffers' drops).
    var sawLoss: Bool { figures.lost > 0 || figures.reordered > 0 || dropped > 0 }

    /// The summary lines: counts, rate, CPU, loss, latency.
    var summary: [String] {
        var lines = [
            "received \(figures.received) notifications (\(figures.bytes) bytes) in \(formatted(activeSeconds, 3)) s: "
                + "\(Int(rate)) per second",
            "CPU \(formatted(Double(cpuNanoseconds) / 1e6, 1)) ms: \(formatted(cpuPerNotification / 1000, 2)) µs per notification",
            "lost \(figures.lost), reordered \(figures.reordered), dropped by the buffer \(dropped)",
        ]
        if let p50 = figures.latencies.percentile(0.5), let p99 = figures.latencies.percentile(0.99),
            let maximum = figures.latencies.last
        {
            lines.append(
                "latency p50 \(formatted(Double(p50) / 1000, 1)) µs, p99 \(formatted(Double(p99) / 1000, 1)) µs, "
                    + "max \(formatted(Double(maximum) / 1000, 1)) µs")
        }
        return lines
    }
}

/// `value` with `decimals` decimals.
func formatted(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (value * scale).rounded()
    guard scaled.isFinite, abs(scaled) < 1e15 else { return "\(value)" }
    let whole = Int(scaled)
    let divisor = Int(scale)
    let fraction = String(abs(whole % divisor))
    let integer = (whole < 0 && whole / divisor == 0 ? "-" : "") + String(whole / divisor)
    return decimals == 0 ? integer : integer + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
