/// What went wrong talking D-Bus: the failure type of every `RippleDBus` publisher and the error its
/// throwing functions throw.
///
/// Nothing a peer sends ever traps: a malformed or unexpected message surfaces as one of these cases on the
/// stream that was waiting for it, and the connection carries on.
public enum DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer answered with a D-Bus error: its `name` (such as `org.freedesktop.DBus.Error.UnknownMethod`
    /// or `org.bluez.Error.NotPermitted`) and the human-readable `message` it carried (empty when none).
    case remote(name: String, message: String)
    /// No reply came within the call's timeout.
    case timedOut
    /// The connection is closed, or closed while this operation was waiting.
    case disconnected
    /// Opening or registering a connection failed: the libdbus error name and message.
    case connectionFailed(name: String, message: String)
    /// A received value did not have the type that was expected of it.
    case decoding(DBusDecodingError)
    /// An argument given to a `RippleDBus` function is not valid D-Bus (an object path, a bus or interface
    /// name, a member name or a signature): what was wrong with it.
    case invalidArgument(String)
    /// A subscriber fell behind a signal stream by more than the stream's buffer holds; the stream ended
    /// with this failure rather than drop signals silently (see ``DBusSignalBuffering``).
    case bufferOverflow(limit: Int)
    /// libdbus could not allocate memory for the operation.
    case outOfMemory

    /// The D-Bus error name of a ``remote(name:message:)`` error, or nil for the other cases.
    public var remoteName: String? {
        if case .remote(let name, _) = self { return name }
        return nil
    }

    public var description: String {
        switch self {
        case .remote(let name, let message):
            message.isEmpty ? name : "\(name): \(message)"
        case .timedOut:
            "the D-Bus call timed out"
        case .disconnected:
            "the D-Bus connection is closed"
        case .connectionFailed(let name, let message):
            "connecting to D-Bus failed: \(name): \(message)"
        case .decoding(let error):
            error.description
        case .invalidArgument(let reason):
            "invalid D-Bus argument: \(reason)"
        case .bufferOverflow(let limit):
            "the subscriber fell more than \(limit) signals behind; the stream ended"
        case .outOfMemory:
            "libdbus ran out of memory"
        }
    }
}
