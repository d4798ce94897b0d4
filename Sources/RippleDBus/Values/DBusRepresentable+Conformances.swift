extension UInt8: DBusRepresentable {
    /// `y`
    public static var dbusType: DBusType { .byte }
    /// Decodes a `.byte`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .byte(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.byte(self)`
    public var dbusValue: DBusValue { .byte(self) }
}

extension Bool: DBusRepresentable {
    /// `b`
    public static var dbusType: DBusType { .boolean }
    /// Decodes a `.boolean`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .boolean(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.boolean(self)`
    public var dbusValue: DBusValue { .boolean(self) }
}

extension Int16: DBusRepresentable {
    /// `n`
    public static var dbusType: DBusType { .int16 }
    /// Decodes an `.int16`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .int16(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.int16(self)`
    public var dbusValue: DBusValue { .int16(self) }
}

extension UInt16: DBusRepresentable {
    /// `q`
    public static var dbusType: DBusType { .uint16 }
    /// Decodes a `.uint16`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .uint16(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.uint16(self)`
    public var dbusValue: DBusValue { .uint16(self) }
}

extension Int32: DBusRepresentable {
    /// `i`
    public static var dbusType: DBusType { .int32 }
    /// Decodes an `.int32`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .int32(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.int32(self)`
    public var dbusValue: DBusValue { .int32(self) }
}

extension UInt32: DBusRepresentable {
    /// `u`
    public static var dbusType: DBusType { .uint32 }
    /// Decodes a `.uint32`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .uint32(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.uint32(self)`
    public var dbusValue: DBusValue { .uint32(self) }
}

extension Int64: DBusRepresentable {
    /// `x`
    public static var dbusType: DBusType { .int64 }
    /// Decodes an `.int64`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .int64(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.int64(self)`
    public var dbusValue: DBusValue { .int64(self) }
}

extension UInt64: DBusRepresentable {
    /// `t`
    public static var dbusType: DBusType { .uint64 }
    /// Decodes a `.uint64`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .uint64(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.uint64(self)`
    public var dbusValue: DBusValue { .uint64(self) }
}

extension Double: DBusRepresentable {
    /// `d`
    public static var dbusType: DBusType { .double }
    /// Decodes a `.double`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .double(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.double(self)`
    public var dbusValue: DBusValue { .double(self) }
}

extension String: DBusRepresentable {
    /// `s`
    public static var dbusType: DBusType { .string }
    /// Decodes a `.string`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .string(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.string(self)`
    public var dbusValue: DBusValue { .string(self) }
}

extension DBusObjectPath: DBusRepresentable {
    /// `o`
    public static var dbusType: DBusType { .objectPath }
    /// Decodes an `.objectPath`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .objectPath(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.objectPath(self)`
    public var dbusValue: DBusValue { .objectPath(self) }
}

extension DBusSignature: DBusRepresentable {
    /// `g`
    public static var dbusType: DBusType { .signature }
    /// Decodes a `.signature`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .signature(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.signature(self)`
    public var dbusValue: DBusValue { .signature(self) }
}

extension DBusFileDescriptor: DBusRepresentable {
    /// `h`
    public static var dbusType: DBusType { .unixFD }
    /// `.unixFD(self)`: the same object, so the value shares this descriptor.
    public var dbusValue: DBusValue { .unixFD(self) }
}

extension DBusRepresentable where Self: DBusFileDescriptor {
    /// Decodes a `.unixFD` as the very ``DBusFileDescriptor`` object it holds (no duplication); throws
    /// ``DBusDecodingError/typeMismatch(expected:found:at:)`` for any other value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .unixFD(let descriptor) = dbusValue, let same = descriptor as? Self else {
            throw .mismatch(Self.self, found: dbusValue)
        }
        self = same
    }
}

extension DBusValue: DBusRepresentable {
    /// `v`: a ``DBusValue`` stands for "any type", which D-Bus spells as a variant.
    public static var dbusType: DBusType { .variant }
    /// Unwraps one `.variant`; throws ``DBusDecodingError/typeMismatch(expected:found:at:)`` (expected
    /// `"v"`) for a value that is not a variant.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` for a value of another type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .variant(let value) = dbusValue else { throw .mismatch(Self.self, found: dbusValue) }
        self = value
    }
    /// `.variant(self)`
    public var dbusValue: DBusValue { .variant(self) }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
    /// `a` and the element type (`ay` for `[UInt8]`).
    public static var dbusType: DBusType { .array(Element.dbusType) }

    /// Decodes an array whose declared element type is exactly `Element`'s (`[UInt8]` also from
    /// ``DBusValue/bytes(_:)``, which is how `ay` is read), then each element.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)``: at the top for another type, at
    ///   `"element N"` for an element that disagrees with the declared type.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        if Element.self == UInt8.self, case .bytes(let bytes) = dbusValue {
            self = unsafeBitCast(bytes, to: [Element].self)  // the same type, checked above
            return
        }
        guard case .array(let elementType, let elements) = dbusValue, elementType == Element.dbusType else {
            throw .mismatch(Self.self, found: dbusValue)
        }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                result.append(try Element(dbusValue: element))
            } catch {
                throw error.located(at: "element \(index)")
            }
        }
        self = result
    }

    /// `.bytes` for `[UInt8]`, otherwise `.array(Element.dbusType, elements)`.
    public var dbusValue: DBusValue {
        if Element.self == UInt8.self {
            return .bytes(unsafeBitCast(self, to: [UInt8].self))  // the same type, checked above
        }
        return .array(Element.dbusType, map(\.dbusValue))
    }
}

extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
    /// `a{kv}` of the key's and the value's types (D-Bus needs a basic key type: a container key makes a
    /// dictionary that writing refuses).
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }

    /// Decodes a dictionary whose declared key and value types are exactly `Key`'s and `Value`'s, then
    /// each entry; a key present twice keeps its last value.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)``: at the top for another type, at
    ///   `"key K"` (`K` the key as ``DBusValue/description`` renders it, `key "RSSI"`) for a value, at
    ///   `"entry N"` for a key that disagrees with the declared types.
    public init(dbusValue: DBusValue) throws(DBusDecodingError) {
        guard case .dictionary(let keyType, let valueType, let entries) = dbusValue,
            keyType == Key.dbusType, valueType == Value.dbusType
        else {
            throw .mismatch(Self.self, found: dbusValue)
        }
        var result: [Key: Value] = [:]
        result.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let key: Key
            do {
                key = try Key(dbusValue: entry.key)
            } catch {
                throw error.located(at: "entry \(index)")
            }
            do {
                result[key] = try Value(dbusValue: entry.value)
            } catch {
                throw error.located(at: "key \(entry.key.description)")
            }
        }
        self = result
    }

    /// `.dictionary` of the entries, in the dictionary's (unspecified) iteration order.
    public var dbusValue: DBusValue {
        .dictionary(
            key: Key.dbusType, value: Value.dbusType,
            map { DBusDictionaryEntry(key: $0.key.dbusValue, value: $0.value.dbusValue) })
    }
}
