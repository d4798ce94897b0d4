/// A Bluetooth device address (BD_ADDR): 48 bits, written as bluetoothd writes it, six bytes in upper-case
/// hex separated by colons, most significant first: `"C0:FF:EE:00:00:01"`.
///
/// ```swift
/// let sensor: BluetoothAddress = "c0:ff:ee:00:00:01"
/// sensor.description             // "C0:FF:EE:00:00:01"
/// sensor.bluezPathComponent      // "dev_C0_FF_EE_00_00_01"
/// let typed = try BluetoothAddress(userInput)   // throws for text that is not an address
/// ```
///
/// A string literal that is not an address stops the program with a message naming it (a programming
/// error); text that arrives at run time goes through the throwing ``init(_:)``.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The 48 bits, in the low bits of the integer; the first byte written is the most significant.
    public let rawValue: UInt64

    /// Creates the address whose 48 bits are the low bits of `rawValue`.
    /// - Parameter rawValue: The address as an integer; bits above the 48th are ignored.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Creates the address from its six bytes, most significant (first written) first.
    /// - Parameter bytes: Six bytes.
    /// - Returns: nil when `bytes` does not hold exactly six.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.init(rawValue: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// Parses an address written as six pairs of hex digits separated by colons, in either case
    /// (`"C0:FF:EE:00:00:01"`, `"c0:ff:ee:00:00:01"`); bluetoothd's object-path form with underscores
    /// (`"C0_FF_EE_00_00_01"`) is accepted too.
    /// - Parameter text: The text to parse.
    /// - Throws: ``ParseError`` naming the text when it is not an address in that form.
    public init(_ text: String) throws(ParseError) {
        // One pass over the UTF-8 bytes with a plain counter: no array, no `enumerated()` (in a debug build
        // under ThreadSanitizer, generic algorithms take a runtime lock shared by every thread on every
        // call, and every device path bluetoothd sends is parsed here).
        var value: UInt64 = 0
        var offset = 0
        var separator: UInt8 = 0
        for code in text.utf8 {
            guard offset < 17 else { throw ParseError(text: text) }
            if offset % 3 == 2 {
                if offset == 2 {
                    guard code == UInt8(ascii: ":") || code == UInt8(ascii: "_") else { throw ParseError(text: text) }
                    separator = code
                }
                guard code == separator else { throw ParseError(text: text) }
            } else {
                guard let digit = Hex.value(ofASCII: code) else { throw ParseError(text: text) }
                value = value << 4 | UInt64(digit)
            }
            offset += 1
        }
        guard offset == 17 else { throw ParseError(text: text) }
        self.init(rawValue: value)
    }

    /// Creates the address a string literal writes: `let sensor: BluetoothAddress = "C0:FF:EE:00:00:01"`.
    ///
    /// A literal that is not an address is a programming error: it stops the program with a message naming
    /// the literal. Text that arrives at run time goes through the throwing ``init(_:)``.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            fatalError("invalid BluetoothAddress literal: \(error)")
        }
    }

    /// The six bytes, most significant (first written) first.
    public var bytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(5 - $0))) }
    }

    /// The address as bluetoothd writes it: `"C0:FF:EE:00:00:01"`.
    public var description: String { Hex.string(bytes, separator: ":") }

    /// The last component of the object path bluetoothd gives the device: `"dev_C0_FF_EE_00_00_01"`.
    public var bluezPathComponent: String { "dev_" + Hex.string(bytes, separator: "_") }

    /// Orders addresses by their 48-bit value (the order of their text forms).
    /// - Parameters:
    ///   - lhs: An address.
    ///   - rhs: Another address.
    /// - Returns: Whether `lhs` comes before `rhs`.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Why a string is not a Bluetooth address.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The text that could not be parsed, as given.
        public var text: String

        /// Creates the error for `text`.
        /// - Parameter text: The text that is not an address.
        public init(text: String) {
            self.text = text
        }

        /// A sentence quoting the text and the form expected.
        public var description: String {
            "\"\(text)\" is not a Bluetooth address (six hex bytes separated by colons, XX:XX:XX:XX:XX:XX)"
        }
    }
}

extension BluetoothAddress: Codable {
    /// Decodes an address from its text form.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` naming the text when it is not an address, or the decoder's
    ///   error when the value is not a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the address as its text form, ``description``.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
