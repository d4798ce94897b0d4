import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DBusRepresentableTests {
    /// Checks type, encoding and decoding of one value, and that another type's value is refused naming both.
    private func check<T: DBusRepresentable & Equatable>(
        _ value: T, _ type: DBusType, _ encoded: DBusValue, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(T.dbusType == type, sourceLocation: sourceLocation)
        #expect(value.dbusValue == encoded, sourceLocation: sourceLocation)
        #expect(try T(dbusValue: encoded) == value, sourceLocation: sourceLocation)
        let other: DBusValue = type == .string ? .int32(1) : .string("1")
        #expect(
            throws: DBusDecodingError.typeMismatch(expected: type.signature, found: other.type.signature, at: ""),
            sourceLocation: sourceLocation
        ) {
            try T(dbusValue: other)
        }
    }

    @Test func scalarsMapToExactlyTheirDBusType() throws {
        try check(UInt8(200), .byte, .byte(200))
        try check(true, .boolean, .boolean(true))
        try check(Int16.min, .int16, .int16(.min))
        try check(UInt16.max, .uint16, .uint16(.max))
        try check(Int32.min, .int32, .int32(.min))
        try check(UInt32.max, .uint32, .uint32(.max))
        try check(Int64.min, .int64, .int64(.min))
        try check(UInt64.max, .uint64, .uint64(.max))
        try check(2.5, .double, .double(2.5))
        try check("text", .string, .string("text"))
        try check(try DBusObjectPath("/org/bluez"), .objectPath, .objectPath(try DBusObjectPath("/org/bluez")))
        try check(try DBusSignature("a{sv}"), .signature, .signature(try DBusSignature("a{sv}")))
    }

    @Test func integersDoNotConvertNorUnwrapVariants() {
        #expect(throws: DBusDecodingError.typeMismatch(expected: "i", found: "u", at: "")) {
            try Int32(dbusValue: .uint32(1))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "i", found: "v", at: "")) {
            try Int32(dbusValue: .variant(.int32(1)))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "x", found: "i", at: "")) {
            try Int64(dbusValue: .int32(1))
        }
    }

    @Test func fileDescriptorDecodesAsTheSameObject() throws {
        let ends = try #require(closeOnExecPipe())
        close(ends.writeEnd)
        let descriptor = DBusFileDescriptor(taking: ends.readEnd)
        #expect(DBusFileDescriptor.dbusType == .unixFD)
        #expect(descriptor.dbusValue == .unixFD(descriptor))
        #expect(try DBusFileDescriptor(dbusValue: .unixFD(descriptor)) === descriptor)
        #expect(throws: DBusDecodingError.typeMismatch(expected: "h", found: "i", at: "")) {
            try DBusFileDescriptor(dbusValue: .int32(3))
        }
    }

    @Test func dbusValueIsAVariant() throws {
        #expect(DBusValue.dbusType == .variant)
        #expect(DBusValue.int32(1).dbusValue == .variant(.int32(1)))
        #expect(try DBusValue(dbusValue: .variant(.string("x"))) == .string("x"))
        #expect(try DBusValue(dbusValue: .variant(.variant(.string("x")))) == .variant(.string("x")))
        #expect(throws: DBusDecodingError.typeMismatch(expected: "v", found: "s", at: "")) {
            try DBusValue(dbusValue: .string("x"))
        }
    }

    @Test func arrays() throws {
        #expect([Int32].dbusType == .array(.int32))
        #expect([Int32](arrayLiteral: 1, 2).dbusValue == .array(.int32, [.int32(1), .int32(2)]))
        #expect(try [Int32](dbusValue: .array(.int32, [.int32(1), .int32(2)])) == [1, 2])
        #expect(try [Int32](dbusValue: .array(.int32, [])) == [])
        #expect(try [[String]](dbusValue: .array(.array(.string), [.array(.string, [.string("a")])])) == [["a"]])
        #expect(throws: DBusDecodingError.typeMismatch(expected: "ai", found: "au", at: "")) {
            try [Int32](dbusValue: .array(.uint32, []))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "as", found: "ay", at: "")) {
            try [String](dbusValue: .bytes([1]))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "ai", found: "i", at: "")) {
            try [Int32](dbusValue: .int32(1))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "i", found: "s", at: "element 3")) {
            try [Int32](dbusValue: .array(.int32, [.int32(1), .int32(2), .int32(3), .string("4")]))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "s", found: "i", at: "element 1 › element 0")) {
            try [[String]](dbusValue: .array(.array(.string), [.array(.string, []), .array(.string, [.int32(1)])]))
        }
    }

    @Test func byteArraysAreBytes() throws {
        #expect([UInt8].dbusType == .array(.byte))
        #expect([UInt8]([1, 2]).dbusValue == .bytes([1, 2]))
        #expect(try [UInt8](dbusValue: .bytes([1, 2])) == [1, 2])
        #expect(try [UInt8](dbusValue: .array(.byte, [.byte(3)])) == [3])
        #expect(throws: DBusDecodingError.typeMismatch(expected: "y", found: "i", at: "element 0")) {
            try [UInt8](dbusValue: .array(.byte, [.int32(3)]))
        }
    }

    @Test func dictionaries() throws {
        #expect([String: DBusValue].dbusType == .dictionary(key: .string, value: .variant))
        let properties: [String: DBusValue] = ["RSSI": .int16(-60)]
        #expect(
            properties.dbusValue
                == .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60)))
                    ]))
        #expect(try [String: DBusValue](dbusValue: properties.dbusValue) == properties)
        let twice = DBusValue.dictionary(
            key: .uint16, value: .array(.byte),
            [
                DBusDictionaryEntry(key: .uint16(76), value: .bytes([1])),
                DBusDictionaryEntry(key: .uint16(76), value: .bytes([2])),
            ])
        #expect(try [UInt16: [UInt8]](dbusValue: twice) == [76: [2]], "the last of a repeated key wins")
        #expect(throws: DBusDecodingError.typeMismatch(expected: "a{sv}", found: "a{ss}", at: "")) {
            try [String: DBusValue](dbusValue: .dictionary(key: .string, value: .string, []))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "a{sv}", found: "av", at: "")) {
            try [String: DBusValue](dbusValue: .array(.variant, []))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "v", found: "n", at: "key \"RSSI\"")) {
            try [String: DBusValue](
                dbusValue: .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .string("Name"), value: .variant(.string("x"))),
                        DBusDictionaryEntry(key: .string("RSSI"), value: .int16(-60)),
                    ]))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "s", found: "o", at: "entry 0")) {
            try [String: DBusValue](
                dbusValue: .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .objectPath(.root), value: .variant(.string("x")))
                    ]))
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "i", found: "s", at: "key uint32 7 › element 1")) {
            try [UInt32: [Int32]](
                dbusValue: .dictionary(
                    key: .uint32, value: .array(.int32),
                    [
                        DBusDictionaryEntry(key: .uint32(7), value: .array(.int32, [.int32(1), .string("2")]))
                    ]))
        }
    }

    @Test func getManagedObjectsShape() throws {
        typealias ManagedObjects = [DBusObjectPath: [String: [String: DBusValue]]]
        #expect(ManagedObjects.dbusType.signature == "a{oa{sa{sv}}}")
        let device = try DBusObjectPath("/org/bluez/hci0/dev_AA")
        let objects: ManagedObjects = [device: ["org.bluez.Device1": ["RSSI": .int16(-60), "Name": .string("x")]]]
        let decoded = try ManagedObjects(dbusValue: objects.dbusValue)
        #expect(decoded == objects)
        #expect(decoded[device]?["org.bluez.Device1"]?["RSSI"]?.int16 == -60)
    }
}
