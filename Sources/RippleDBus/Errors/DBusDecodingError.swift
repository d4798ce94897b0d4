/// Why a D-Bus value could not be read as the type asked for. Carried by ``DBusError/decoding(_:)``.
public enum DBusDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value's D-Bus signature is not the one expected: both signatures, as D-Bus writes them
    /// (`"a{sv}"`, `"u"`, …), and where in the value it happened (empty at the top; otherwise a path
    /// such as `"argument 1"` or `"argument 0 › key \"RSSI\""`).
    case typeMismatch(expected: String, found: String, at: String)
    /// A message body had fewer arguments than expected (`expected` of them, `found` present).
    case missingArguments(expected: Int, found: Int)
    /// The value had the right signature but not an acceptable content (an integer out of range for the
    /// Swift type, an unknown enumeration string, …): a description of what was wrong and where.
    case invalidValue(String)
    /// The bytes were not a valid D-Bus message or value: what libdbus or the reader objected to.
    case malformed(String)

    public var description: String {
        switch self {
        case .typeMismatch(let expected, let found, let path):
            path.isEmpty
                ? "expected D-Bus signature '\(expected)', found '\(found)'"
                : "expected D-Bus signature '\(expected)', found '\(found)' at \(path)"
        case .missingArguments(let expected, let found):
            "expected \(expected) D-Bus arguments, found \(found)"
        case .invalidValue(let reason):
            "invalid D-Bus value: \(reason)"
        case .malformed(let reason):
            "malformed D-Bus data: \(reason)"
        }
    }
}
