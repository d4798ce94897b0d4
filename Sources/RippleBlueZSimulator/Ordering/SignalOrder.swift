extension BlueZSimulator {
    /// The order in which the simulated bluetoothd sends its signals and replies.
    ///
    /// Written `in-order` or `shuffled:SEED` (a decimal or `0x` hexadecimal 64-bit seed) in a world file's
    /// `signalOrder`, `ripple-bluez-sim --order` and `RIPPLE_SIM_ORDER`. See <doc:SignalOrdering> for
    /// the rules the shuffled order follows.
    public enum SignalOrder: Sendable, Hashable, LosslessStringConvertible {
        /// One order: every change is signalled as it is made, in the order it is made.
        case inOrder
        /// Any order bluetoothd may send, drawn from `seed`: signals of different objects held and
        /// flushed as BlueZ's GDBus layer may flush them, property changes coalesced or split, calls
        /// handled before or after held signals, and the other orders of <doc:SignalOrdering>. The same
        /// seed and the same events give the same trace.
        case shuffled(seed: UInt64)

        /// The order `text` names (`in-order`, `shuffled:1234`, `shuffled:0x4d2`), or nil.
        ///
        /// - Parameters:
        ///   - text: `in-order`, or `shuffled:` followed by a decimal or `0x` hexadecimal seed.
        public init?(_ text: String) {
            let trimmed = text.trimmingWhitespace
            if trimmed == "in-order" {
                self = .inOrder
                return
            }
            guard trimmed.hasPrefix("shuffled:") else { return nil }
            let digits = trimmed.dropFirst("shuffled:".count)
            let seed: UInt64?
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                seed = UInt64(digits.dropFirst(2), radix: 16)
            } else {
                seed = UInt64(digits, radix: 10)
            }
            guard let seed else { return nil }
            self = .shuffled(seed: seed)
        }

        /// `in-order`, or `shuffled:` and the seed in decimal.
        public var description: String {
            switch self {
            case .inOrder: "in-order"
            case .shuffled(let seed): "shuffled:\(seed)"
            }
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    fileprivate var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[start...end]
    }
}
