import Testing

@testable import RippleDBus

@Suite struct DBusMessageWireTests {
    static let basicValues: [DBusValue] = [
        .byte(0), .byte(.max), .boolean(false), .boolean(true),
        .int16(.min), .int16(.max), .uint16(0), .uint16(.max),
        .int32(.min), .int32(.max), .uint32(0), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(0), .uint64(.max),
        .double(0), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.nan),
        .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude), .double(-1.5),
        .string(""), .string("ascii"), .string("héllo wörld ✓ 🌍 ∑ 中文"),
        .string(String(repeating: "long ", count: 10_000)),
        .objectPath(.root), .objectPath(DBusObjectPath(unchecked: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF")),
        .signature(.empty), .signature(DBusSignature(types: [.dictionary(key: .string, value: .variant)])),
        .signature(DBusSignature(types: [.string, .array(.structure([.int32, .variant]))])),
    ]

    @Test(arguments: basicValues)
    func basicValueRoundTrips(_ value: DBusValue) throws {
        #expect(try WireRoundTrip.body([value]) == [value])
        #expect(try WireRoundTrip.body([.variant(value)]) == [.variant(value)])
    }

    @Test func nanKeepsItsPayload() throws {
        let payload = Double(bitPattern: 0x7FF8_0000_DEAD_BEEF)
        let read = try WireRoundTrip.body([.double(payload)])
        #expect(read.first?.double?.bitPattern == 0x7FF8_0000_DEAD_BEEF)
    }

    @Test func byteArraysCrossAsBytes() throws {
        let large = (0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let read = try WireRoundTrip.body([
            .bytes(large), .bytes([]), .array(.byte, [.byte(1), .byte(2)]), .array(.byte, []),
        ])
        #expect(read == [.bytes(large), .bytes([]), .bytes([1, 2]), .bytes([])])
        guard case .bytes(let readLarge) = read[0], case .bytes = read[2], case .bytes = read[3] else {
            Issue.record("ay must read as .bytes, got \(read.map(\.type))")
            return
        }
        #expect(readLarge == large)
    }

    @Test func arraysOfEveryType() throws {
        let path = DBusObjectPath(unchecked: "/a")
        let arrays: [DBusValue] = [
            .array(.boolean, [.boolean(true), .boolean(false), .boolean(true)]),
            .array(.int16, [.int16(.min), .int16(0), .int16(.max)]),
            .array(.uint16, [.uint16(0), .uint16(.max)]),
            .array(.int32, [.int32(.min), .int32(-1), .int32(.max)]),
            .array(.uint32, [.uint32(0), .uint32(.max)]),
            .array(.int64, [.int64(.min), .int64(.max)]),
            .array(.uint64, [.uint64(0), .uint64(.max)]),
            .array(.double, [.double(-0.0), .double(.nan), .double(.infinity), .double(1.25)]),
            .array(.string, [.string(""), .string("a"), .string("ü")]),
            .array(.objectPath, [.objectPath(.root), .objectPath(path)]),
            .array(.signature, [.signature(.empty), .signature(DBusSignature(types: [.variant]))]),
            .array(.variant, [.variant(.int32(1)), .variant(.string("x")), .variant(.bytes([1]))]),
            .array(.array(.byte), [.bytes([1, 2]), .bytes([])]),
            .array(.array(.int32), [.array(.int32, [.int32(1)]), .array(.int32, [])]),
            .array(
                .structure([.int32, .string]),
                [.structure([.int32(1), .string("one")]), .structure([.int32(2), .string("two")])]),
            .array(
                .dictionary(key: .string, value: .variant),
                [.stringVariantDictionary(["a": .int32(1)]), .stringVariantDictionary([:])]),
        ]
        #expect(try WireRoundTrip.body(arrays) == arrays)
        let empties: [DBusValue] = [
            .array(.boolean, []), .array(.int16, []), .array(.uint16, []), .array(.int32, []), .array(.uint32, []),
            .array(.int64, []), .array(.uint64, []), .array(.double, []), .array(.string, []), .array(.objectPath, []),
            .array(.signature, []), .array(.variant, []), .array(.array(.byte), []),
            .array(.structure([.int32, .array(.string)]), []),
            .array(.dictionary(key: .string, value: .variant), []),
            .dictionary(key: .string, value: .variant, []),
            .dictionary(
                key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
                []),
        ]
        #expect(try WireRoundTrip.body(empties) == empties)
    }

    @Test func dictionariesKeepWireOrderAndRepeatedKeys() throws {
        let dictionary = DBusValue.dictionary(
            key: .string, value: .variant,
            [
                DBusDictionaryEntry(key: .string("Name"), value: .variant(.string("Sensor"))),
                DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60))),
                DBusDictionaryEntry(
                    key: .string("ManufacturerData"),
                    value: .variant(
                        .dictionary(
                            key: .uint16, value: .variant,
                            [
                                DBusDictionaryEntry(key: .uint16(76), value: .variant(.bytes([2, 21, 0xff])))
                            ]))),
                DBusDictionaryEntry(key: .string("Name"), value: .variant(.string("Again"))),
            ])
        let keyed: [DBusValue] = [
            .dictionary(key: .byte, value: .string, [DBusDictionaryEntry(key: .byte(1), value: .string("one"))]),
            .dictionary(key: .boolean, value: .int32, [DBusDictionaryEntry(key: .boolean(true), value: .int32(1))]),
            .dictionary(key: .int64, value: .double, [DBusDictionaryEntry(key: .int64(.min), value: .double(.nan))]),
            .dictionary(
                key: .double, value: .array(.string),
                [DBusDictionaryEntry(key: .double(-0.0), value: .array(.string, []))]),
            .dictionary(
                key: .signature, value: .objectPath,
                [DBusDictionaryEntry(key: .signature(.empty), value: .objectPath(.root))]),
            .dictionary(
                key: .uint64, value: .structure([.string, .variant]),
                [
                    DBusDictionaryEntry(
                        key: .uint64(.max), value: .structure([.string("s"), .variant(.boolean(false))]))
                ]),
        ]
        #expect(try WireRoundTrip.body([dictionary] + keyed) == [dictionary] + keyed)
    }

    @Test func getManagedObjectsReply() throws {
        let objects: [DBusObjectPath: [String: [String: DBusValue]]] = [
            DBusObjectPath(unchecked: "/org/bluez/hci0"): [
                "org.bluez.Adapter1": ["Powered": .boolean(true), "Address": .string("00:11:22:33:44:55")],
                "org.freedesktop.DBus.Properties": [:],
            ],
            DBusObjectPath(unchecked: "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"): [
                "org.bluez.Device1": [
                    "RSSI": .int16(-60), "UUIDs": .array(.string, [.string("0000180f-0000-1000-8000-00805f9b34fb")]),
                    "ServiceData": .stringVariantDictionary(["0000180f-0000-1000-8000-00805f9b34fb": .bytes([100])]),
                ]
            ],
        ]
        let call = DBusMessage(kind: .methodCall, serial: 12, sender: ":1.3", path: .root, member: "GetManagedObjects")
        var reply = DBusMessage.methodReturn(replyingTo: call, body: [objects.dbusValue])
        reply.serial = 40
        reply.sender = "org.bluez"
        let read = try WireRoundTrip.message(reply)
        #expect(read == reply)
        #expect(read.signature.rawValue == "a{oa{sa{sv}}}")
        let (decoded) = try read.decodeArguments(as: [DBusObjectPath: [String: [String: DBusValue]]].self)
        #expect(decoded == objects)
    }

    @Test func structuresAndVariantsOfVariants() throws {
        let values: [DBusValue] = [
            .structure([.int32(1)]),
            .structure([.string("a"), .structure([.uint64(2), .array(.string, [])]), .variant(.bytes([3]))]),
            .variant(.variant(.variant(.int32(5)))),
            .variant(.structure([.variant(.variant(.string("deep")))])),
            .variant(.array(.variant, [.variant(.variant(.objectPath(.root)))])),
            .variant(.stringVariantDictionary(["inner": .variant(.int16(1))])),
        ]
        #expect(try WireRoundTrip.body(values) == values)
    }

    @Test func headersOfEveryKindRoundTrip() throws {
        var call = try DBusMessage.methodCall(
            destination: "org.bluez", path: DBusObjectPath(unchecked: "/org/bluez/hci0"),
            interface: "org.bluez.Adapter1",
            member: "StartDiscovery")
        call.serial = 7
        call.sender = ":1.42"
        call.noReplyExpected = true
        call.autoStart = false
        #expect(try WireRoundTrip.message(call) == call)

        var withoutInterface = try DBusMessage.methodCall(destination: nil, path: .root, interface: nil, member: "Ping")
        withoutInterface.serial = UInt32.max
        #expect(try WireRoundTrip.message(withoutInterface) == withoutInterface)

        var reply = DBusMessage.methodReturn(replyingTo: call, body: [.string("done")])
        reply.serial = 8
        #expect(try WireRoundTrip.message(reply) == reply)

        var error = try DBusMessage.error(
            replyingTo: call, name: "org.bluez.Error.InProgress", message: "Operation already in progress")
        error.serial = 9
        let readError = try WireRoundTrip.message(error)
        #expect(readError == error)
        #expect(
            readError.remoteError
                == .remote(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))

        var signal = try DBusMessage.signal(
            path: .root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved",
            body: [.objectPath(.root), .array(.string, [.string("org.bluez.Device1")])])
        signal.serial = 10
        signal.destination = ":1.42"
        #expect(try WireRoundTrip.message(signal) == signal)
    }

    @Test func aZeroSerialIsWrittenAsOne() throws {
        let signal = try DBusMessage.signal(path: .root, interface: "a.b", member: "S")
        #expect(signal.serial == 0)
        #expect(try WireRoundTrip.message(signal).serial == 1)
    }

    @Test func wireBytesAreDBusMarshalling() throws {
        var signal = try DBusMessage.signal(path: .root, interface: "a.b", member: "S", body: [.uint32(0x0102_0304)])
        signal.serial = 5
        let bytes = try signal.wireBytes()
        // Little-endian, signal (4), no flags, protocol 1, body length 4, serial 5.
        #expect(Array(bytes.prefix(12)) == [UInt8(ascii: "l"), 4, 0, 1, 4, 0, 0, 0, 5, 0, 0, 0])
        #expect(Array(bytes.suffix(4)) == [4, 3, 2, 1])
    }

    @Test func maximumNestingRoundTripsAndOneMoreIsRefused() throws {
        // 32 arrays around 32 structures: the deepest static nesting a signature allows (64 containers).
        var deepest: DBusValue = .int32(7)
        for _ in 0..<32 { deepest = .structure([deepest]) }
        var type = deepest.type
        for _ in 0..<32 {
            deepest = .array(type, [deepest])
            type = .array(type)
        }
        #expect(try WireRoundTrip.body([deepest]) == [deepest])

        // 64 nested variants: the total depth the specification allows, variants included.
        let variants = (0..<64).reduce(DBusValue.int32(7)) { inner, _ in .variant(inner) }
        #expect(try WireRoundTrip.body([variants]) == [variants])

        let location = (["argument 0"] + Array(repeating: "variant", count: 64)).joined(separator: " › ")
        #expect(
            throws: DBusError.invalidArgument(
                "the D-Bus value at \(location) cannot be written: values nest more than 64 containers deep")
        ) {
            try WireRoundTrip.body([.variant(variants)])
        }
        let deepestLocation =
            (["argument 0", "variant"] + Array(repeating: "element 0", count: 32)
            + Array(repeating: "field 0", count: 31)).joined(separator: " › ")
        #expect(
            throws: DBusError.invalidArgument(
                "the D-Bus value at \(deepestLocation) cannot be written: values nest more than 64 containers deep")
        ) {
            try WireRoundTrip.body([.variant(deepest)])
        }
        let dictionaries = (0..<32).reduce(DBusValue.int32(7)) { inner, _ in
            .dictionary(key: .string, value: inner.type, [DBusDictionaryEntry(key: .string("k"), value: inner)])
        }
        #expect(try WireRoundTrip.body([dictionaries]) == [dictionaries], "32 dictionaries are 64 containers")
        let dictionaryLocation = (["argument 0", "variant"] + Array(repeating: "key \"k\"", count: 31)).joined(
            separator: " › ")
        #expect(
            throws: DBusError.invalidArgument(
                "the D-Bus value at \(dictionaryLocation) cannot be written: values nest more than 64 containers deep")
        ) {
            try WireRoundTrip.body([.variant(dictionaries)])
        }

        let thirtyThree = (0..<33).reduce(DBusValue.array(.int32, [])) { inner, _ in .array(inner.type, [inner]) }
        #expect(
            throws: DBusError.invalidArgument(
                "the D-Bus message body cannot be written: invalid D-Bus signature \"\(String(repeating: "a", count: 34))i\": arrays are nested more than 32 deep"
            )
        ) {
            try WireRoundTrip.body([thirtyThree])
        }
    }

    @Test func emptyArrayMayEndDeeperThanValuesMay() throws {
        // An empty array's element type can be nested past the limit: no value sits there.
        let sixtyFour = (0..<63).reduce(DBusValue.variant(.array(.int32, []))) { inner, _ in .variant(inner) }
        #expect(try WireRoundTrip.body([sixtyFour]) == [sixtyFour])
        let withElement = (0..<63).reduce(DBusValue.variant(.array(.int32, [.int32(1)]))) { inner, _ in .variant(inner)
        }
        #expect(throws: DBusError.self) { try WireRoundTrip.body([withElement]) }
    }
}
