extension BluetoothUUID {
    /// Parses a UUID written in any of its usual forms, in upper or lower case:
    /// a 16-bit assigned number (`"180d"`, `"0x180D"`), a 32-bit one (`"0000180d"`, `"0x0000180D"`), or the
    /// full 128 bits (`"0000180d-0000-1000-8000-00805f9b34fb"`, or the same 32 digits without hyphens).
    /// - Parameter string: the text to parse.
    /// - Throws: ``ParseError`` naming the string and what is wrong with it; nothing else is accepted
    ///   (no spaces, braces or other lengths).
    public init(_ string: String) throws(ParseError) {
        if let uuid = Self.parsedQuickly(string) {
            self = uuid
            return
        }
        let characters = Array(string)
        var start = 0
        if characters.count >= 2, characters[0] == "0", characters[1] == "x" || characters[1] == "X" {
            start = 2
        }
        let length = characters.count - start
        func fail(_ reason: ParseError.Reason) -> ParseError { ParseError(string: string, reason: reason) }

        // The value of every hex digit, in order; hyphens (checked to be where they belong) are skipped.
        var digits: [UInt64] = []
        switch length {
        case 0:
            throw fail(.empty)
        case 4, 8, 32:
            if length == 32, start != 0 { throw fail(.unexpectedPrefix) }
        case 36:
            if start != 0 { throw fail(.unexpectedPrefix) }
            for (offset, character) in characters.enumerated()
            where (character == "-") != [8, 13, 18, 23].contains(offset) {
                throw fail(.misplacedHyphens)
            }
        default:
            throw fail(.invalidLength(length))
        }
        for offset in start..<characters.count where !(length == 36 && characters[offset] == "-") {
            guard let digit = Hex.value(of: characters[offset]) else {
                throw fail(.invalidCharacter(characters[offset], offset: offset))
            }
            digits.append(UInt64(digit))
        }

        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, digit) in digits.enumerated() {
            if digits.count == 32, index < 16 { high = high << 4 | digit } else { low = low << 4 | digit }
        }
        if digits.count == 32 {
            self.init(high: high, low: low)
        } else {
            self.init(UInt32(truncatingIfNeeded: low))
        }
    }

    /// The UUID `string` writes when it is one in an accepted form, from one pass over its UTF-8 bytes;
    /// nil for anything else (then the character-wise parse names what is wrong).
    ///
    /// Bluetoothd's UUID strings come here, many per message. The pass uses no array and no generic
    /// algorithm (`enumerated()`, `contains`): in a debug build under ThreadSanitizer, those take a runtime
    /// lock shared by every thread on every call, on which a test process's hundreds of loop threads queued
    /// behind one another for seconds.
    private static func parsedQuickly(_ string: String) -> BluetoothUUID? {
        var count = 0
        var digits = 0
        var hyphens = 0
        var prefixed = false
        var high: UInt64 = 0
        var low: UInt64 = 0
        for byte in string.utf8 {
            defer { count += 1 }
            if count == 1, digits == 1, low == 0, byte == UInt8(ascii: "x") || byte == UInt8(ascii: "X") {
                // "0x": the 0 read as a digit was the prefix.
                prefixed = true
                digits = 0
                continue
            }
            if byte == UInt8(ascii: "-") {
                guard !prefixed, count == 8 || count == 13 || count == 18 || count == 23 else { return nil }
                hyphens += 1
                continue
            }
            guard digits < 32, let digit = Hex.value(ofASCII: byte) else { return nil }
            high = high << 4 | low >> 60
            low = low << 4 | UInt64(digit)
            digits += 1
        }
        switch count - (prefixed ? 2 : 0) {
        case 4, 8:
            guard hyphens == 0, digits == count - (prefixed ? 2 : 0) else { return nil }
            return BluetoothUUID(UInt32(truncatingIfNeeded: low))
        case 32:
            guard !prefixed, hyphens == 0, digits == 32 else { return nil }
            return BluetoothUUID(high: high, low: low)
        case 36:
            guard !prefixed, hyphens == 4, digits == 32 else { return nil }
            return BluetoothUUID(high: high, low: low)
        default:
            return nil
        }
    }

    /// Parses a UUID as ``init(_:)-(String)`` does.
    /// - Parameter uuidString: the text to parse.
    /// - Returns: nil when `uuidString` is not a UUID in any of the accepted forms.
    public init?(uuidString: String) {
        guard let uuid = try? BluetoothUUID(uuidString) else { return nil }
        self = uuid
    }
}

extension BluetoothUUID: ExpressibleByStringLiteral {
    /// Creates the UUID a string literal writes, in any form ``init(_:)-(String)`` accepts:
    /// `let sensor: BluetoothUUID = "5249504C-1AB0-4000-8000-000000000001"`.
    ///
    /// A literal that is not a UUID is a programming error, like an out-of-range literal array index: it
    /// stops the program with a message naming the literal, on the first run that reaches it. Strings that
    /// arrive at run time (user input, files, the bus) go through the throwing ``init(_:)-(String)``.
    /// - Parameter value: The literal.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            fatalError("invalid BluetoothUUID literal: \(error)")
        }
    }
}

extension BluetoothUUID: Codable {
    /// Decodes a UUID from a string in any form ``init(_:)-(String)`` accepts.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` naming the string when it is not a UUID, or the decoder's
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

    /// Encodes the UUID as its full lower-case string, ``uuidString``.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}
