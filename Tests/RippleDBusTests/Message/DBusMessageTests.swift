import Testing

@testable import RippleDBus

@Suite struct DBusMessageTests {
    let adapter = DBusObjectPath(unchecked: "/org/bluez/hci0")

    @Test func methodCallCarriesItsFields() throws {
        let call = try DBusMessage.methodCall(
            destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1", member: "SetDiscoveryFilter",
            body: [.stringVariantDictionary(["Transport": .string("le")])])
        #expect(call.kind == .methodCall)
        #expect(call.serial == 0)
        #expect(call.replySerial == nil)
        #expect(call.sender == nil)
        #expect(call.destination == "org.bluez")
        #expect(call.path == adapter)
        #expect(call.interface == "org.bluez.Adapter1")
        #expect(call.member == "SetDiscoveryFilter")
        #expect(call.errorName == nil)
        #expect(!call.noReplyExpected)
        #expect(call.autoStart)
        #expect(call.signature.rawValue == "a{sv}")
        #expect(call.remoteError == nil)
        let bare = try DBusMessage.methodCall(destination: nil, path: .root, interface: nil, member: "Ping")
        #expect(bare.body.isEmpty)
        #expect(bare.signature == .empty)
    }

    @Test func constructorsValidateNames() {
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus bus name \"bluez\": it needs at least two elements separated by '.'")
        ) {
            try DBusMessage.methodCall(destination: "bluez", path: .root, interface: nil, member: "Ping")
        }
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus interface name \"Adapter1\": it needs at least two elements separated by '.'")
        ) {
            try DBusMessage.methodCall(destination: nil, path: .root, interface: "Adapter1", member: "Ping")
        }
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus member name \"Start.Discovery\": '.' is not allowed (only A-Z a-z 0-9 _)")
        ) {
            try DBusMessage.methodCall(destination: nil, path: .root, interface: nil, member: "Start.Discovery")
        }
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus interface name \"x\": it needs at least two elements separated by '.'")
        ) {
            try DBusMessage.signal(path: .root, interface: "x", member: "Changed")
        }
        #expect(throws: DBusError.invalidArgument("invalid D-Bus member name \"\": it is empty")) {
            try DBusMessage.signal(path: .root, interface: "a.b", member: "")
        }
        let call = DBusMessage(kind: .methodCall, serial: 3, sender: ":1.7", path: .root, member: "Ping")
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus error name \"Failed\": it needs at least two elements separated by '.'")
        ) {
            try DBusMessage.error(replyingTo: call, name: "Failed", message: "no")
        }
    }

    @Test func repliesAnswerTheirCall() throws {
        let call = DBusMessage(kind: .methodCall, serial: 3, sender: ":1.7", path: .root, member: "Ping")
        let reply = DBusMessage.methodReturn(replyingTo: call, body: [.string("pong")])
        #expect(reply == DBusMessage(kind: .methodReturn, replySerial: 3, destination: ":1.7", body: [.string("pong")]))
        let error = try DBusMessage.error(
            replyingTo: call, name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        #expect(
            error
                == DBusMessage(
                    kind: .error, replySerial: 3, destination: ":1.7", errorName: "org.bluez.Error.Failed",
                    body: [.string("le-connection-abort-by-local")]))
        #expect(error.remoteError == .remote(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local"))
        #expect(
            DBusMessage(kind: .error, errorName: "a.B", body: [.int32(1)]).remoteError
                == .remote(name: "a.B", message: ""))
        #expect(DBusMessage(kind: .error).remoteError == .remote(name: "", message: ""))
    }

    @Test func signalIsABroadcast() throws {
        let signal = try DBusMessage.signal(
            path: adapter, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            body: [
                .string("org.bluez.Adapter1"), .stringVariantDictionary(["Discovering": .boolean(true)]),
                .array(.string, []),
            ])
        #expect(signal.kind == .signal)
        #expect(signal.destination == nil)
        #expect(signal.signature.rawValue == "sa{sv}as")
    }

    @Test func descriptions() throws {
        #expect(DBusMessage.Kind.methodCall.description == "method call")
        #expect(DBusMessage.Kind.methodReturn.description == "method return")
        #expect(DBusMessage.Kind.error.description == "error")
        #expect(DBusMessage.Kind.signal.description == "signal")
        var call = try DBusMessage.methodCall(
            destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1", member: "StartDiscovery")
        call.serial = 5
        #expect(call.description == "method call #5 → org.bluez /org/bluez/hci0 org.bluez.Adapter1.StartDiscovery()")
        let bare = try DBusMessage.methodCall(
            destination: nil, path: .root, interface: nil, member: "Ping", body: [.int32(1), .string("a")])
        #expect(bare.description == #"method call / Ping(1, "a")"#)
        let error = DBusMessage(
            kind: .error, serial: 9, replySerial: 5, sender: ":1.2", errorName: "org.bluez.Error.Failed",
            body: [.string("x")])
        #expect(error.description == #"error #9 reply to #5 from :1.2 org.bluez.Error.Failed("x")"#)
        let odd = DBusMessage(kind: .signal, interface: "a.b")
        #expect(odd.description == "signal a.b()")
    }

    @Test func writingRefusesInvalidOrMissingHeaderFields() throws {
        let cases: [(DBusMessage, String)] = [
            (DBusMessage(kind: .methodCall, member: "Ping"), "a D-Bus method call needs an object path"),
            (DBusMessage(kind: .methodCall, path: .root), "a D-Bus method call needs a member name"),
            (DBusMessage(kind: .signal, interface: "a.b", member: "S"), "a D-Bus signal needs an object path"),
            (DBusMessage(kind: .signal, path: .root, member: "S"), "a D-Bus signal needs an interface name"),
            (DBusMessage(kind: .signal, path: .root, interface: "a.b"), "a D-Bus signal needs a member name"),
            (DBusMessage(kind: .error, replySerial: 1), "a D-Bus error needs an error name"),
            (DBusMessage(kind: .error, errorName: "a.B"), "a D-Bus error needs a reply serial"),
            (DBusMessage(kind: .methodReturn), "a D-Bus method return needs a reply serial"),
            (DBusMessage(kind: .methodReturn, replySerial: 0), "a D-Bus reply serial cannot be 0"),
            (
                DBusMessage(kind: .methodReturn, replySerial: 1, sender: "x"),
                "invalid D-Bus bus name \"x\": it needs at least two elements separated by '.'"
            ),
            (
                DBusMessage(kind: .methodReturn, replySerial: 1, destination: ":1"),
                "invalid D-Bus bus name \":1\": it needs at least two elements separated by '.'"
            ),
            (
                DBusMessage(kind: .methodCall, path: .root, interface: "a", member: "M"),
                "invalid D-Bus interface name \"a\": it needs at least two elements separated by '.'"
            ),
            (
                DBusMessage(kind: .methodCall, path: .root, member: "a.b"),
                "invalid D-Bus member name \"a.b\": '.' is not allowed (only A-Z a-z 0-9 _)"
            ),
            (
                DBusMessage(kind: .error, replySerial: 1, errorName: "E"),
                "invalid D-Bus error name \"E\": it needs at least two elements separated by '.'"
            ),
            (
                DBusMessage(
                    kind: .signal, path: try DBusObjectPath("/org/freedesktop/DBus/Local"), interface: "a.b",
                    member: "S"),
                "/org/freedesktop/DBus/Local and org.freedesktop.DBus.Local are reserved for libdbus's own local messages"
            ),
            (
                DBusMessage(kind: .signal, path: .root, interface: "org.freedesktop.DBus.Local", member: "S"),
                "/org/freedesktop/DBus/Local and org.freedesktop.DBus.Local are reserved for libdbus's own local messages"
            ),
        ]
        for (message, reason) in cases {
            #expect(throws: DBusError.invalidArgument(reason)) { try message.wireBytes() }
            #expect(throws: DBusError.invalidArgument(reason)) { try message.makeLibDBusMessage() }
        }
    }

    @Test func decodeArgumentsWithParameterPacks() throws {
        let device = try DBusObjectPath("/org/bluez/hci0/dev_AA")
        let added = try DBusMessage.signal(
            path: .root, interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded",
            body: [
                .objectPath(device),
                .dictionary(
                    key: .string, value: .dictionary(key: .string, value: .variant),
                    [
                        DBusDictionaryEntry(
                            key: .string("org.bluez.Device1"), value: .stringVariantDictionary(["RSSI": .int16(-60)]))
                    ]),
            ])
        let (path, interfaces) = try added.decodeArguments(as: DBusObjectPath.self, [String: [String: DBusValue]].self)
        #expect(path == device)
        #expect(interfaces == ["org.bluez.Device1": ["RSSI": .int16(-60)]])
        let (onlyPath) = try added.decodeArguments(as: DBusObjectPath.self)
        #expect(onlyPath == device, "later arguments are ignored")
        #expect(throws: DBusDecodingError.missingArguments(expected: 3, found: 2)) {
            try added.decodeArguments(as: DBusObjectPath.self, [String: [String: DBusValue]].self, String.self)
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "a{sa{ss}}", found: "a{sa{sv}}", at: "argument 1")) {
            try added.decodeArguments(as: DBusObjectPath.self, [String: [String: String]].self)
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "s", found: "o", at: "argument 0")) {
            try added.decodeArguments(as: String.self, [String: [String: DBusValue]].self)
        }
        let illTyped = DBusMessage(
            kind: .signal,
            body: [
                .int32(1),
                .dictionary(
                    key: .string, value: .dictionary(key: .string, value: .variant),
                    [
                        DBusDictionaryEntry(
                            key: .string("org.bluez.Device1"),
                            value: .dictionary(
                                key: .string, value: .variant,
                                [
                                    DBusDictionaryEntry(key: .string("RSSI"), value: .int16(-60))
                                ]))
                    ]),
            ])
        #expect(
            throws: DBusDecodingError.typeMismatch(
                expected: "v", found: "n", at: "argument 1 › key \"org.bluez.Device1\" › key \"RSSI\"")
        ) {
            try illTyped.decodeArguments(as: Int32.self, [String: [String: DBusValue]].self)
        }
        let empty = DBusMessage(kind: .methodReturn, replySerial: 1)
        let none: Void = try empty.decodeArguments()
        _ = none
    }

    @Test func decodeOneArgument() throws {
        let message = DBusMessage(kind: .methodReturn, replySerial: 1, body: [.variant(.uint32(7)), .string("x")])
        #expect(try message.decodeArgument(DBusValue.self, at: 0) == .uint32(7))
        #expect(try message.decodeArgument(String.self, at: 1) == "x")
        #expect(throws: DBusDecodingError.missingArguments(expected: 3, found: 2)) {
            try message.decodeArgument(String.self, at: 2)
        }
        #expect(throws: DBusDecodingError.invalidValue("argument index -1 is negative")) {
            try message.decodeArgument(String.self, at: -1)
        }
        #expect(throws: DBusDecodingError.typeMismatch(expected: "u", found: "v", at: "argument 0")) {
            try message.decodeArgument(UInt32.self, at: 0)
        }
    }
}
