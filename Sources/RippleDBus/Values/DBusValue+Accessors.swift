extension DBusValue {
    /// The byte of a `.byte`, else nil.
    public var byte: UInt8? {
        if case .byte(let value) = self { return value }
        return nil
    }

    /// The boolean of a `.boolean`, else nil.
    public var boolean: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The integer of an `.int16`, else nil.
    public var int16: Int16? {
        if case .int16(let value) = self { return value }
        return nil
    }

    /// The integer of a `.uint16`, else nil.
    public var uint16: UInt16? {
        if case .uint16(let value) = self { return value }
        return nil
    }

    /// The integer of an `.int32`, else nil.
    public var int32: Int32? {
        if case .int32(let value) = self { return value }
        return nil
    }

    /// The integer of a `.uint32`, else nil.
    public var uint32: UInt32? {
        if case .uint32(let value) = self { return value }
        return nil
    }

    /// The integer of an `.int64`, else nil.
    public var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }

    /// The integer of a `.uint64`, else nil.
    public var uint64: UInt64? {
        if case .uint64(let value) = self { return value }
        return nil
    }

    /// The number of a `.double`, else nil.
    public var double: Double? {
        if case .double(let value) = self { return value }
        return nil
    }

    /// The text of a `.string`, else nil.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The path of an `.objectPath`, else nil.
    public var objectPath: DBusObjectPath? {
        if case .objectPath(let value) = self { return value }
        return nil
    }

    /// The signature of a `.signature`, else nil (the value's own type is ``type``).
    public var signature: DBusSignature? {
        if case .signature(let value) = self { return value }
        return nil
    }

    /// The descriptor of a `.unixFD`, else nil.
    public var unixFD: DBusFileDescriptor? {
        if case .unixFD(let value) = self { return value }
        return nil
    }

    /// The bytes of a `.bytes`, or of an `.array(.byte, …)` whose elements are all bytes; else nil.
    public var bytes: [UInt8]? {
        switch self {
        case .bytes(let bytes):
            return bytes
        case .array(.byte, let elements):
            var bytes: [UInt8] = []
            bytes.reserveCapacity(elements.count)
            for element in elements {
                guard case .byte(let byte) = element else { return nil }
                bytes.append(byte)
            }
            return bytes
        default:
            return nil
        }
    }

    /// The elements of an array (`.bytes` gives `.byte` elements), else nil.
    public var arrayElements: [DBusValue]? {
        switch self {
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        case .array(_, let elements): elements
        default: nil
        }
    }

    /// The entries of a `.dictionary`, in wire order, else nil.
    public var dictionaryEntries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = self { return entries }
        return nil
    }

    /// The fields of a `.structure`, else nil.
    public var structureFields: [DBusValue]? {
        if case .structure(let fields) = self { return fields }
        return nil
    }

    /// The value inside a `.variant`, else nil.
    public var variantValue: DBusValue? {
        if case .variant(let value) = self { return value }
        return nil
    }

    /// The value with every enclosing variant removed (`<<5>>` gives `5`); a non-variant is itself.
    public var unwrappingVariants: DBusValue {
        var value = self
        while case .variant(let inner) = value {
            value = inner
        }
        return value
    }

    /// Decodes the value as `type` (see ``DBusRepresentable``); throws
    /// ``DBusDecodingError/typeMismatch(expected:found:at:)`` when it has another type.
    ///
    /// - Parameter type: the type.
    /// - Returns: the decoded value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` when it has another type.
    public func decode<T: DBusRepresentable>(as type: T.Type = T.self) throws(DBusDecodingError) -> T {
        try T(dbusValue: self)
    }

    /// An `a{sv}` dictionary of `properties`, each value wrapped in a variant, entries sorted by key (so the
    /// same dictionary always writes the same bytes). The value BlueZ and `org.freedesktop.DBus.Properties`
    /// use for property maps and options.
    ///
    /// - Parameter properties: the values by name.
    /// - Returns: the dictionary.
    public static func stringVariantDictionary(_ properties: [String: DBusValue]) -> DBusValue {
        let entries = properties.sorted { $0.key < $1.key }.map {
            DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
        }
        return .dictionary(key: .string, value: .variant, entries)
    }

    /// The entries of an `a{sv}` dictionary with their values unwrapped from their variants (once), else
    /// nil (also when an entry's key is not a string or its value not a variant). A key present twice keeps
    /// its last value.
    public var stringVariantDictionary: [String: DBusValue]? {
        guard case .dictionary(.string, .variant, let entries) = self else { return nil }
        var result: [String: DBusValue] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { return nil }
            result[key] = value
        }
        return result
    }
}
