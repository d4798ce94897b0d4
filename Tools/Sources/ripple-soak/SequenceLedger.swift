import Synchronization

/// Checks a numbered notification stream as its subscriber sees it: each value carries its sequence
/// number (little-endian `UInt32`, first 4 bytes), which starts again at 0 with each notification session
/// (a new link, a new socket). A value whose number skips ahead leaves a gap; every gap must be covered by
/// the values the stream counted as dropped, or it is a loss without a count.
final class SequenceLedger: Sendable {
    private struct State {
        var expected: UInt32?
        var seen = 0
        var gaps = 0
        var sessions = 0
        var malformed = 0
    }

    private let state = Mutex(State())

    /// Records the value `bytes`.
    ///
    /// - Parameter bytes: the notification.
    func record(_ bytes: [UInt8]) {
        guard bytes.count >= 4 else {
            state.withLock { $0.malformed += 1 }
            return
        }
        let number = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        state.withLock { state in
            state.seen += 1
            if let expected = state.expected, number >= expected {
                state.gaps += Int(number - expected)
            } else {
                // A new session: what it dropped before its first value shows as that value's number.
                state.sessions += 1
                state.gaps += Int(number)
            }
            state.expected = number &+ 1
        }
    }

    /// Values seen, values missing from the sequences, sessions, and values too short to carry a number.
    var totals: (seen: Int, gaps: Int, sessions: Int, malformed: Int) {
        state.withLock { ($0.seen, $0.gaps, $0.sessions, $0.malformed) }
    }
}
