import Testing

@testable import RippleDBus

@Suite struct DBusValueTests {
    @Test func typeOfEveryCase() throws {
        let path = try DBusObjectPath("/a")
        let cases: [(DBusValue, DBusType)] = [
            (.byte(1), .byte), (.boolean(true), .boolean), (.int16(1), .int16), (.uint16(1), .uint16),
            (.int32(1), .int32), (.uint32(1), .uint32), (.int64(1), .int64), (.uint64(1), .uint64),
            (.double(1), .double), (.string("s"), .string), (.objectPath(path), .objectPath),
            (.signature(.empty), .signature), (.bytes([]), .array(.byte)), (.array(.string, []), .array(.string)),
            (.array(.byte, [.byte(1)]), .array(.byte)),
            (.dictionary(key: .string, value: .variant, []), .dictionary(key: .string, value: .variant)),
            (.structure([.int32(1), .bytes([2])]), .structure([.int32, .array(.byte)])),
            (.variant(.array(.string, [])), .variant),
        ]
        for (value, type) in cases {
            #expect(value.type == type, "\(value)")
        }
    }

    @Test func doublesCompareByBitPattern() {
        #expect(DBusValue.double(.nan) == .double(.nan))
        #expect(DBusValue.double(0.0) != .double(-0.0))
        #expect(DBusValue.double(.infinity) == .double(.infinity))
        #expect(Set([DBusValue.double(.nan), .double(.nan), .double(0.0), .double(-0.0)]).count == 3)
    }

    @Test func bytesEqualTheSameByteArray() {
        let bytes = DBusValue.bytes([1, 2, 3])
        let array = DBusValue.array(.byte, [.byte(1), .byte(2), .byte(3)])
        #expect(bytes == array)
        #expect(array == bytes)
        #expect(bytes.hashValue == array.hashValue)
        #expect(Set([bytes, array]).count == 1)
        #expect(bytes != .array(.byte, [.byte(1), .byte(2)]))
        #expect(bytes != .array(.byte, [.byte(1), .byte(2), .int32(3)]))
        #expect(bytes != .array(.int32, [.int32(1), .int32(2), .int32(3)]))
    }

