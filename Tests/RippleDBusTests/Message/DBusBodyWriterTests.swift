import Testing

@testable import RippleDBus

/// Values whose declared types disagree with their contents, or that D-Bus cannot carry, are refused before
/// libdbus sees them (libdbus would abort the process).
@Suite struct DBusBodyWriterTests {
    private func expectRefused(
        _ body: [DBusValue], _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let message = try DBusMessage.signal(path: .root, interface: "a.b", member: "S", body: body)
        #expect(throws: DBusError.invalidArgument(reason), sourceLocation: sourceLocation) { try message.wireBytes() }
    }

    @Test func declaredTypesMustMatchContents() throws {
        try expectRefused(
            [.array(.int32, [.int32(1), .string("x")])],
            "the D-Bus value at argument 0 › element 1 cannot be written: a value of type 's' where the type 'i' is declared"
        )
        try expectRefused(
            [.int32(0), .array(.structure([.int32]), [.structure([.int32(1), .int32(2)])])],
            "the D-Bus value at argument 1 › element 0 cannot be written: a value of type '(ii)' where the type '(i)' is declared"
        )
        try expectRefused(
            [
                .dictionary(
                    key: .string, value: .variant, [DBusDictionaryEntry(key: .string("RSSI"), value: .int16(-60))])
            ],
            "the D-Bus value at argument 0 › key \"RSSI\" cannot be written: a value of type 'n' where the type 'v' is declared"
        )
        try expectRefused(
            [
                .dictionary(
                    key: .string, value: .variant, [DBusDictionaryEntry(key: .int32(1), value: .variant(.int32(1)))])
            ],
            "the D-Bus value at argument 0 › entry 0 cannot be written: a value of type 'i' where the type 's' is declared"
        )
        try expectRefused(
            [.array(.array(.string), [.array(.int32, [])])],
            "the D-Bus value at argument 0 › element 0 cannot be written: a value of type 'ai' where the type 'as' is declared"
        )
        try expectRefused(
            [.array(.dictionary(key: .string, value: .string), [.dictionary(key: .string, value: .variant, [])])],
            "the D-Bus value at argument 0 › element 0 cannot be written: a value of type 'a{sv}' where the type 'a{ss}' is declared"
        )
        try expectRefused(
            [.array(.byte, [.byte(1), .int32(2)])],
            "the D-Bus value at argument 0 › element 1 cannot be written: a value of type 'i' where the type 'y' is declared"
        )
        try expectRefused(
            [.array(.variant, [.int32(2)])],
            "the D-Bus value at argument 0 › element 0 cannot be written: a value of type 'i' where the type 'v' is declared"
        )
        try expectRefused(
            [.structure([.variant(.array(.string, [.bytes([])]))])],
            "the D-Bus value at argument 0 › field 0 › variant › element 0 cannot be written: a value of type 'ay' where the type 's' is declared"
        )
    }

    @Test func typesMustBeValidDBus() throws {
        try expectRefused(
            [.dictionary(key: .variant, value: .string, [])],
            "the D-Bus message body cannot be written: invalid D-Bus signature \"a{vs}\": a dict entry's key must be a basic type, not 'v'"
        )
        try expectRefused(
            [.structure([])],
            "the D-Bus message body cannot be written: invalid D-Bus signature \"()\": a structure has no fields")
        try expectRefused(
            [.array(.structure([]), [])],
            "the D-Bus message body cannot be written: invalid D-Bus signature \"a()\": a structure has no fields")
        try expectRefused(
            [.variant(.dictionary(key: .array(.byte), value: .string, []))],
            "the D-Bus value at argument 0 cannot be written: the variant's value has an invalid type: invalid D-Bus signature \"a{ays}\": a dict entry's key must be a basic type, not 'a'"
        )
        try expectRefused(
            Array(repeating: .int32(1), count: 256),
            "the D-Bus message body cannot be written: invalid D-Bus signature \"\(String(repeating: "i", count: 256))\": it is 256 bytes long, more than 255"
        )
    }

    @Test func contentsMustBeCarriable() throws {
        try expectRefused(
            [.string("a\u{0}b")], "the D-Bus value at argument 0 cannot be written: the string contains a NUL character"
        )
        try expectRefused(
            [.signature(DBusSignature(types: [.structure([])]))],
            "the D-Bus value at argument 0 cannot be written: invalid D-Bus signature \"()\": a structure has no fields"
        )
        try expectRefused(
            [.bytes([UInt8](repeating: 0, count: 67_108_865))],
            "the D-Bus value at argument 0 cannot be written: the array of 67108865 'y' is longer than D-Bus's 67108864 bytes"
        )
        try expectRefused(
            [.array(.uint64, Array(repeating: .uint64(0), count: 8_388_609))],
            "the D-Bus value at argument 0 cannot be written: the array of 8388609 't' is longer than D-Bus's 67108864 bytes"
        )
    }
}
