#if canImport(Glibc)
import Glibc
#endif

/// The header strings a connection received last (interfaces, members, paths, senders), handed out again
/// when the same bytes come back, so that reading a message does not allocate them anew: a connection
/// receives the same few names over and over. Holds at most ``capacity`` strings, replaced round-robin.
///
/// Used on one thread only (a connection's loop thread): not `Sendable`.
final class HeaderNameCache {
    /// The most strings kept.
    static let capacity = 32

    private var entries: [String] = []
    private var nextReplaced = 0

    init() {
        entries.reserveCapacity(Self.capacity)
    }

    /// The string of the NUL-terminated UTF-8 bytes at `characters`: a kept one when equal, else a new
    /// one (then kept).
    func string(_ characters: UnsafePointer<CChar>) -> String {
        let length = strlen(characters)
        for index in entries.indices {
            var entry = entries[index]
            let equal = entry.withUTF8 { bytes in
                guard bytes.count == length else { return false }
                guard let base = bytes.baseAddress else { return length == 0 }
                return memcmp(base, characters, length) == 0
            }
            if equal { return entry }
        }
        let text = String(decoding: UnsafeRawBufferPointer(start: characters, count: length), as: UTF8.self)
        if entries.count < Self.capacity {
            entries.append(text)
        } else {
            entries[nextReplaced] = text
            nextReplaced = (nextReplaced + 1) % Self.capacity
        }
        return text
    }
}
