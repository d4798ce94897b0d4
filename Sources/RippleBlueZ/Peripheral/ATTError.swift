/// An Attribute Protocol error a served characteristic answers a read or a write with.
///
/// bluetoothd 5.66 carries these codes to the central: the application errors 0x80…0x9F, and
/// ``readNotPermitted``, ``writeNotPermitted``, ``requestNotSupported``, ``invalidOffset``,
/// ``insufficientAuthorization``, ``invalidAttributeValueLength`` and ``unlikely``. Any other code
/// reaches the central as ``unlikely``.
public struct ATTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The ATT error code.
    public let code: UInt8

    /// The error with `code`.
    ///
    /// - Parameter code: the ATT error code.
    public init(code: UInt8) {
        self.code = code
    }

    /// 0x02: the value cannot be read.
    public static let readNotPermitted = ATTError(code: 0x02)
    /// 0x03: the value cannot be written.
    public static let writeNotPermitted = ATTError(code: 0x03)
    /// 0x06: the request is not supported.
    public static let requestNotSupported = ATTError(code: 0x06)
    /// 0x07: the offset is past the end of the value.
    public static let invalidOffset = ATTError(code: 0x07)
    /// 0x08: the central is not authorized.
    public static let insufficientAuthorization = ATTError(code: 0x08)
    /// 0x0D: the value written has the wrong length.
    public static let invalidAttributeValueLength = ATTError(code: 0x0D)
    /// 0x0E: the request could not be completed ("unlikely error").
    public static let unlikely = ATTError(code: 0x0E)

    /// An application error, 0x80…0x9F, whose meaning the service defines.
    ///
    /// - Parameter code: the code; values outside 0x80…0x9F are taken as ``unlikely``.
    /// - Returns: the error.
    public static func application(_ code: UInt8) -> ATTError {
        (0x80...0x9F).contains(code) ? ATTError(code: code) : .unlikely
    }

    /// "ATT error 0x80".
    public var description: String {
        "ATT error 0x" + Hex.digits(of: code, uppercase: false)
    }

    /// The D-Bus error an application replies so that bluetoothd 5.66 answers the central with this code.
    var bluezReply: (name: String, message: String) {
        switch code {
        case 0x02, 0x03: ("org.bluez.Error.NotPermitted", description)
        case 0x06: ("org.bluez.Error.NotSupported", description)
        case 0x07: ("org.bluez.Error.InvalidOffset", description)
        case 0x08: ("org.bluez.Error.NotAuthorized", description)
        case 0x0D: ("org.bluez.Error.InvalidValueLength", description)
        case 0x80...0x9F: ("org.bluez.Error.Failed", "0x" + Hex.digits(of: code, uppercase: false))
        // A number outside 0x80…0x9F is bluetoothd's "unlikely error".
        default: ("org.bluez.Error.Failed", "0x0e")
        }
    }
}
