import Testing

@testable import RippleDBus

@Suite struct DBusSignalNameTests {
    static let path = (try? DBusObjectPath("/com/example/Sensor")) ?? .root

    @Test func aSignalNameKeepsTheNamesItValidated() throws {
        let name = try DBusSignalName(interface: "com.example.Sensor", member: "Reading")
        #expect(name.interface == "com.example.Sensor")
        #expect(name.member == "Reading")
        #expect(name.description == "com.example.Sensor.Reading")
        #expect(
            DBusSignalName.propertiesChanged
                == (try DBusSignalName(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")))
        #expect(
            DBusSignalName.interfacesAdded
                == (try DBusSignalName(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesAdded")))
        #expect(
            DBusSignalName.interfacesRemoved
                == (try DBusSignalName(interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved")))
    }

    @Test func anInvalidNameIsRefusedWhenTheSignalNameIsMade() {
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus interface name \"sensor\": it needs at least two elements separated by '.'")
        ) { try DBusSignalName(interface: "sensor", member: "Reading") }
        #expect(
            throws: DBusError.invalidArgument(
                "invalid D-Bus member name \"Read.ing\": '.' is not allowed (only A-Z a-z 0-9 _)")
        ) { try DBusSignalName(interface: "com.example.Sensor", member: "Read.ing") }
        #expect(
            throws: DBusError.invalidArgument(
                "org.freedesktop.DBus.Local is reserved for libdbus's own local messages")
        ) { try DBusSignalName(interface: "org.freedesktop.DBus.Local", member: "Disconnected") }
    }

    @Test func aSignalByItsNameArrivesAsOneByItsStringsDoes() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let emitter = try bus.connect()
        let recorder = Recorder(listener.signals(interface: "com.example.Sensor", member: "Reading"))
        try await listener.settle()
        let reading = try DBusSignalName(interface: "com.example.Sensor", member: "Reading")
        try emitter.emitSignal(path: Self.path, reading, arguments: [.int32(1)])
        try emitter.emitSignal(
            path: Self.path, interface: "com.example.Sensor", member: "Reading", arguments: [.int32(2)])
        // The body is still checked: a value that cannot be written throws, and nothing goes out.
        #expect(throws: DBusError.self) { try emitter.emitSignal(path: Self.path, reading, arguments: [.string("\0")]) }
        #expect(throws: DBusError.self) {
            try emitter.emitSignal(path: DBusObjectPath("/org/freedesktop/DBus/Local"), reading)
        }
        try emitter.emitSignal(path: Self.path, reading, arguments: [.int32(3)])
        await recorder.waitForValues(3)
        try await listener.settle()
        #expect(recorder.values.map(\.body) == [[.int32(1)], [.int32(2)], [.int32(3)]])
        #expect(
            recorder.values.allSatisfy {
                $0.kind == .signal && $0.path == Self.path && $0.interface == "com.example.Sensor"
                    && $0.member == "Reading" && $0.destination == nil
            })
    }

    @Test func aSignalMessageByItsNameHasItsFields() throws {
        let message = DBusMessage.signal(path: Self.path, .propertiesChanged, body: [.string("x")])
        #expect(
            message
                == DBusMessage(
                    kind: .signal, path: Self.path, interface: "org.freedesktop.DBus.Properties",
                    member: "PropertiesChanged", body: [.string("x")]))
    }
}