    @Test func differentCasesAndDeclaredTypesDiffer() throws {
        #expect(DBusValue.int32(1) != .uint32(1))
        #expect(DBusValue.array(.string, []) != .array(.int32, []))
        #expect(
            DBusValue.dictionary(key: .string, value: .variant, []) != .dictionary(key: .string, value: .string, []))
        #expect(DBusValue.variant(.int32(1)) != .int32(1))
        let entries = [
            DBusDictionaryEntry(key: .string("a"), value: .int32(1)),
            DBusDictionaryEntry(key: .string("b"), value: .int32(2)),
        ]
        #expect(
            DBusValue.dictionary(key: .string, value: .int32, entries)
                != .dictionary(key: .string, value: .int32, entries.reversed()), "wire order matters")
        let all: [DBusValue] = [
            .byte(1), .boolean(true), .int16(1), .uint16(1), .int32(1), .uint32(1), .int64(1), .uint64(1),
            .double(1), .string("1"), .objectPath(try DBusObjectPath("/a")), .signature(try DBusSignature("i")),
            .bytes([1]), .array(.int32, [.int32(1)]), .dictionary(key: .int32, value: .int32, entries),
            .structure([.int32(1)]), .variant(.int32(1)),
        ]
        #expect(Set(all).count == all.count)
        for (index, value) in all.enumerated() {
            #expect(value == all[index])
            for other in all[(index + 1)...] {
                #expect(value != other)
            }
        }
    }

    @Test func accessorsAnswerOnlyTheirCase() throws {
        let path = try DBusObjectPath("/a")
        let signature = try DBusSignature("a{sv}")
        #expect(DBusValue.byte(7).byte == 7)
        #expect(DBusValue.boolean(true).boolean == true)
        #expect(DBusValue.int16(-7).int16 == -7)
        #expect(DBusValue.uint16(7).uint16 == 7)
        #expect(DBusValue.int32(-7).int32 == -7)
        #expect(DBusValue.uint32(7).uint32 == 7)
        #expect(DBusValue.int64(-7).int64 == -7)
        #expect(DBusValue.uint64(7).uint64 == 7)
        #expect(DBusValue.double(0.5).double == 0.5)
        #expect(DBusValue.string("x").string == "x")
        #expect(DBusValue.objectPath(path).objectPath == path)
        #expect(DBusValue.signature(signature).signature == signature)
        #expect(DBusValue.bytes([1]).bytes == [1])
        #expect(DBusValue.array(.byte, [.byte(1), .byte(2)]).bytes == [1, 2])
        #expect(DBusValue.array(.byte, [.byte(1), .int32(2)]).bytes == nil)
        #expect(DBusValue.array(.int32, [.int32(1)]).arrayElements == [.int32(1)])
        #expect(DBusValue.bytes([1, 2]).arrayElements == [.byte(1), .byte(2)])
        let entry = DBusDictionaryEntry(key: .string("k"), value: .variant(.int32(1)))
        #expect(DBusValue.dictionary(key: .string, value: .variant, [entry]).dictionaryEntries == [entry])
        #expect(DBusValue.structure([.int32(1)]).structureFields == [.int32(1)])
        #expect(DBusValue.variant(.int32(1)).variantValue == .int32(1))
        #expect(DBusValue.variant(.variant(.variant(.int32(1)))).unwrappingVariants == .int32(1))
        #expect(DBusValue.int32(1).unwrappingVariants == .int32(1))

        let other = DBusValue.structure([])
        #expect(other.byte == nil && other.boolean == nil && other.int16 == nil && other.uint16 == nil)
        #expect(other.int32 == nil && other.uint32 == nil && other.int64 == nil && other.uint64 == nil)
        #expect(other.double == nil && other.string == nil && other.objectPath == nil && other.signature == nil)
        #expect(other.unixFD == nil && other.bytes == nil && other.arrayElements == nil)
        #expect(
            other.dictionaryEntries == nil && other.variantValue == nil && DBusValue.int32(1).structureFields == nil)
    }

    @Test func stringVariantDictionaryBothWays() {
        let value = DBusValue.stringVariantDictionary([
            "RSSI": .int16(-60), "Name": .string("Sensor"), "Paired": .boolean(false),
        ])
        #expect(
            value
                == .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .string("Name"), value: .variant(.string("Sensor"))),
                        DBusDictionaryEntry(key: .string("Paired"), value: .variant(.boolean(false))),
                        DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60))),
                    ]))
        #expect(
            value.stringVariantDictionary == [
                "RSSI": .int16(-60), "Name": .string("Sensor"), "Paired": .boolean(false),
            ])

        let duplicated = DBusValue.dictionary(
            key: .string, value: .variant,
            [
                DBusDictionaryEntry(key: .string("A"), value: .variant(.int32(1))),
                DBusDictionaryEntry(key: .string("A"), value: .variant(.int32(2))),
            ])
        #expect(duplicated.stringVariantDictionary == ["A": .int32(2)], "the last of a repeated key wins")
        #expect(DBusValue.dictionary(key: .string, value: .string, []).stringVariantDictionary == nil)
        #expect(DBusValue.int32(1).stringVariantDictionary == nil)
        let illTyped = DBusValue.dictionary(
            key: .string, value: .variant,
            [
                DBusDictionaryEntry(key: .string("A"), value: .int32(1))
            ])
        #expect(illTyped.stringVariantDictionary == nil)
        #expect(DBusValue.stringVariantDictionary([:]) == .dictionary(key: .string, value: .variant, []))
    }

    @Test func descriptions() throws {
        let cases: [(DBusValue, String)] = [
            (.byte(42), "byte 0x2a"), (.boolean(true), "true"), (.boolean(false), "false"),
            (.int16(-5), "int16 -5"), (.uint16(5), "uint16 5"), (.int32(-5), "-5"), (.uint32(5), "uint32 5"),
            (.int64(-5), "int64 -5"), (.uint64(5), "uint64 5"), (.double(1.5), "1.5"), (.double(-0.0), "-0.0"),
            (.double(.nan), "nan"), (.double(-.infinity), "-inf"),
            (.string("a \"quoted\"\n"), #""a \"quoted\"\n""#),
            (.objectPath(try DBusObjectPath("/org/bluez")), "objectpath '/org/bluez'"),
            (.signature(try DBusSignature("a{sv}")), "signature 'a{sv}'"),
            (.bytes([0x01, 0xff]), "bytes [01 ff]"), (.bytes([]), "bytes []"),
            (.array(.int32, [.int32(1), .int32(2)]), "[1, 2]"), (.array(.string, []), "@as []"),
            (
                .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60))),
                        DBusDictionaryEntry(key: .string("Name"), value: .variant(.string("x"))),
                    ]), #"{"RSSI": <int16 -60>, "Name": <"x">}"#
            ),
            (.dictionary(key: .string, value: .variant, []), "@a{sv} {}"),
            (.structure([.int32(1), .string("a")]), #"(1, "a")"#),
            (.variant(.variant(.uint32(1))), "<<uint32 1>>"),
        ]
        for (value, description) in cases {
            #expect(value.description == description)
        }
    }

    @Test func decodeAsARepresentableType() throws {
        #expect(try DBusValue.int32(5).decode(as: Int32.self) == 5)
        let strings: [String] = try DBusValue.array(.string, [.string("a")]).decode()
        #expect(strings == ["a"])
        #expect(throws: DBusDecodingError.typeMismatch(expected: "i", found: "s", at: "")) {
            try DBusValue.string("5").decode(as: Int32.self)
        }
    }
}
