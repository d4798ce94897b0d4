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
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        case .variant: .variant
        }
    }

    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.int16(let a), .int16(let b)): a == b
        case (.uint16(let a), .uint16(let b)): a == b
        case (.int32(let a), .int32(let b)): a == b
        case (.uint32(let a), .uint32(let b)): a == b
        case (.int64(let a), .int64(let b)): a == b
        case (.uint64(let a), .uint64(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.objectPath(let a), .objectPath(let b)): a == b
        case (.signature(let a), .signature(let b)): a == b
        case (.unixFD(let a), .unixFD(let b)): a === b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.bytes(let bytes), .array(.byte, let elements)), (.array(.byte, let elements), .bytes(let bytes)):
            bytes.count == elements.count && zip(bytes, elements).allSatisfy { .byte($0) == $1 }
        case (.array(let typeA, let a), .array(let typeB, let b)): typeA == typeB && a == b
        case (.dictionary(let keyA, let valueA, let a), .dictionary(let keyB, let valueB, let b)):
            keyA == keyB && valueA == valueB && a == b
        case (.structure(let a), .structure(let b)): a == b
        case (.variant(let a), .variant(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .byte(let value):
            hasher.combine(DBusTypeCode.byte)
            hasher.combine(value)
        case .boolean(let value):
            hasher.combine(DBusTypeCode.boolean)
            hasher.combine(value)
        case .int16(let value):
            hasher.combine(DBusTypeCode.int16)
            hasher.combine(value)
        case .uint16(let value):
            hasher.combine(DBusTypeCode.uint16)
            hasher.combine(value)
        case .int32(let value):
            hasher.combine(DBusTypeCode.int32)
            hasher.combine(value)
        case .uint32(let value):
            hasher.combine(DBusTypeCode.uint32)
            hasher.combine(value)
        case .int64(let value):
            hasher.combine(DBusTypeCode.int64)
            hasher.combine(value)
        case .uint64(let value):
            hasher.combine(DBusTypeCode.uint64)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(DBusTypeCode.double)
            hasher.combine(value.bitPattern)
        case .string(let value):
            hasher.combine(DBusTypeCode.string)
            hasher.combine(value)
        case .objectPath(let value):
            hasher.combine(DBusTypeCode.objectPath)
            hasher.combine(value)
        case .signature(let value):
            hasher.combine(DBusTypeCode.signature)
            hasher.combine(value)
        case .unixFD(let value):
            hasher.combine(DBusTypeCode.unixFD)
            hasher.combine(value)
        case .bytes(let bytes):
            // Hashes as the equal `.array(.byte, …)` does.
            hasher.combine(DBusTypeCode.array)
            hasher.combine(DBusType.byte)
            hasher.combine(bytes.count)
            for byte in bytes {
                hasher.combine(DBusTypeCode.byte)
                hasher.combine(byte)
            }
        case .array(let element, let elements):
            hasher.combine(DBusTypeCode.array)
            hasher.combine(element)
            hasher.combine(elements.count)
            for value in elements {
                value.hash(into: &hasher)
            }
        case .dictionary(let key, let value, let entries):
            hasher.combine(DBusTypeCode.dictEntry)
            hasher.combine(key)
            hasher.combine(value)
            hasher.combine(entries)
        case .structure(let fields):
            hasher.combine(DBusTypeCode.structure)
            hasher.combine(fields)
        case .variant(let value):
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
    ///
    /// - Parameters:
    ///   - key: the key; writing checks it has the dictionary's key type.
    ///   - value: the value; writing checks it has the dictionary's value type.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
