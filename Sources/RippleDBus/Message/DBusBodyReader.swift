import CDBus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a libdbus message's body into ``DBusValue``s.
///
/// Guided by the message's signature (parsed by RippleDBus's own validator), it checks at every step that
/// libdbus reports the type the signature promises before asking for a value, so nothing libdbus hands
/// over can make it call libdbus wrongly (libdbus aborts on misuse) or trap: whatever is unexpected
/// becomes ``DBusDecodingError/malformed(_:)``. Nesting is bounded as the specification bounds it (64
/// containers, variants included), which also bounds the recursion.
enum DBusBodyReader {
    /// Reads every argument of `message`.
    static func readBody(of message: OpaquePointer) throws(DBusDecodingError) -> [DBusValue] {
        let types: [DBusType]
        switch parse(dbus_message_get_signature(message)) {
        case .success(let parsed): types = parsed
        case .failure(let problem): throw .malformed("the message's signature is invalid: \(problem.reason)")
        }
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else {
            guard types.isEmpty else {
                throw .malformed("libdbus finds no arguments in a body of signature '\(signatureText(types))'")
            }
            return []
        }
        var body: [DBusValue] = []
        body.reserveCapacity(types.count)
        for type in types {
            body.append(try readValue(&iterator, as: type, depth: 0))
            dbus_message_iter_next(&iterator)
        }
        try expectEnd(of: &iterator, in: "the body")
        return body
    }

    /// Reads the value at the iterator, which must have `type`; `depth` is how many containers enclose it.
    private static func readValue(
        _ iterator: inout DBusMessageIter, as type: DBusType, depth: Int
    ) throws(DBusDecodingError) -> DBusValue {
        let code = dbus_message_iter_get_arg_type(&iterator)
        guard code == Int32(type.typeCode) else {
            throw .malformed(
                "libdbus reports \(describe(code: code)) where the signature has '\(type.signature)'")
        }
        switch type {
        case .byte: return .byte(basic(&iterator).byt)
        case .boolean: return .boolean(basic(&iterator).bool_val != 0)
        case .int16: return .int16(basic(&iterator).i16)
        case .uint16: return .uint16(basic(&iterator).u16)
        case .int32: return .int32(basic(&iterator).i32)
        case .uint32: return .uint32(basic(&iterator).u32)
        case .int64: return .int64(Int64(basic(&iterator).i64))
        case .uint64: return .uint64(UInt64(basic(&iterator).u64))
        case .double: return .double(basic(&iterator).dbl)
        case .string:
            return .string(try string(&iterator))
        case .objectPath:
            let text = try string(&iterator)
            if let problem = DBusObjectPath.problem(in: text) {
                throw .malformed("an object path \"\(text)\" is invalid: \(problem)")
            }
            return .objectPath(DBusObjectPath(unchecked: text))
        case .signature:
            let text = try string(&iterator)
            do {
                return .signature(try DBusSignature(text))
            } catch {
                throw .malformed("a signature value is invalid: \(error.invalidArgumentReason)")
            }
        case .unixFD:
            let fd = basic(&iterator).fd
            guard fd >= 0 else {
                throw .malformed("a file descriptor argument refers to a descriptor the message does not carry")
            }
            return .unixFD(DBusFileDescriptor(taking: fd))
        case .array(let element):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            if element.isFixedSize, element != .unixFD {
                return try readFixedArray(&sub, element: element, depth: depth)
            }
            var elements: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != Int32(DBusTypeCode.invalid) {
                guard depth < DBusBodyWriter.maximumDepth else { throw tooDeep() }
                elements.append(try readValue(&sub, as: element, depth: depth + 1))
                dbus_message_iter_next(&sub)
            }
            return .array(element, elements)
        case .dictionary(let key, let value):
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            var entries: [DBusDictionaryEntry] = []
            while true {
                let entryCode = dbus_message_iter_get_arg_type(&sub)
                if entryCode == Int32(DBusTypeCode.invalid) { break }
                guard entryCode == Int32(DBusTypeCode.dictEntry) else {
                    throw .malformed("libdbus reports \(describe(code: entryCode)) where a dict entry belongs")
                }
                guard depth + 2 <= DBusBodyWriter.maximumDepth else { throw tooDeep() }
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let keyValue = try readValue(&pair, as: key, depth: depth + 2)
                dbus_message_iter_next(&pair)
                let valueValue = try readValue(&pair, as: value, depth: depth + 2)
                dbus_message_iter_next(&pair)
                try expectEnd(of: &pair, in: "a dict entry")
                entries.append(DBusDictionaryEntry(key: keyValue, value: valueValue))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: value, entries)
        case .structure(let fieldTypes):
            guard depth < DBusBodyWriter.maximumDepth else { throw tooDeep() }
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            var fields: [DBusValue] = []
            fields.reserveCapacity(fieldTypes.count)
            for fieldType in fieldTypes {
                fields.append(try readValue(&sub, as: fieldType, depth: depth + 1))
                dbus_message_iter_next(&sub)
            }
            try expectEnd(of: &sub, in: "a structure")
            return .structure(fields)
        case .variant:
            guard depth < DBusBodyWriter.maximumDepth else { throw tooDeep() }
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            guard let signature = dbus_message_iter_get_signature(&sub) else {
                throw .malformed("libdbus ran out of memory reading a variant's signature")
            }
            defer { dbus_free(signature) }
            let contained: DBusType
            switch parseSingle(signature) {
            case .success(let type): contained = type
            case .failure(let problem): throw .malformed("a variant's signature is invalid: \(problem.reason)")
            }
            let inner = try readValue(&sub, as: contained, depth: depth + 1)
            dbus_message_iter_next(&sub)
            try expectEnd(of: &sub, in: "a variant")
            return .variant(inner)
        }
    }

