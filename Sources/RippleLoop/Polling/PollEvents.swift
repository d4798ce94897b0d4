import CLibUV

extension EventLoop {
    /// Readiness conditions of a file descriptor, as `uv_poll` reports them.
    public struct PollEvents: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// libuv's `uv_poll_event` bits.
        public let rawValue: Int32

        /// The events with libuv's bits `rawValue`.
        ///
        /// - Parameter rawValue: libuv's `uv_poll_event` bits.
        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The descriptor can be read without blocking (or is at end of file).
        public static let readable = PollEvents(rawValue: Int32(UV_READABLE.rawValue))
        /// The descriptor can be written without blocking.
        public static let writable = PollEvents(rawValue: Int32(UV_WRITABLE.rawValue))
        /// The peer closed its end (a socket's `EPOLLRDHUP`); reported only when asked for.
        public static let disconnect = PollEvents(rawValue: Int32(UV_DISCONNECT.rawValue))
        /// Urgent (out-of-band) data can be read.
        public static let prioritized = PollEvents(rawValue: Int32(UV_PRIORITIZED.rawValue))

        /// The names of the events, e.g. `"[readable, writable]"`.
        public var description: String {
            let names: [(PollEvents, String)] = [
                (.readable, "readable"), (.writable, "writable"), (.disconnect, "disconnect"),
                (.prioritized, "prioritized"),
            ]
            return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
        }
    }
}
