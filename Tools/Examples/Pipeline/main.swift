// The example pipeline `Scripts/demo` runs until the BLE demo lands: a simulated heart-rate sensor's
// raw notifications, parsed, cleaned and summarised with Ripple operators, the way a BLE data logger
// would do it.
import Ripple

/// A heart-rate measurement as a BLE Heart Rate Measurement notification carries it (flags byte, then
/// the rate as UInt8 or little-endian UInt16 depending on bit 0 of the flags).
struct HeartRate: Equatable, CustomStringConvertible {
    var beatsPerMinute: Int
    var description: String { "\(beatsPerMinute) bpm" }
}

/// Why a notification could not be read.
enum ParseError: Error, CustomStringConvertible {
    case tooShort(Int)
    var description: String {
        switch self {
        case .tooShort(let count): "notification too short (\(count) bytes)"
        }
    }
}

/// Reads a Heart Rate Measurement value; never traps on short or odd input.
func parse(_ bytes: [UInt8]) throws(ParseError) -> HeartRate {
    guard let flags = bytes.first else { throw .tooShort(0) }
    if flags & 0x01 == 0 {
        guard bytes.count >= 2 else { throw .tooShort(bytes.count) }
        return HeartRate(beatsPerMinute: Int(bytes[1]))
    }
    guard bytes.count >= 3 else { throw .tooShort(bytes.count) }
    return HeartRate(beatsPerMinute: Int(bytes[1]) | Int(bytes[2]) << 8)
}

/// A deterministic stand-in for a sensor: a small linear congruential generator around 70 bpm.
struct SimulatedSensor {
    private var state: UInt32 = 2024
    mutating func next() -> [UInt8] {
        state = state &* 1_664_525 &+ 1_013_904_223
        let rate = 60 + Int(state >> 27)
        if state % 11 == 0 { return [0x00] }  // a truncated notification, as radios sometimes deliver
        if state % 2 == 0 { return [0x01, UInt8(rate & 0xFF), UInt8(rate >> 8)] }
        return [0x00, UInt8(rate)]
    }
}

let notifications = PassthroughSubject<[UInt8], Never>()
var cancellables = Set<AnyCancellable>()
var sensor = SimulatedSensor()

// One shared parse step, two consumers: a live printout and a running summary.
let rates =
    notifications
    .compactMap { bytes -> HeartRate? in
        do {
            return try parse(bytes)
        } catch {
            print("  skipped: \(error)")
            return nil
        }
    }
    .removeDuplicates()
    .share()

/// The running count and total of the readings seen so far.
struct Summary {
    var count = 0
    var total = 0
    var average: Double { count == 0 ? 0 : Double(total) / Double(count) }
}

rates
    .scan(Summary()) { summary, rate in
        Summary(count: summary.count + 1, total: summary.total + rate.beatsPerMinute)
    }
    .last()
    .sink { (summary: Summary) in
        print("average of \(summary.count) distinct readings: \(summary.average.formatted1) bpm")
    }
    .store(in: &cancellables)

rates
    .prefix(8)
    .collect()
    .sink { (first: [HeartRate]) in print("first eight distinct readings: \(first.map(\.beatsPerMinute))") }
    .store(in: &cancellables)

rates
    .sink { print("reading: \($0)") }
    .store(in: &cancellables)

print("Ripple example pipeline: 20 simulated heart-rate notifications")
for _ in 0..<20 { notifications.send(sensor.next()) }
notifications.send(completion: .finished)

extension Double {
    fileprivate var formatted1: String {
        let tenths = (self * 10).rounded()
        return "\(Int(tenths) / 10).\(abs(Int(tenths)) % 10)"
    }
}
