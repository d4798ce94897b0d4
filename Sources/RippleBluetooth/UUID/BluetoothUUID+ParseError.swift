extension BluetoothUUID {
    /// Why a string is not a Bluetooth UUID: the ``string`` given and the ``reason``.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong with the string.
        public enum Reason: Sendable, Hashable {
            /// The string is empty (or only `0x`).
            case empty
            /// The string (after a `0x` prefix, if any) has `length` characters; a UUID has 4 or 8 hex digits
            /// (an assigned number), 32 hex digits, or 36 characters with hyphens.
            case invalidLength(Int)
            /// The character at `offset` (counted in characters from the start of the string) is not a
            /// hexadecimal digit where one belongs.
            case invalidCharacter(Character, offset: Int)
            /// A 36-character string without its hyphens at offsets 8, 13, 18 and 23 (8-4-4-4-12 digits).
            case misplacedHyphens
            /// A `0x` prefix before a full 128-bit form; the prefix belongs only to 4- or 8-digit assigned numbers.
            case unexpectedPrefix
        }

        /// The string that could not be parsed, as given.
        public var string: String
        /// What was wrong with it.
        public var reason: Reason

        /// Creates an error saying that `string` is not a UUID because of `reason`.
        ///
        /// - Parameters:
        ///   - string: the string that could not be parsed, as given.
        ///   - reason: what was wrong with it.
        public init(string: String, reason: Reason) {
            self.string = string
            self.reason = reason
        }

        /// A sentence quoting the string and saying what was wrong with it, such as
        /// `"\"18G0\" is not a Bluetooth UUID: 'G' at offset 2 is not a hexadecimal digit"`.
        public var description: String {
            let why =
                switch reason {
                case .empty:
                    "it is empty"
                case .invalidLength(let length):
                    "\(length) characters; expected 4 or 8 hex digits, 32 hex digits, or 36 characters with hyphens"
                case .invalidCharacter(let character, let offset):
                    "'\(character)' at offset \(offset) is not a hexadecimal digit"
                case .misplacedHyphens:
                    "the hyphens are not in the 8-4-4-4-12 places"
                case .unexpectedPrefix:
                    "a 0x prefix is allowed only before 4 or 8 hex digits"
                }
            return "\"\(string)\" is not a Bluetooth UUID: \(why)"
        }
    }
}
