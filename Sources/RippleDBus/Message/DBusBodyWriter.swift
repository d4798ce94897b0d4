import CDBus

/// Writes ``DBusValue``s into a libdbus message.
///
/// libdbus aborts the process when it is handed data that disagrees with the types it is told (its checks
/// are fatal), so ``validate(_:)`` checks everything first — declared types against contents, signatures,
/// NUL-free strings, open descriptors, array lengths, nesting depth — and ``append(_:to:)`` then only fails
/// when libdbus runs out of memory.
enum DBusBodyWriter {
    /// How many containers (arrays, dict entries, structures, variants) may enclose a value: the
    /// specification's total depth of 64, counted as libdbus's validator counts it.
    static let maximumDepth = 64
    /// The longest array D-Bus allows, in bytes of marshalled elements.
    static let maximumArrayLength = 67_108_864

    /// Why a value cannot be written, and where in it (innermost location last).
    struct Problem: Error {
        var reason: String
        var locations: [String] = []

        func located(at location: String) -> Problem {
            var problem = self
            problem.locations.insert(location, at: 0)
            return problem
        }
    }

    /// Checks that `body` can be written and returns its arguments' types.
    ///
    /// Throws ``DBusError/invalidArgument(_:)``: the body's signature breaks a rule, or a value does (saying
    /// where, such as `argument 0 › key "Name"`).
    static func validate(_ body: [DBusValue]) throws(DBusError) -> [DBusType] {
        let types = body.map(\.type)
        let signature = DBusSignature(types: types)
        do {
            try signature.validate()
        } catch {
            throw .invalidArgument("the D-Bus message body cannot be written: \(error.invalidArgumentReason)")
        }
        // Indices, not `enumerated()`: see `check`.
        for index in 0..<body.count {
            do {
                try check(body[index], as: types[index], depth: 0)
            } catch {
                let location = (["argument \(index)"] + error.locations).joined(separator: " › ")
                throw .invalidArgument("the D-Bus value at \(location) cannot be written: \(error.reason)")
            }
        }
        return types
    }

