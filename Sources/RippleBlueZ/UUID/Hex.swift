/// Hexadecimal digits, read and written without Foundation.
enum Hex {
    /// The low `count` hex digits of `value`, most significant first, zero-padded.
    static func digits(of value: UInt64, count: Int, uppercase: Bool) -> String {
        let alphabet: [Character] = uppercase ? Array("0123456789ABCDEF") : Array("0123456789abcdef")
        var result = ""
        for position in stride(from: count - 1, through: 0, by: -1) {
            result.append(alphabet[Int((value >> (4 * UInt64(position))) & 0xF)])
        }
        return result
    }

    /// The value of an ASCII hex digit (`0-9`, `a-f`, `A-F`), or nil for any other character.
    static func value(of character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
