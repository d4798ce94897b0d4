/// One D-Bus value of any type: what a message body holds, argument by argument.
///
/// Containers carry their declared types, so empty arrays and dictionaries keep theirs (`@as []`).
/// Byte arrays (`ay`) are ``bytes(_:)``: reading a message always yields that form, and writing crosses
/// it into libdbus in one copy. `.array(.byte, …)` is accepted when writing and equals the same
/// ``bytes(_:)``.
///
/// Equality means "the same D-Bus value": doubles compare by bit pattern (so `NaN == NaN` and
/// `0.0 != -0.0`, as on the wire), dictionaries by their entries in wire order, file descriptors by
/// identity. Writing a value whose contents disagree with its declared types (`.array(.int32,
/// [.string("x")])`) throws ``DBusError/invalidArgument(_:)``; nothing is checked on construction.
public enum DBusValue: Sendable, Hashable, CustomStringConvertible {
    /// `y`
    case byte(UInt8)
    /// `b`
    case boolean(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`: writing one with a NUL character throws ``DBusError/invalidArgument(_:)``.
    case string(String)
    /// `o`
    case objectPath(DBusObjectPath)
    /// `g`
    case signature(DBusSignature)
    /// `h`: the message duplicates the descriptor when written; reading gives a new owned one.
    case unixFD(DBusFileDescriptor)
    /// `ay`: a byte array.
    case bytes([UInt8])
    /// `a…`: an array of `elements`, each of the element type given first.
    case array(DBusType, [DBusValue])
    /// `a{kv}`: a dictionary, entries in wire order (duplicate keys are kept as they came).
    case dictionary(key: DBusType, value: DBusType, [DBusDictionaryEntry])
    /// `(…)`: a structure of its fields (at least one).
    case structure([DBusValue])
    /// `v`: a value carrying its own type.
    indirect case variant(DBusValue)

    /// The value's D-Bus type, from its declared container types (`.bytes` is `.array(.byte)`).
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .bytes: .array(.byte)
        case let .array(element, _): .array(element)
        case let .dictionary(key, value, _): .dictionary(key: key, value: value)
        case let .structure(fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case let (.byte(a), .byte(b)): a == b
        case let (.boolean(a), .boolean(b)): a == b
        case let (.int16(a), .int16(b)): a == b
        case let (.uint16(a), .uint16(b)): a == b
        case let (.int32(a), .int32(b)): a == b
        case let (.uint32(a), .uint32(b)): a == b
        case let (.int64(a), .int64(b)): a == b
        case let (.uint64(a), .uint64(b)): a == b
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.string(a), .string(b)): a == b
        case let (.objectPath(a), .objectPath(b)): a == b
        case let (.signature(a), .signature(b)): a == b
        case let (.unixFD(a), .unixFD(b)): a === b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.bytes(bytes), .array(.byte, elements)), let (.array(.byte, elements), .bytes(bytes)):
            bytes.count == elements.count && zip(bytes, elements).allSatisfy { .byte($0) == $1 }
        case let (.array(typeA, a), .array(typeB, b)): typeA == typeB && a == b
        case let (.dictionary(keyA, valueA, a), .dictionary(keyB, valueB, b)):
            keyA == keyB && valueA == valueB && a == b
        case let (.structure(a), .structure(b)): a == b
        case let (.variant(a), .variant(b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case let .byte(value):
            hasher.combine(DBusTypeCode.byte)
            hasher.combine(value)
        case let .boolean(value):
            hasher.combine(DBusTypeCode.boolean)
            hasher.combine(value)
        case let .int16(value):
            hasher.combine(DBusTypeCode.int16)
            hasher.combine(value)
        case let .uint16(value):
            hasher.combine(DBusTypeCode.uint16)
            hasher.combine(value)
        case let .int32(value):
            hasher.combine(DBusTypeCode.int32)
            hasher.combine(value)
        case let .uint32(value):
            hasher.combine(DBusTypeCode.uint32)
            hasher.combine(value)
        case let .int64(value):
            hasher.combine(DBusTypeCode.int64)
            hasher.combine(value)
        case let .uint64(value):
            hasher.combine(DBusTypeCode.uint64)
            hasher.combine(value)
        case let .double(value):
            hasher.combine(DBusTypeCode.double)
            hasher.combine(value.bitPattern)
        case let .string(value):
            hasher.combine(DBusTypeCode.string)
            hasher.combine(value)
        case let .objectPath(value):
            hasher.combine(DBusTypeCode.objectPath)
            hasher.combine(value)
        case let .signature(value):
            hasher.combine(DBusTypeCode.signature)
            hasher.combine(value)
        case let .unixFD(value):
            hasher.combine(DBusTypeCode.unixFD)
            hasher.combine(value)
        case let .bytes(bytes):
            // Hashes as the equal `.array(.byte, …)` does.
            hasher.combine(DBusTypeCode.array)
            hasher.combine(DBusType.byte)
            hasher.combine(bytes.count)
            for byte in bytes {
                hasher.combine(DBusTypeCode.byte)
                hasher.combine(byte)
            }
        case let .array(element, elements):
            hasher.combine(DBusTypeCode.array)
            hasher.combine(element)
            hasher.combine(elements.count)
            for value in elements {
                value.hash(into: &hasher)
            }
        case let .dictionary(key, value, entries):
            hasher.combine(DBusTypeCode.dictEntry)
            hasher.combine(key)
            hasher.combine(value)
            hasher.combine(entries)
        case let .structure(fields):
            hasher.combine(DBusTypeCode.structure)
            hasher.combine(fields)
        case let .variant(value):
            hasher.combine(DBusTypeCode.variant)
            value.hash(into: &hasher)
        }
    }
}

/// One entry of a D-Bus dictionary (`{kv}`): a key of a basic type and its value.
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key; writing checks it has the dictionary's key type.
    public var key: DBusValue
    /// The value; writing checks it has the dictionary's value type.
    public var value: DBusValue

    /// An entry of `key` and `value`.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
