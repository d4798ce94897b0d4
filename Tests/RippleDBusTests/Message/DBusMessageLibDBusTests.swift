import CDBus
import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing libdbus `DBusMessage*`s directly: file descriptors (which wire bytes cannot carry),
/// messages libdbus builds that RippleDBus would refuse to write, and bytes that are not a valid message.
@Suite struct DBusMessageLibDBusTests {
    @Test func fileDescriptorsCrossThroughALibDBusMessage() throws {
        let ends = try #require(closeOnExecPipe())
        defer { close(ends.readEnd) }
        _ = fcntl(ends.readEnd, F_SETFL, O_NONBLOCK)  // a leaked write end fails the test instead of blocking it
        try sendThroughALibDBusMessage(ends.writeEnd, readingFrom: ends.readEnd)
        close(ends.writeEnd)
        var byte: UInt8 = 0
        #expect(Glibc.read(ends.readEnd, &byte, 1) == 0, "every copy of the write end was closed: no descriptor leaked")
    }

    /// Sends a duplicate of `writeEnd` three times in a message through libdbus, reads the message back, and
    /// writes through each descriptor received; every object it makes is released when it returns.
    private func sendThroughALibDBusMessage(_ writeEnd: Int32, readingFrom readEnd: Int32) throws {
        let sent = try DBusFileDescriptor(duplicating: writeEnd)
        let message = DBusMessage(
            kind: .signal, path: .root, interface: "org.example.Pipes", member: "Opened",
            body: [.unixFD(sent), .array(.unixFD, [.unixFD(sent)]), .variant(.unixFD(sent))])
        let raw = try message.makeLibDBusMessage()
        defer { dbus_message_unref(raw) }
        #expect(dbus_message_contains_unix_fds(raw) != 0)
        let read = try DBusMessage(reading: raw)
        let body = read.body
        let received = [body[0].unixFD, body[1].arrayElements?.first?.unixFD, body[2].variantValue?.unixFD].compactMap {
            $0
        }
        try #require(received.count == 3)
        #expect(read.signature.rawValue == "hahv")
        for (index, descriptor) in received.enumerated() {
            #expect(descriptor !== sent)
            #expect(descriptor.fileDescriptor >= 0)
            #expect(descriptor.fileDescriptor != sent.fileDescriptor)
            let text = Array("through fd \(index)".utf8)
            #expect(text.withUnsafeBytes { write(descriptor.fileDescriptor, $0.baseAddress, $0.count) } == text.count)
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(readEnd, $0.baseAddress, $0.count) }
            #expect(count == text.count)
            #expect(Array(buffer.prefix(max(count, 0))) == text)
        }
        #expect(Set(received.map(\.fileDescriptor)).count == 3)
    }

    @Test func fileDescriptorsCannotBeWireBytes() throws {
        let ends = try #require(closeOnExecPipe())
        close(ends.writeEnd)
        let descriptor = DBusFileDescriptor(taking: ends.readEnd)
        let message = try DBusMessage.signal(path: .root, interface: "a.b", member: "S", body: [.unixFD(descriptor)])
        #expect(
            throws: DBusError.invalidArgument("a D-Bus message carrying file descriptors cannot be marshalled to bytes")
        ) {
            try message.wireBytes()
        }
        _ = descriptor.take().map(close)
        #expect(
            throws: DBusError.invalidArgument(
                "the D-Bus value at argument 0 cannot be written: the file descriptor was taken out of its DBusFileDescriptor"
            )
        ) {
            try message.makeLibDBusMessage()
        }
    }

    @Test func libdbusMessageHasTheHeaderAndBody() throws {
        var call = try DBusMessage.methodCall(
            destination: "org.bluez", path: DBusObjectPath("/org/bluez"), interface: "org.bluez.AgentManager1",
            member: "RegisterAgent", body: [.objectPath(DBusObjectPath("/agent")), .string("KeyboardDisplay")])
        call.serial = 21
        call.noReplyExpected = true
        let raw = try call.makeLibDBusMessage()
        defer { dbus_message_unref(raw) }
        #expect(dbus_message_get_type(raw) == DBUS_MESSAGE_TYPE_METHOD_CALL)
        #expect(dbus_message_get_serial(raw) == 21)
        #expect(String(cString: dbus_message_get_destination(raw)) == "org.bluez")
        #expect(String(cString: dbus_message_get_path(raw)) == "/org/bluez")
        #expect(String(cString: dbus_message_get_interface(raw)) == "org.bluez.AgentManager1")
        #expect(String(cString: dbus_message_get_member(raw)) == "RegisterAgent")
        #expect(String(cString: dbus_message_get_signature(raw)) == "os")
        #expect(dbus_message_get_no_reply(raw) != 0)
        #expect(dbus_message_get_auto_start(raw) != 0)
        #expect(try DBusMessage(reading: raw) == call)
        let unnumbered = try DBusMessage.signal(path: .root, interface: "a.b", member: "S").makeLibDBusMessage()
        defer { dbus_message_unref(unnumbered) }
        #expect(dbus_message_get_serial(unnumbered) == 0, "a connection numbers it when sending")
    }

    /// A libdbus message of `type` with whatever `build` puts in it.
    private func withRawMessage(
        type: Int32 = DBUS_MESSAGE_TYPE_SIGNAL, _ build: (OpaquePointer) throws -> Void
    ) throws {
        let raw = try #require(dbus_message_new(type))
        defer { dbus_message_unref(raw) }
        if type == DBUS_MESSAGE_TYPE_SIGNAL {
            dbus_message_set_path(raw, "/")
            dbus_message_set_interface(raw, "a.b")
            dbus_message_set_member(raw, "S")
        }
        try build(raw)
    }

    @Test func readingRefusesNestingLibDBusBuildsButTheSpecificationForbids() throws {
        try withRawMessage { raw in
            let iterators = UnsafeMutablePointer<DBusMessageIter>.allocate(capacity: 66)
            defer { iterators.deallocate() }
            iterators.initialize(repeating: DBusMessageIter(), count: 66)
            dbus_message_iter_init_append(raw, iterators)
            for level in 0..<65 {
                let contained = String(repeating: "v", count: 64 - level) + "i"
                #expect(
                    dbus_message_iter_open_container(
                        iterators + level, Int32(UInt8(ascii: "v")), contained, iterators + level + 1) != 0)
            }
            var seven: Int32 = 7
            #expect(dbus_message_iter_append_basic(iterators + 65, Int32(UInt8(ascii: "i")), &seven) != 0)
            for level in (0..<65).reversed() {
                #expect(dbus_message_iter_close_container(iterators + level, iterators + level + 1) != 0)
            }
            #expect(throws: DBusDecodingError.malformed("values nest more than 64 containers deep")) {
                try DBusMessage(reading: raw)
            }
            dbus_message_set_serial(raw, 1)
            var data: UnsafeMutablePointer<CChar>?
            var length: Int32 = 0
            try #require(dbus_message_marshal(raw, &data, &length) != 0)
            let bytes = Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
            dbus_free(data)
            #expect(
                throws: DBusDecodingError.malformed(
                    "Message is corrupted (Variants cannot be used to create a hugely recursive tree of values)")
            ) {
                try DBusMessage(wireBytes: bytes)
            }
        }
    }

    @Test func readingRefusesSignaturesLibDBusAcceptsButTheSpecificationForbids() throws {
        let tooDeep = "(" + String(repeating: "a", count: 32) + "y)"
        try withRawMessage { raw in
            var iterator = DBusMessageIter()
            var array = DBusMessageIter()
            dbus_message_iter_init_append(raw, &iterator)
            #expect(dbus_message_iter_open_container(&iterator, Int32(UInt8(ascii: "a")), tooDeep, &array) != 0)
            #expect(dbus_message_iter_close_container(&iterator, &array) != 0)
            #expect(
                throws: DBusDecodingError.malformed(
                    "the message's signature is invalid: arrays are nested more than 32 deep")
            ) {
                try DBusMessage(reading: raw)
            }
        }
        try withRawMessage { raw in
            var iterator = DBusMessageIter()
            dbus_message_iter_init_append(raw, &iterator)
            let signature = "a" + tooDeep
            signature.withCString { characters in
                var pointer: UnsafePointer<CChar>? = characters
                #expect(dbus_message_iter_append_basic(&iterator, Int32(UInt8(ascii: "g")), &pointer) != 0)
            }
            #expect(
                throws: DBusDecodingError.malformed(
                    "a signature value is invalid: invalid D-Bus signature \"\(signature)\": arrays are nested more than 32 deep"
                )
            ) {
                try DBusMessage(reading: raw)
            }
        }
    }

    @Test func readingRefusesHeadersAValidMessageCannotHave() throws {
        try withRawMessage { raw in
            dbus_message_set_sender(raw, ":1")
            #expect(
                throws: DBusDecodingError.malformed(
                    "the message's sender \":1\" is invalid: it needs at least two elements separated by '.'")
            ) {
                try DBusMessage(reading: raw)
            }
        }
        try withRawMessage(type: DBUS_MESSAGE_TYPE_METHOD_CALL) { raw in
            dbus_message_set_member(raw, "Ping")
            #expect(throws: DBusDecodingError.malformed("the D-Bus method call lacks an object path")) {
                try DBusMessage(reading: raw)
            }
        }
        try withRawMessage(type: 9) { raw in
            #expect(throws: DBusDecodingError.malformed("unknown D-Bus message type 9")) {
                try DBusMessage(reading: raw)
            }
        }
    }

    @Test func bigEndianMessagesReadTheSame() throws {
        let bytes: [UInt8] = [
            UInt8(ascii: "B"), 4, 0, 1, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 57,
            1, 1, UInt8(ascii: "o"), 0, 0, 0, 0, 1, UInt8(ascii: "/"), 0, 0, 0, 0, 0, 0, 0,
            2, 1, UInt8(ascii: "s"), 0, 0, 0, 0, 3, UInt8(ascii: "a"), UInt8(ascii: "."), UInt8(ascii: "b"), 0, 0, 0, 0,
            0,
            3, 1, UInt8(ascii: "s"), 0, 0, 0, 0, 1, UInt8(ascii: "S"), 0, 0, 0, 0, 0, 0, 0,
            8, 1, UInt8(ascii: "g"), 0, 3, UInt8(ascii: "u"), UInt8(ascii: "a"), UInt8(ascii: "n"), 0, 0, 0, 0, 0, 0, 0,
            0,
            1, 2, 3, 4, 0, 0, 0, 4, 0, 1, 0xff, 0xfe,
        ]
        #expect(
            try DBusMessage(wireBytes: bytes)
                == DBusMessage(
                    kind: .signal, serial: 1, path: .root, interface: "a.b", member: "S",
                    body: [.uint32(0x0102_0304), .array(.int16, [.int16(1), .int16(-2)])]))
    }

    @Test func bytesThatAreNotOneMessage() throws {
        let valid = try DBusMessage.signal(path: .root, interface: "a.b", member: "S", body: [.boolean(true)])
            .wireBytes()
        let cases: [([UInt8], String)] = [
            ([], "no bytes: a D-Bus message has at least 16"),
            (Array(valid.prefix(10)), "10 bytes are too few to hold a D-Bus message header"),
            (Array(repeating: UInt8(ascii: "X"), count: 32), "the bytes do not begin a valid D-Bus message header"),
            (Array(valid.dropLast(2)), "the message is truncated: \(valid.count - 2) of its \(valid.count) bytes"),
            (valid + [0, 0, 0], "3 bytes follow the \(valid.count)-byte message"),
            (Array(valid.dropLast(4)) + [2, 0, 0, 0], "Message is corrupted (Boolean is not zero or one)"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: DBusDecodingError.malformed(reason)) { try DBusMessage(wireBytes: bytes) }
        }
        #expect(throws: DBusDecodingError.malformed("134217729 bytes are more than a D-Bus message may have")) {
            try DBusMessage(wireBytes: [UInt8](repeating: 0, count: DBusMessage.maximumLength + 1))
        }
    }

    @Test func aFileDescriptorArgumentWithoutItsDescriptor() throws {
        var bytes = try DBusMessage.signal(path: .root, interface: "a.b", member: "S", body: [.uint32(0)]).wireBytes()
        let signatureField: [UInt8] = [8, 1, UInt8(ascii: "g"), 0, 1, UInt8(ascii: "u"), 0]
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: signatureField) })
        bytes[start + 5] = UInt8(ascii: "h")
        #expect(
            throws: DBusDecodingError.malformed(
                "a file descriptor argument refers to a descriptor the message does not carry")
        ) {
            try DBusMessage(wireBytes: bytes)
        }
    }
}
