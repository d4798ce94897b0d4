/// Hexadecimal digits and byte strings, read and written without Foundation: the one place UUIDs,
/// addresses, ATT error codes and byte values are turned into hex and back.
public enum Hex: Sendable {
    /// Writes the low `count` hex digits of `value`, most significant first, zero-padded.
    /// - Parameters:
    ///   - value: The number to write.
    ///   - count: How many digits to write; higher digits of `value` are left out.
    ///   - uppercase: Whether the letters are `A`–`F` rather than `a`–`f`.
    /// - Returns: Exactly `count` hex digits.
    public static func digits(of value: UInt64, count: Int, uppercase: Bool) -> String {
        var result = ""
        result.reserveCapacity(max(count, 0))
        for position in stride(from: count - 1, through: 0, by: -1) {
            let nibble = position < 16 ? UInt8(truncatingIfNeeded: value >> (4 * UInt64(position))) & 0xF : 0
            result.append(Character(Unicode.Scalar(character(of: nibble, uppercase: uppercase))))
        }
        return result
    }

    /// Writes one byte as two hex digits: `0x0E` → `"0E"`.
    /// - Parameters:
    ///   - byte: The byte to write.
    ///   - uppercase: Whether the letters are upper case (the default).
    /// - Returns: Two hex digits.
    public static func digits(of byte: UInt8, uppercase: Bool = true) -> String {
        digits(of: UInt64(byte), count: 2, uppercase: uppercase)
    }

    /// Writes bytes as hex, two digits each, in order, with `separator` between them:
    /// `[0x06, 0x48]` → `"0648"`, or `"06 48"` with a space.
    /// - Parameters:
    ///   - bytes: The bytes to write.
    ///   - separator: What goes between two bytes (nothing by default).
    ///   - uppercase: Whether the letters are upper case (the default).
    /// - Returns: The hex string; empty for no bytes.
    public static func string<Bytes: Sequence<UInt8>>(
        _ bytes: Bytes, separator: String = "", uppercase: Bool = true
    ) -> String {
        var result = ""
        for (index, byte) in bytes.enumerated() {
            if index > 0 { result += separator }
            result += digits(of: byte, uppercase: uppercase)
        }
        return result
    }

    /// Reads an ASCII hex digit (`0-9`, `a-f`, `A-F`).
    /// - Parameter character: The character to read.
    /// - Returns: Its value, 0 to 15, or nil for any other character.
    public static func value(of character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        return value(ofASCII: ascii)
    }

    /// Reads a byte string written as hex: pairs of digits, optionally after `0x`, optionally separated by
    /// spaces, colons, hyphens or underscores between bytes (`"0648"`, `"0x0648"`, `"06 48"`, `"06:48"`).
    /// - Parameter text: The hex text.
    /// - Returns: The bytes, in order.
    /// - Throws: ``HexParseError`` naming the text when a character is not a hex digit or a byte has one digit.
    public static func bytes(_ text: String) throws(HexParseError) -> [UInt8] {
        var body = Substring(text)
        if body.hasPrefix("0x") || body.hasPrefix("0X") { body = body.dropFirst(2) }
        var result: [UInt8] = []
        var pending: UInt8?
        for (offset, character) in body.enumerated() {
            if let digit = value(of: character) {
                if let high = pending {
                    result.append(high << 4 | digit)
                    pending = nil
                } else {
                    pending = digit
                }
            } else if " :-_".contains(character), pending == nil {
                continue
            } else {
                throw HexParseError(text: text, offset: offset + (text.count - body.count))
            }
        }
        if pending != nil { throw HexParseError(text: text, offset: text.count) }
        return result
    }

    /// The value of the ASCII code of a hex digit, or nil.
    static func value(ofASCII ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The ASCII code of the digit for `nibble` (0 to 15).
    static func character(of nibble: UInt8, uppercase: Bool) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble - 10
    }
}

/// Why a string is not hex bytes: the ``text`` given and the ``offset`` of the first character that is wrong.
public struct HexParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that could not be read, as given.
    public var text: String
    /// The offset, in characters, of the first character that is not where a hex digit belongs (the
    /// length of the text when the last byte has one digit only).
    public var offset: Int

    /// Creates the error for `text`, wrong at `offset`.
    /// - Parameters:
    ///   - text: The text that could not be read.
    ///   - offset: The offset of the first wrong character.
    public init(text: String, offset: Int) {
        self.text = text
        self.offset = offset
    }

    /// A sentence quoting the text and naming the offset.
    public var description: String {
        offset >= text.count
            ? "\"\(text)\" is not hex bytes: the last byte has one digit"
            : "\"\(text)\" is not hex bytes: character \(offset) is not a hex digit"
    }
}
