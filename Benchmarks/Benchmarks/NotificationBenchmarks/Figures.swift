import Foundation

/// What a client reports: the JSON object `ripple-ble bench --json` and the peers print.
struct Figures {
    var received: Int
    var lost: Int
    var reordered: Int
    var dropped: Int
    var rate: Double
    var cpuNanosecondsPerNotification: Double
    var latencyP50: Double?
    var latencyP99: Double?
    var latencyMax: Double?
    /// The JSON object as the client printed it.
    var object: [String: Any]

    /// Reads the last JSON line of a client's output.
    init(output: String) throws {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw BenchmarkFailure("the client printed no figures: \(output.suffix(500))") }
        func number(_ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }
        received = Int(number("received") ?? 0)
        lost = Int(number("lost") ?? 0)
        reordered = Int(number("reordered") ?? 0)
        dropped = Int(number("dropped") ?? 0)
        rate = number("rate") ?? 0
        cpuNanosecondsPerNotification = number("cpu_ns_per_notification") ?? 0
        latencyP50 = number("latency_p50_us")
        latencyP99 = number("latency_p99_us")
        latencyMax = number("latency_max_us")
        self.object = object
    }
}

/// Why a run could not be measured.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