    /// Checks a value (at `depth` containers deep) against the type it is declared to have.
    private static func check(_ value: DBusValue, as type: DBusType, depth: Int) throws(Problem) {
        switch (value, type) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
            (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.objectPath, .objectPath):
            return
        case (.string(let string), .string):
            // A plain loop: in a debug build under ThreadSanitizer, generic algorithms such as `contains` and
            // `enumerated()` take a runtime lock on every call (one shared by every thread), and this runs for
            // every string of every message.
            for byte in string.utf8 where byte == 0 {
                throw Problem(reason: "the string contains a NUL character")
            }
        case (.signature(let signature), .signature):
            do {
                try signature.validate()
            } catch {
                throw Problem(reason: error.invalidArgumentReason)
            }
        case (.unixFD(let descriptor), .unixFD):
            if descriptor.fileDescriptor < 0 {
                throw Problem(reason: "the file descriptor was taken out of its DBusFileDescriptor")
            }
        case (.bytes(let bytes), .array(.byte)):
            try checkArray(count: bytes.count, element: .byte, depth: depth)
        case (.array(let element, let elements), .array(let declared)) where element == declared:
            try checkArray(count: elements.count, element: element, depth: depth)
            for index in 0..<elements.count {
                do {
                    try check(elements[index], as: element, depth: depth + 1)
                } catch {
                    throw error.located(at: "element \(index)")
                }
            }
        case (.dictionary(let key, let valueType, let entries), .dictionary(let declaredKey, let declaredValue))
        where key == declaredKey && valueType == declaredValue:
            if !entries.isEmpty, depth + 2 > maximumDepth {
                throw tooDeep()
            }
            for index in 0..<entries.count {
                let entry = entries[index]
                do {
                    try check(entry.key, as: key, depth: depth + 2)
                } catch {
                    throw error.located(at: "entry \(index)")
                }
                do {
                    try check(entry.value, as: valueType, depth: depth + 2)
                } catch {
                    throw error.located(at: "key \(entry.key.description)")
                }
            }
        case (.structure(let fields), .structure(let types)) where fields.count == types.count:
            guard depth + 1 <= maximumDepth else { throw tooDeep() }
            for index in 0..<fields.count {
                do {
                    try check(fields[index], as: types[index], depth: depth + 1)
                } catch {
                    throw error.located(at: "field \(index)")
                }
            }
        case (.variant(let inner), .variant):
            guard depth + 1 <= maximumDepth else { throw tooDeep() }
            let innerType = inner.type
            do {
                _ = try DBusType(innerType.signature)
            } catch {
                throw Problem(reason: "the variant's value has an invalid type: \(error.invalidArgumentReason)")
            }
            do {
                try check(inner, as: innerType, depth: depth + 1)
            } catch {
                throw error.located(at: "variant")
            }
        default:
            throw Problem(
                reason: "a value of type '\(value.type.signature)' where the type '\(type.signature)' is declared")
        }
    }

    private static func checkArray(count: Int, element: DBusType, depth: Int) throws(Problem) {
        if element.isFixedSize, count > maximumArrayLength / element.fixedSize {
            throw Problem(
                reason:
                    "the array of \(count) '\(element.signature)' is longer than D-Bus's \(maximumArrayLength) bytes")
        }
        if count > 0, depth + 1 > maximumDepth {
            throw tooDeep()
        }
    }

    private static func tooDeep() -> Problem {
        Problem(reason: "values nest more than \(maximumDepth) containers deep")
    }

    // MARK: - Appending

    /// Appends a validated body to a new message. Throws ``DBusError/outOfMemory`` when libdbus runs out of
    /// memory and ``DBusError/invalidArgument(_:)`` when it cannot duplicate a file descriptor.
    static func append(_ body: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for value in body {
            try append(value, to: &iterator)
        }
    }

    private static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusError) {
        var basic = DBusBasicValue()
        switch value {
        case .byte(let byte):
            basic.byt = byte
            try appendBasic(&basic, code: DBusTypeCode.byte, to: &iterator)
        case .boolean(let boolean):
            basic.bool_val = boolean ? 1 : 0
            try appendBasic(&basic, code: DBusTypeCode.boolean, to: &iterator)
        case .int16(let number):
            basic.i16 = number
            try appendBasic(&basic, code: DBusTypeCode.int16, to: &iterator)
        case .uint16(let number):
            basic.u16 = number
            try appendBasic(&basic, code: DBusTypeCode.uint16, to: &iterator)
        case .int32(let number):
            basic.i32 = number
            try appendBasic(&basic, code: DBusTypeCode.int32, to: &iterator)
        case .uint32(let number):
            basic.u32 = number
            try appendBasic(&basic, code: DBusTypeCode.uint32, to: &iterator)
        case .int64(let number):
            basic.i64 = dbus_int64_t(number)
            try appendBasic(&basic, code: DBusTypeCode.int64, to: &iterator)
        case .uint64(let number):
            basic.u64 = dbus_uint64_t(number)
            try appendBasic(&basic, code: DBusTypeCode.uint64, to: &iterator)
        case .double(let number):
            basic.dbl = number
            try appendBasic(&basic, code: DBusTypeCode.double, to: &iterator)
        case .string(let string):
            try appendString(string, code: DBusTypeCode.string, to: &iterator)
        case .objectPath(let path):
            try appendString(path.rawValue, code: DBusTypeCode.objectPath, to: &iterator)
        case .signature(let signature):
            try appendString(signature.rawValue, code: DBusTypeCode.signature, to: &iterator)
        case .unixFD(let descriptor):
            basic.fd = descriptor.fileDescriptor
            guard dbus_message_iter_append_basic(&iterator, Int32(DBusTypeCode.unixFD), &basic) != 0 else {
                throw .invalidArgument(
                    "libdbus could not attach file descriptor \(basic.fd) to the message (out of memory or descriptors)"
                )
            }
        case .bytes(let bytes):
            try appendFixedArray(bytes, code: DBusTypeCode.byte, to: &iterator)
        case .array(let element, let elements):
            try appendArray(element: element, elements, to: &iterator)
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.signature + valueType.signature + "}"
            try withContainer(DBusTypeCode.array, signature: entrySignature, in: &iterator) { array throws(DBusError) in
                for entry in entries {
                    try withContainer(DBusTypeCode.dictEntry, signature: nil, in: &array) { pair throws(DBusError) in
                        try append(entry.key, to: &pair)
                        try append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            try withContainer(DBusTypeCode.structure, signature: nil, in: &iterator) { structure throws(DBusError) in
                for field in fields {
                    try append(field, to: &structure)
                }
            }
        case .variant(let inner):
            try withContainer(DBusTypeCode.variant, signature: inner.type.signature, in: &iterator) {
                variant throws(DBusError) in
                try append(inner, to: &variant)
            }
        }
    }

    /// Arrays of fixed-size numbers cross in one copy; the others element by element.
    private static func appendArray(
        element: DBusType, _ elements: [DBusValue], to iterator: inout DBusMessageIter
    ) throws(DBusError) {
        switch element {
        case .byte: try appendFixedArray(elements.compactMap(\.byte), code: DBusTypeCode.byte, to: &iterator)
        case .boolean:
            try appendFixedArray(
                elements.compactMap { $0.boolean.map { $0 ? dbus_bool_t(1) : 0 } }, code: DBusTypeCode.boolean,
                to: &iterator)
        case .int16: try appendFixedArray(elements.compactMap(\.int16), code: DBusTypeCode.int16, to: &iterator)
        case .uint16: try appendFixedArray(elements.compactMap(\.uint16), code: DBusTypeCode.uint16, to: &iterator)
        case .int32: try appendFixedArray(elements.compactMap(\.int32), code: DBusTypeCode.int32, to: &iterator)
        case .uint32: try appendFixedArray(elements.compactMap(\.uint32), code: DBusTypeCode.uint32, to: &iterator)
        case .int64: try appendFixedArray(elements.compactMap(\.int64), code: DBusTypeCode.int64, to: &iterator)
        case .uint64: try appendFixedArray(elements.compactMap(\.uint64), code: DBusTypeCode.uint64, to: &iterator)
        case .double: try appendFixedArray(elements.compactMap(\.double), code: DBusTypeCode.double, to: &iterator)
        default:
            try withContainer(DBusTypeCode.array, signature: element.signature, in: &iterator) {
                array throws(DBusError) in
                for value in elements {
                    try append(value, to: &array)
                }
            }
        }
    }

    private static func appendFixedArray<Element>(
        _ elements: [Element], code: UInt8, to iterator: inout DBusMessageIter
    ) throws(DBusError) {
        let elementSignature = String(Unicode.Scalar(code))
        try withContainer(DBusTypeCode.array, signature: elementSignature, in: &iterator) {
            array throws(DBusError) in
            guard !elements.isEmpty else { return }
            let appended = elements.withUnsafeBufferPointer { buffer in
                var start = UnsafeRawPointer(buffer.baseAddress)
                return dbus_message_iter_append_fixed_array(&array, Int32(code), &start, Int32(buffer.count))
            }
            guard appended != 0 else { throw .outOfMemory }
        }
    }

    private static func appendBasic(
        _ value: inout DBusBasicValue, code: UInt8, to iterator: inout DBusMessageIter
    ) throws(DBusError) {
        guard dbus_message_iter_append_basic(&iterator, Int32(code), &value) != 0 else { throw .outOfMemory }
    }

    private static func appendString(_ string: String, code: UInt8, to iterator: inout DBusMessageIter)
        throws(DBusError)
    {
        let appended = string.withCString { characters in
            var basic = DBusBasicValue()
            basic.str = UnsafeMutablePointer(mutating: characters)
            return dbus_message_iter_append_basic(&iterator, Int32(code), &basic)
        }
        guard appended != 0 else { throw .outOfMemory }
    }

    /// Opens a container, lets `body` fill it, closes it; abandons it when `body` throws.
    private static func withContainer(
        _ code: UInt8, signature: String?, in iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, Int32(code), $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iterator, Int32(code), nil, &sub)
        }
        guard opened != 0 else { throw .outOfMemory }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &sub) != 0 else { throw .outOfMemory }
    }
}

extension DBusError {
    /// The reason of an ``invalidArgument(_:)``, or the description of another error.
    var invalidArgumentReason: String {
        if case .invalidArgument(let reason) = self { return reason }
        return description
    }
}
