import CDBus
import Testing

@testable import RippleDBus

@Suite struct DBusSignatureTests {
    static let valid: [(String, [DBusType])] = [
        ("", []),
        ("y", [.byte]),
        ("bnqiuxtd", [.boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double]),
        ("sogh", [.string, .objectPath, .signature, .unixFD]),
        ("v", [.variant]),
        ("ay", [.array(.byte)]),
        ("aai", [.array(.array(.int32))]),
        ("(ii)", [.structure([.int32, .int32])]),
        ("((s)v)", [.structure([.structure([.string]), .variant])]),
        ("a{sv}", [.dictionary(key: .string, value: .variant)]),
        (
            "a{oa{sa{sv}}}",
            [
                .dictionary(
                    key: .objectPath,
                    value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)))
            ]
        ),
        ("sa{sv}as", [.string, .dictionary(key: .string, value: .variant), .array(.string)]),
        ("a(oa{sv})", [.array(.structure([.objectPath, .dictionary(key: .string, value: .variant)]))]),
        ("a{ha{yay}}", [.dictionary(key: .unixFD, value: .dictionary(key: .byte, value: .array(.byte)))]),
        ("aa{sv}", [.array(.dictionary(key: .string, value: .variant))]),
        (String(repeating: "y", count: 255), Array(repeating: .byte, count: 255)),
        (String(repeating: "a", count: 32) + "y", [nestedArrays(32, around: .byte)]),
        (
            String(repeating: "(", count: 32) + "y" + String(repeating: ")", count: 32),
            [nestedStructures(32, around: .byte)]
        ),
        (
            String(repeating: "a", count: 32) + String(repeating: "(", count: 32) + "y"
                + String(repeating: ")", count: 32),
            [nestedArrays(32, around: nestedStructures(32, around: .byte))]
        ),
    ]

    static let invalid: [(String, String)] = [
        ("a", "an array has no element type"),
        ("aa", "an array has no element type"),
        ("(a)", "an array has no element type"),
        ("a{sa}", "an array has no element type"),
        ("(", "a structure is not closed"),
        ("(a{sv}", "a structure is not closed"),
        ("()", "a structure has no fields"),
        ("a()", "a structure has no fields"),
        (")", "')' closes no structure"),
        ("i)", "')' closes no structure"),
        ("{sv}", "a dict entry is not an array's element type"),
        ("a({sv})", "a dict entry is not an array's element type"),
        ("}", "'}' closes no dict entry"),
        ("a{", "a dict entry is not closed"),
        ("a{s", "a dict entry is not closed"),
        ("a{sv", "a dict entry is not closed"),
        ("a{}", "a dict entry has no key type"),
        ("a{s}", "a dict entry has a key type but no value type"),
        ("a{sss}", "a dict entry has more than a key type and a value type"),
        ("a{vs}", "a dict entry's key must be a basic type, not 'v'"),
        ("a{(s)v}", "a dict entry's key must be a basic type, not '('"),
        ("a{asv}", "a dict entry's key must be a basic type, not 'a'"),
        ("r", "'r' is not a type code"),
        ("e", "'e' is not a type code"),
        ("m", "'m' is not a type code"),
        ("(i*)", "'*' is not a type code"),
        ("i i", "byte 0x20 is not a type code"),
        ("\u{0}", "byte 0x00 is not a type code"),
        ("é", "byte 0xc3 is not a type code"),
        (String(repeating: "y", count: 256), "it is 256 bytes long, more than 255"),
        (String(repeating: "a", count: 33) + "y", "arrays are nested more than 32 deep"),
        (
            String(repeating: "a{s", count: 33) + "y" + String(repeating: "}", count: 33),
            "arrays are nested more than 32 deep"
        ),
        ("a(" + String(repeating: "a", count: 32) + "y)", "arrays are nested more than 32 deep"),
        (
            String(repeating: "(", count: 33) + "y" + String(repeating: ")", count: 33),
            "structures are nested more than 32 deep"
        ),
    ]

    static func nestedArrays(_ count: Int, around type: DBusType) -> DBusType {
        (0..<count).reduce(type) { inner, _ in .array(inner) }
    }

    static func nestedStructures(_ count: Int, around type: DBusType) -> DBusType {
        (0..<count).reduce(type) { inner, _ in .structure([inner]) }
    }

    @Test(arguments: valid)
    func validSignatureParsesIntoItsTypesAndBack(_ text: String, _ types: [DBusType]) throws {
        let signature = try DBusSignature(text)
        #expect(signature.rawValue == text)
        #expect(signature.types == types)
        #expect(signature.description == text)
        #expect(DBusSignature(types: types) == signature)
        #expect(try DBusSignature(validating: types).rawValue == text)
        #expect(dbus_signature_validate(text, nil) != 0, "libdbus accepts what RippleDBus accepts")
    }

    @Test(arguments: invalid)
    func invalidSignatureThrowsItsReason(_ text: String, _ reason: String) {
        #expect(throws: DBusError.invalidArgument("invalid D-Bus signature \"\(text)\": \(reason)")) {
            try DBusSignature(text)
        }
    }

    @Test func libdbusRejectsTheInvalidSignaturesToo() {
        // libdbus counts only runs of consecutive 'a's against the 32-array limit, so it lets arrays nest
        // deeper through a structure or a dict entry; RippleDBus follows the specification's true nesting.
        let lenient: Set<String> = [
            String(repeating: "a{s", count: 33) + "y" + String(repeating: "}", count: 33),
            "a(" + String(repeating: "a", count: 32) + "y)",
        ]
        for (text, _) in Self.invalid where !lenient.contains(text) && !text.contains("\u{0}") {
            #expect(dbus_signature_validate(text, nil) == 0, "libdbus rejects \(text.debugDescription)")
        }
    }

    @Test func typesInitialiserDoesNotValidateButValidatingOneDoes() {
        let empty = DBusSignature(types: [.structure([])])
        #expect(empty.rawValue == "()")
        #expect(throws: DBusError.invalidArgument("invalid D-Bus signature \"()\": a structure has no fields")) {
            try DBusSignature(validating: [.structure([])])
        }
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus signature \"a{vs}\": a dict entry's key must be a basic type, not 'v'")
        ) {
            try DBusSignature(validating: [.dictionary(key: .variant, value: .string)])
        }
    }

    @Test func emptinessAndSingleCompleteType() throws {
        #expect(DBusSignature.empty.isEmpty)
        #expect(DBusSignature.empty.rawValue == "")
        #expect(!DBusSignature.empty.isSingleCompleteType)
        #expect(try DBusSignature("a{sv}").isSingleCompleteType)
        #expect(try !DBusSignature("ss").isSingleCompleteType)
        #expect(try !DBusSignature("ss").isEmpty)
    }

    @Test func equalityAndHashingFollowTheString() throws {
        let parsed = try DBusSignature("a{sv}")
        let built = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        #expect(parsed == built)
        #expect(Set([parsed, built]).count == 1)
        #expect(parsed != (try DBusSignature("a{ss}")))
    }
}