    /// Reads an array of fixed-size numbers in one copy (`ay` as ``DBusValue/bytes(_:)``).
    private static func readFixedArray(
        _ sub: inout DBusMessageIter, element: DBusType, depth: Int
    ) throws(DBusDecodingError) -> DBusValue {
        var start: UnsafeRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(&sub, &start, &count)
        guard count > 0, let start else {
            return element == .byte ? .bytes([]) : .array(element, [])
        }
        guard depth < DBusBodyWriter.maximumDepth else { throw tooDeep() }
        let length = Int(count)
        switch element {
        case .byte:
            return .bytes(Array(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: length)))
        case .boolean: return .array(element, elements(start, length, as: dbus_bool_t.self) { .boolean($0 != 0) })
        case .int16: return .array(element, elements(start, length, as: Int16.self, DBusValue.int16))
        case .uint16: return .array(element, elements(start, length, as: UInt16.self, DBusValue.uint16))
        case .int32: return .array(element, elements(start, length, as: Int32.self, DBusValue.int32))
        case .uint32: return .array(element, elements(start, length, as: UInt32.self, DBusValue.uint32))
        case .int64: return .array(element, elements(start, length, as: Int64.self, DBusValue.int64))
        case .uint64: return .array(element, elements(start, length, as: UInt64.self, DBusValue.uint64))
        default: return .array(element, elements(start, length, as: Double.self, DBusValue.double))
        }
    }

    private static func elements<Number>(
        _ start: UnsafeRawPointer, _ count: Int, as _: Number.Type, _ makeValue: (Number) -> DBusValue
    ) -> [DBusValue] {
        UnsafeBufferPointer(start: start.assumingMemoryBound(to: Number.self), count: count).map(makeValue)
    }

    private static func basic(_ iterator: inout DBusMessageIter) -> DBusBasicValue {
        var value = DBusBasicValue()
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func string(_ iterator: inout DBusMessageIter) throws(DBusDecodingError) -> String {
        guard let characters = basic(&iterator).str else {
            throw .malformed("libdbus gave no characters for a string value")
        }
        guard let text = String(validatingCString: characters) else {
            throw .malformed("a string value is not valid UTF-8")
        }
        return text
    }

    private static func expectEnd(of iterator: inout DBusMessageIter, in container: String) throws(DBusDecodingError) {
        let code = dbus_message_iter_get_arg_type(&iterator)
        guard code == Int32(DBusTypeCode.invalid) else {
            throw .malformed(
                "libdbus reports \(describe(code: code)) after the last value its signature has in \(container)")
        }
    }

    private static func tooDeep() -> DBusDecodingError {
        .malformed("values nest more than \(DBusBodyWriter.maximumDepth) containers deep")
    }

    private static func describe(code: Int32) -> String {
        if code == Int32(DBusTypeCode.invalid) { return "no value" }
        guard let byte = UInt8(exactly: code) else { return "type code \(code)" }
        return "type \(DBusSignatureParser.describe(byte: byte))"
    }

    private static func signatureText(_ types: [DBusType]) -> String {
        DBusSignature(types: types).rawValue
    }

    /// Parses a C signature string from libdbus (NULL reads as empty).
    static func parse(_ characters: UnsafePointer<CChar>?) -> Result<[DBusType], DBusSignatureProblem> {
        guard let characters else { return .success([]) }
        return characters.withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
            DBusSignatureParser.parse(UnsafeBufferPointer(start: bytes, count: strlen(characters)))
        }
    }

    private static func parseSingle(_ characters: UnsafePointer<CChar>) -> Result<DBusType, DBusSignatureProblem> {
        characters.withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
            DBusSignatureParser.parseSingleCompleteType(UnsafeBufferPointer(start: bytes, count: strlen(characters)))
        }
    }
}
