import ArgumentParser
import RippleBlueZ

/// How values are shown: hexadecimal bytes, text, decimal bytes, or decoded by their characteristic's
/// standard format where Ripple knows it.
enum ValueFormat: String, ExpressibleByArgument, CaseIterable {
    case hex, text, decimal, auto

    /// `bytes` as this format asks; `auto` decodes the standard characteristics Ripple knows (heart rate,
    /// battery, temperature, …), then shows printable UTF-8 as text, and anything else as hex.
    func show(_ bytes: [UInt8], of characteristic: BluetoothUUID) -> String {
        switch self {
        case .hex: return Self.hex(bytes)
        case .decimal: return bytes.map(String.init).joined(separator: " ")
        case .text: return String(decoding: bytes, as: UTF8.self)
        case .auto:
            if let decoded = Self.decoded(bytes, of: characteristic) { return decoded }
            if let text = String(validating: bytes, as: UTF8.self), !text.isEmpty,
                text.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.value >= 0x20 && $0.value != 0x7F })
            {
                return "\"\(text)\""
            }
            return Self.hex(bytes)
        }
    }

    /// Space-separated hexadecimal bytes (`0a 1b`), or `(empty)`.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "(empty)" : Hex.string(bytes, separator: " ", uppercase: false)
    }

    /// Hexadecimal bytes without separators (`0a1b`; empty for no bytes).
    static func compactHex(_ bytes: [UInt8]) -> String {
        Hex.string(bytes, uppercase: false)
    }

    /// The value decoded by its characteristic's standard format, or nil when Ripple does not know it or
    /// the bytes are not such a value.
    static func decoded(_ bytes: [UInt8], of characteristic: BluetoothUUID) -> String? {
        func decode<T: Readable>(_ type: T.Type) -> String? {
            (try? T(bluetoothBytes: bytes)).map { String(describing: $0) }
        }
        switch characteristic {
        case .heartRateMeasurement: return decode(HeartRateMeasurement.self)
        case .bodySensorLocation: return decode(BodySensorLocation.self)
        case .batteryLevel: return decode(BatteryLevel.self)
        case .temperatureMeasurement, .intermediateTemperature: return decode(TemperatureMeasurement.self)
        case .pnpID: return decode(PnPID.self)
        default: return nil
        }
    }

    /// Bytes from the command line: hexadecimal (`0a1b`, `0a 1b`, `0a:1b`, `0x0a1b`), or UTF-8 text when
    /// `isText`. Throws a `ValidationError` for anything else.
    static func parse(_ text: String, isText: Bool) throws -> [UInt8] {
        if isText { return Array(text.utf8) }
        do {
            return try Hex.bytes(text)
        } catch {
            throw ValidationError(
                "\"\(text)\" is not hexadecimal bytes (like 0a1b or \"0a 1b\"); --text writes text")
        }
    }
}