@Suite struct DBusTypeTests {
    @Test func signatureOfEveryCase() throws {
        let cases: [(DBusType, String)] = [
            (.byte, "y"), (.boolean, "b"), (.int16, "n"), (.uint16, "q"), (.int32, "i"), (.uint32, "u"),
            (.int64, "x"), (.uint64, "t"), (.double, "d"), (.string, "s"), (.objectPath, "o"), (.signature, "g"),
            (.unixFD, "h"), (.variant, "v"), (.array(.byte), "ay"), (.array(.array(.string)), "aas"),
            (.dictionary(key: .string, value: .variant), "a{sv}"),
            (.structure([.int32, .array(.string), .dictionary(key: .byte, value: .variant)]), "(iasa{yv})"),
        ]
        for (type, signature) in cases {
            #expect(type.signature == signature)
            #expect(type.description == signature)
            #expect(try DBusType(signature) == type)
        }
    }

    @Test func basicTypesAreTheDictionaryKeyTypes() {
        let basic: [DBusType] = [
            .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath,
            .signature, .unixFD,
        ]
        for type in basic {
            #expect(type.isBasic)
            #expect(!type.isContainer)
        }
        let containers: [DBusType] = [
            .variant, .array(.byte), .dictionary(key: .string, value: .variant), .structure([.int32]),
        ]
        for type in containers {
            #expect(!type.isBasic)
            #expect(type.isContainer)
        }
    }

    @Test func parsingASingleTypeRefusesNoneOrSeveral() {
        #expect(throws: DBusError.invalidArgument("the D-Bus signature \"ii\" holds 2 complete types, not one")) {
            try DBusType("ii")
        }
        #expect(throws: DBusError.invalidArgument("the D-Bus signature \"\" holds 0 complete types, not one")) {
            try DBusType("")
        }
        #expect(throws: DBusError.invalidArgument("invalid D-Bus signature \"a\": an array has no element type")) {
            try DBusType("a")
        }
    }
}
