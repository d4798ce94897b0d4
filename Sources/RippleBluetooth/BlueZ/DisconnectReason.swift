/// Why a link ended, as bluetoothd reports it in `Device1.Disconnected(name, message)` (BlueZ 5.64 and
/// later): the client reads it, the simulator sends it.
///
/// bluetoothd's reasons are the constants (``unknown``, ``timeout``, ``local``, ``remote``,
/// ``authentication``, ``suspend``), each with the message bluetoothd sends; a name bluetoothd adds later
/// arrives as a reason of its own, with its name and message as they came.
public struct DisconnectReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// bluetoothd's reason name: `org.bluez.Reason.Remote`, `org.bluez.Reason.Timeout`, ….
    public var name: String
    /// Its message: "Connection terminated by remote user".
    public var message: String

    /// A reason named `name` with `message`, as bluetoothd sent them.
    ///
    /// - Parameters:
    ///   - name: bluetoothd's reason name.
    ///   - message: the message sent with it.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// bluetoothd's reason named `name`, with its message; nil when `name` is not one of ``all``.
    ///
    /// - Parameter name: bluetoothd's reason name, such as `org.bluez.Reason.Remote`.
    public init?(name: String) {
        guard let known = Self.all.first(where: { $0.name == name }) else { return nil }
        self = known
    }

    /// `org.bluez.Reason.Unknown`: the reason was not given (or, from an older bluetoothd, not reported).
    public static let unknown = DisconnectReason(name: "org.bluez.Reason.Unknown", message: "Unspecified")
    /// `org.bluez.Reason.Timeout`: the link supervision timed out (out of range).
    public static let timeout = DisconnectReason(name: "org.bluez.Reason.Timeout", message: "Connection timeout")
    /// `org.bluez.Reason.Local`: this side disconnected (this central or another client of bluetoothd).
    public static let local = DisconnectReason(
        name: "org.bluez.Reason.Local", message: "Connection terminated by local host")
    /// `org.bluez.Reason.Remote`: the peripheral disconnected.
    public static let remote = DisconnectReason(
        name: "org.bluez.Reason.Remote", message: "Connection terminated by remote user")
    /// `org.bluez.Reason.Authentication`: authentication failed.
    public static let authentication = DisconnectReason(
        name: "org.bluez.Reason.Authentication", message: "Connection terminated due to authentication failure")
    /// `org.bluez.Reason.Suspend`: the host suspended.
    public static let suspend = DisconnectReason(
        name: "org.bluez.Reason.Suspend", message: "Connection terminated by local host for suspend")

    /// bluetoothd's reasons.
    public static let all: [DisconnectReason] = [unknown, timeout, local, remote, authentication, suspend]

    /// The message.
    public var description: String { message }

    /// Decodes the reason's name; a name that is not one of ``all`` keeps ``unknown``'s message.
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        self = DisconnectReason(name: name) ?? DisconnectReason(name: name, message: Self.unknown.message)
    }

    /// Encodes the reason's name.
    ///
    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}
