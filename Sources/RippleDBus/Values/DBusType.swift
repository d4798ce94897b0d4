/// A complete D-Bus type: what a signature spells, one type at a time.
///
/// `.dictionary(key:value:)` is D-Bus's array of dict entries (`a{kv}`), the only place dict entries may
/// appear; `.array(.byte)` is `ay`, which ``DBusValue`` carries as ``DBusValue/bytes(_:)``.
/// A value of this enum is not validated by itself (`.structure([])` or a dictionary with a `v` key can be
/// written down); ``DBusSignature/init(_:)`` and ``DBusSignature/init(validating:)`` check the D-Bus rules,
/// and writing a message checks every type it carries.
public enum DBusType: Sendable, Hashable, CustomStringConvertible {
    /// `y`: an unsigned 8-bit integer.
    case byte
    /// `b`: a boolean.
    case boolean
    /// `n`: a signed 16-bit integer.
    case int16
    /// `q`: an unsigned 16-bit integer.
    case uint16
    /// `i`: a signed 32-bit integer.
    case int32
    /// `u`: an unsigned 32-bit integer.
    case uint32
    /// `x`: a signed 64-bit integer.
    case int64
    /// `t`: an unsigned 64-bit integer.
    case uint64
    /// `d`: an IEEE 754 double.
    case double
    /// `s`: a UTF-8 string without NUL characters.
    case string
    /// `o`: an object path.
    case objectPath
    /// `g`: a signature.
    case signature
    /// `h`: a Unix file descriptor, passed out of band.
    case unixFD
    /// `v`: a value of any single complete type, carrying its own signature.
    case variant
    /// `a…`: an array of the element type.
    indirect case array(DBusType)
    /// `a{kv}`: an array of dict entries, each a key of a basic type and a value.
    indirect case dictionary(key: DBusType, value: DBusType)
    /// `(…)`: a structure of the field types, in order (D-Bus requires at least one).
    case structure([DBusType])

    /// Parses a signature holding exactly one complete type, such as `"a{sv}"` or `"(ii)"`.
    ///
    /// - Parameter signature: the signature.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when the signature breaks a D-Bus rule (see
    ///   ``DBusSignature/init(_:)``) or holds no type or more than one.
    public init(_ signature: String) throws(DBusError) {
        let parsed = try DBusSignature(signature)
        guard parsed.types.count == 1 else {
            throw .invalidArgument(
                "the D-Bus signature \"\(signature)\" holds \(parsed.types.count) complete types, not one")
        }
        self = parsed.types[0]
    }

    /// The type's D-Bus signature: `"u"`, `"as"`, `"a{sv}"`, `"(oa{sv})"`, ….
    public var signature: String {
        var result = ""
        appendSignature(to: &result)
        return result
    }

    /// The signature, as D-Bus writes it.
    public var description: String { signature }

    /// Whether the type is basic: a number, boolean, string, object path, signature or file descriptor.
    /// Only basic types may be dictionary keys.
    public var isBasic: Bool {
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath,
            .signature, .unixFD:
            true
        case .variant, .array, .dictionary, .structure:
            false
        }
    }

    /// Whether the type is a container (array, dictionary, structure or variant).
    public var isContainer: Bool { !isBasic }

    /// Whether values of this type have a fixed size on the wire (numbers, booleans, file descriptors).
    var isFixedSize: Bool {
        switch self {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .unixFD: true
        default: false
        }
    }

    /// The type code libdbus's iterators report for a value of this type (`'a'` for dictionaries too,
    /// `'r'` for structures).
    var typeCode: UInt8 {
        switch self {
        case .byte: DBusTypeCode.byte
        case .boolean: DBusTypeCode.boolean
        case .int16: DBusTypeCode.int16
        case .uint16: DBusTypeCode.uint16
        case .int32: DBusTypeCode.int32
        case .uint32: DBusTypeCode.uint32
        case .int64: DBusTypeCode.int64
        case .uint64: DBusTypeCode.uint64
        case .double: DBusTypeCode.double
        case .string: DBusTypeCode.string
        case .objectPath: DBusTypeCode.objectPath
        case .signature: DBusTypeCode.signature
        case .unixFD: DBusTypeCode.unixFD
        case .variant: DBusTypeCode.variant
        case .array, .dictionary: DBusTypeCode.array
        case .structure: DBusTypeCode.structure
        }
    }

    /// The width in bytes of a fixed-size type's values on the wire (its alignment too), 0 for others.
    var fixedSize: Int {
        switch self {
        case .byte: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .unixFD: 4
        case .int64, .uint64, .double: 8
        default: 0
        }
    }

    /// Appends the signature to `result` without building intermediate strings.
    func appendSignature(to result: inout String) {
        switch self {
        case .array(let element):
            result.append("a")
            element.appendSignature(to: &result)
        case .dictionary(let key, let value):
            result.append("a{")
            key.appendSignature(to: &result)
            value.appendSignature(to: &result)
            result.append("}")
        case .structure(let fields):
            result.append("(")
            for field in fields {
                field.appendSignature(to: &result)
            }
            result.append(")")
        default:
            result.unicodeScalars.append(Unicode.Scalar(typeCode))
        }
    }
}

/// The D-Bus type codes (ASCII), as libdbus reports them from `dbus_message_iter_get_arg_type`.
/// (The `DBUS_TYPE_*` macros are character casts Swift does not import.)
enum DBusTypeCode {
    static let invalid: UInt8 = 0
    static let byte = UInt8(ascii: "y")
    static let boolean = UInt8(ascii: "b")
    static let int16 = UInt8(ascii: "n")
    static let uint16 = UInt8(ascii: "q")
    static let int32 = UInt8(ascii: "i")
    static let uint32 = UInt8(ascii: "u")
    static let int64 = UInt8(ascii: "x")
    static let uint64 = UInt8(ascii: "t")
    static let double = UInt8(ascii: "d")
    static let string = UInt8(ascii: "s")
    static let objectPath = UInt8(ascii: "o")
    static let signature = UInt8(ascii: "g")
    static let unixFD = UInt8(ascii: "h")
    static let variant = UInt8(ascii: "v")
    static let array = UInt8(ascii: "a")
    static let structure = UInt8(ascii: "r")
    static let dictEntry = UInt8(ascii: "e")
    static let structBegin = UInt8(ascii: "(")
    static let structEnd = UInt8(ascii: ")")
    static let dictEntryBegin = UInt8(ascii: "{")
    static let dictEntryEnd = UInt8(ascii: "}")
}
