#if canImport(Glibc)
import Glibc
#endif

/// One measured figure pair and how much it may vary between runs.
struct Measurement {
    /// How a measurement's limit is recorded.
    enum Variation {
        /// Deterministic: the limit is the figure itself.
        case none
        /// Varies with timing: the limit is the figure with this share added (0.25 for 25 %).
        case relative(Double)
    }

    let name: String
    let perElement: Double
    /// nil where there is no fixed part to check (notifications).
    let perPipeline: Double?
    let variation: Variation
}

/// The recorded limits: a text file of lines "per element, per pipeline (or -), name", with `#` comments.
struct Limits {
    struct Limit {
        var perElement: Double
        var perPipeline: Double?
    }

    var byName: [String: Limit] = [:]

    /// Reads `path`; throws when a line does not parse.
    init(contentsOf path: String) throws {
        for (number, line) in try readText(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count == 3, let perElement = Double(fields[0]) else {
                throw LimitsError(message: "\(path):\(number + 1): expected 'per-element per-pipeline name'")
            }
            let perPipeline = fields[1] == "-" ? nil : Double(fields[1])
            if fields[1] != "-" && perPipeline == nil {
                throw LimitsError(message: "\(path):\(number + 1): '\(fields[1])' is not a number or '-'")
            }
            let name = String(fields[2].drop { $0 == " " })
            byName[name] = Limit(perElement: perElement, perPipeline: perPipeline)
        }
    }

    /// The file's text for `measurements`, each figure with its allowed variation.
    static func text(recording measurements: [Measurement]) -> String {
        var lines = [
            "# Ripple's allocation limits, checked by Scripts/check-allocations (Benchmarks/Allocations, release build).",
            "# Each line: heap allocations per element, per pipeline (\"-\": not checked), and what is measured.",
            "# The benchmark pipelines (Benchmarks/Shared/Pipelines.swift) count on the thread that runs them; the",
            "# notification paths count on the central's loop thread, per notification, libdbus's allocations apart",
            "# from the rest (theirs vary with how many messages each read of the socket brings: recorded with a margin).",
            "# A measured figure above its limit fails the check. Record new figures with Scripts/check-allocations --record",
            "# after a change that lowers them (or, deliberately, raises them: say why in the commit).",
        ]
        for measurement in measurements {
            let perElement = format(limit(for: measurement.perElement, measurement.variation))
            let perPipeline = measurement.perPipeline.map { format(limit(for: $0, measurement.variation)) } ?? "-"
            lines.append("\(pad(perElement, 9)) \(pad(perPipeline, 9)) \(measurement.name)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The limit recorded for a figure `measured` that varies by `variation`: rounded up to three decimals.
    static func limit(for measured: Double, _ variation: Measurement.Variation) -> Double {
        var value = measured
        if case .relative(let share) = variation { value *= 1 + share }
        return max((value * 1000 - 1e-6).rounded(.up), 0) / 1000
    }
}

/// The limits file could not be read.
struct LimitsError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// `value` with three decimals.
func format(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let sign = thousandths < 0 ? "-" : ""
    let magnitude = abs(thousandths)
    let fraction = String(magnitude % 1000)
    return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}

/// `text` padded with spaces to `width`.
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// The contents of the file at `path`.
func readText(_ path: String) throws -> String {
    guard let file = fopen(path, "r") else { throw LimitsError(message: "cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let read = fread(&buffer, 1, buffer.count, file)
        if read <= 0 { break }
        bytes.append(contentsOf: buffer[..<read])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Writes `text` to the file at `path`.
func writeText(_ text: String, to path: String) throws {
    guard let file = fopen(path, "w") else { throw LimitsError(message: "cannot write \(path)") }
    defer { fclose(file) }
    let bytes = Array(text.utf8)
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw LimitsError(message: "cannot write \(path)") }
}
