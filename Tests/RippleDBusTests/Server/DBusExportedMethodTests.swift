import Dispatch
import Ripple
import RippleLoop
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleDBus

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DBusExportedMethodTests {
    static let interface = "com.example.Calculator"

    /// An object with methods answered synchronously and asynchronously.
    static func calculator(extra: [DBusMethod] = []) throws -> DBusExportedObject {
        try DBusExportedObject(
            path: .test("/com/example/calc"),
            interfaces: [
                DBusInterface(
                    name: interface,
                    methods: [
                        DBusMethod(name: "Add", inputSignature: .test("ii"), outputSignature: .test("i")) { call in
                            guard case .int32(let a) = call.arguments[0], case .int32(let b) = call.arguments[1] else {
                                return []
                            }
                            return [.int32(a &+ b)]
                        },
                        DBusMethod(name: "Describe", inputSignature: .test("s"), outputSignature: .test("ss")) { call in
                            [.string(call.interface), .string(call.member + ":" + (call.arguments[0].string ?? ""))]
                        },
                        DBusMethod(name: "Refuse") { _ throws(DBusError) in
                            throw .remote(name: "com.example.Error.Refused", message: "not today")
                        },
                        DBusMethod(name: "Break") { _ throws(DBusError) in
                            throw .timedOut
                        },
                        DBusMethod(name: "Lie", outputSignature: .test("i")) { _ in [.string("not an int")] },
                        DBusMethod(name: "LaterAdd", inputSignature: .test("ii"), outputSignature: .test("i")) {
                            invocation in
                            let arguments = invocation.call.arguments
                            DispatchQueue.global().async {
                                guard case .int32(let a) = arguments[0], case .int32(let b) = arguments[1] else {
                                    return
                                }
                                invocation.reply([.int32(a &* b)])
                                invocation.reply([.int32(0)])
                                invocation.fail(.timedOut)
                            }
                        },
                        DBusMethod(name: "LaterRefuse") { invocation in
                            DispatchQueue.global().async {
                                invocation.fail(.remote(name: "com.example.Error.Later", message: "no"))
                            }
                        },
                        DBusMethod(name: "LaterLie", outputSignature: .test("s")) { invocation in
                            invocation.reply([.uint32(1)])
                        },
                        DBusMethod(name: "Forget") { _ in },
                    ] + extra)
            ])
    }

    @Test func synchronousHandlersReplyTheirResults() async throws {
        let pair = try ServerPair()
        try pair.server.export(Self.calculator())
        #expect(
            try await pair.call("/com/example/calc", Self.interface, "Add", [.int32(40), .int32(2)]) == [.int32(42)])
        #expect(
            try await pair.call("/com/example/calc", Self.interface, "Describe", [.string("x")])
                == [.string(Self.interface), .string("Describe:x")])
        // Without an interface, the method is found in the object's interfaces.
        #expect(try await pair.call("/com/example/calc", nil, "Add", [.int32(1), .int32(2)]) == [.int32(3)])
    }

    @Test func asynchronousHandlersReplyFromAnotherThreadOnce() async throws {
        let pair = try ServerPair()
        try pair.server.export(Self.calculator())
        #expect(
            try await pair.call("/com/example/calc", Self.interface, "LaterAdd", [.int32(6), .int32(7)]) == [.int32(42)]
        )
        #expect(
            try await pair.error("/com/example/calc", Self.interface, "LaterRefuse")
                == .remote(name: "com.example.Error.Later", message: "no"))
        // The later completions were ignored: the next call gets its own answer.
        #expect(
            try await pair.call("/com/example/calc", Self.interface, "LaterAdd", [.int32(2), .int32(3)]) == [.int32(6)])
    }

    @Test func errorsAreRepliedWithTheirNames() async throws {
        let pair = try ServerPair()
        try pair.server.export(Self.calculator())
        let path = "/com/example/calc"
        #expect(
            try await pair.error(path, Self.interface, "Refuse")
                == .remote(name: "com.example.Error.Refused", message: "not today"))
        #expect(
            try await pair.error(path, Self.interface, "Break")
                == .remote(name: "org.freedesktop.DBus.Error.Failed", message: DBusError.timedOut.description))
        #expect(
            try await pair.errorName(path, Self.interface, "Add", [.int32(1)])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(
            try await pair.errorName(path, Self.interface, "Add", [.int32(1), .string("2")])
                == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(try await pair.errorName(path, Self.interface, "Lie") == "org.freedesktop.DBus.Error.Failed")
        #expect(try await pair.errorName(path, Self.interface, "LaterLie") == "org.freedesktop.DBus.Error.Failed")
        #expect(try await pair.errorName(path, Self.interface, "Forget") == "org.freedesktop.DBus.Error.NoReply")
        #expect(try await pair.errorName(path, Self.interface, "Missing") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(try await pair.errorName(path, nil, "Missing") == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(
            try await pair.errorName(path, "com.example.Other", "Add", [.int32(1), .int32(2)])
                == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(
            try await pair.errorName(path, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
                == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(
            try await pair.errorName("/com/example/nothing", Self.interface, "Add", [.int32(1), .int32(2)])
                == "org.freedesktop.DBus.Error.UnknownObject")
        // A node above an object answers Introspect only.
        #expect(
            try await pair.errorName("/com/example", Self.interface, "Add", [.int32(1), .int32(2)])
                == "org.freedesktop.DBus.Error.UnknownObject")
        // Still alive after all that.
        #expect(try await pair.call(path, Self.interface, "Add", [.int32(1), .int32(1)]) == [.int32(2)])
    }

    @Test func exportingTwiceAtAPathThrowsAndUnexportingForgetsTheObject() async throws {
        let pair = try ServerPair()
        let object = try Self.calculator()
        try pair.server.export(object)
        #expect(object.isExported)
        #expect(pair.server.exportedObject(at: object.path) === object)
        #expect(throws: DBusError.self) { try pair.server.export(Self.calculator()) }
        // Exported on one connection, it cannot be exported on another.
        let other = try pair.bus.connect()
        #expect(throws: DBusError.self) { try other.export(object) }
        #expect(pair.server.unexport(object.path))
        #expect(!pair.server.unexport(object.path))
        #expect(!object.isExported)
        #expect(
            try await pair.errorName("/com/example/calc", Self.interface, "Add", [.int32(1), .int32(2)])
                == "org.freedesktop.DBus.Error.UnknownObject")
        try other.export(object)
        #expect(object.isExported)
    }

    @Test func invalidInterfacesAreRefused() throws {
        let path = DBusObjectPath.test("/a")
        #expect(throws: DBusError.self) { try DBusExportedObject(path: path, interfaces: [DBusInterface(name: "bad")]) }
        #expect(throws: DBusError.self) {
            try DBusExportedObject(path: path, interfaces: [DBusInterface(name: "org.freedesktop.DBus.Properties")])
        }
        #expect(throws: DBusError.self) {
            try DBusExportedObject(path: path, interfaces: [DBusInterface(name: "a.b"), DBusInterface(name: "a.b")])
        }
        #expect(throws: DBusError.self) {
            try DBusExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        name: "a.b", properties: [DBusProperty(name: "P", type: .string, initialValue: .int32(1))])
                ])
        }
        #expect(throws: DBusError.self) {
            try DBusExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        name: "a.b", methods: [DBusMethod(name: "M") { _ in [] }, DBusMethod(name: "M") { _ in [] }])
                ])
        }
        let object = try DBusExportedObject(path: path, interfaces: [DBusInterface(name: "a.b")])
        #expect(throws: DBusError.self) { try object.addInterface(DBusInterface(name: "a.b")) }
        #expect(object.interfaceNames == ["a.b"])
    }

    @Test func aHandlerMayUseTheConnectionReentrantly() async throws {
        let pair = try ServerPair()
        let server = pair.server
        let object = try DBusExportedObject(
            path: .test("/re"),
            interfaces: [
                DBusInterface(
                    name: "com.example.Re",
                    methods: [
                        DBusMethod(name: "Poke", outputSignature: .test("s")) { call throws(DBusError) in
                            try call.object.emitSignal(
                                interface: "com.example.Re", member: "Poked", arguments: [.int32(1)])
                            try server.emitSignal(
                                path: call.object.path, interface: "com.example.Re", member: "Poked",
                                arguments: [.int32(2)])
                            try call.object.setProperty("Count", of: "com.example.Re", to: .int32(1))
                            return [.string("poked")]
                        },
                        // Calls the bus from inside the handler and answers with what the bus said.
                        DBusMethod(name: "AskBus", outputSignature: .test("s")) { invocation in
                            let box = LockedBox<AnyCancellable?>(nil)
                            box.value = server.call(
                                destination: "org.freedesktop.DBus", path: .test("/org/freedesktop/DBus"),
                                interface: "org.freedesktop.DBus", member: "GetId"
                            ).sink(
                                receiveCompletion: { completion in
                                    if case .failure(let error) = completion { invocation.fail(error) }
                                    box.value = nil
                                },
                                receiveValue: { reply in invocation.reply(reply.body) })
                        },
                    ],
                    properties: [DBusProperty(name: "Count", initialValue: .int32(0))])
            ])
        try server.export(object)
        let poked = try await pair.signals("com.example.Re", "Poked")
        let changed = try await pair.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
        #expect(try await pair.call("/re", "com.example.Re", "Poke") == [.string("poked")])
        // Sent before the reply, so received before it.
        #expect(poked.values.map(\.body) == [[.int32(1)], [.int32(2)]])
        #expect(
            changed.values.map(\.body) == [
                [
                    .string("com.example.Re"), .stringVariantDictionary(["Count": .int32(1)]), .array(.string, []),
                ]
            ])
        let id = try await pair.client.callBus("GetId").body
        #expect(try await pair.call("/re", "com.example.Re", "AskBus") == id)
    }

    @Test func fileDescriptorsPassBothWays() async throws {
        let pair = try ServerPair()
        let kept = LockedBox<Int32>(-1)
        let object = try DBusExportedObject(
            path: .test("/fd"),
            interfaces: [
                DBusInterface(
                    name: "com.example.Pipes",
                    methods: [
                        // Writes a greeting into the descriptor it is given.
                        DBusMethod(name: "Fill", inputSignature: .test("h")) { call throws(DBusError) in
                            guard let fd = call.arguments[0].unixFD else { throw .invalidArgument("no fd") }
                            let written = Array("from server".utf8).withUnsafeBytes {
                                write(fd.fileDescriptor, $0.baseAddress, $0.count)
                            }
                            guard written == 11 else { throw .invalidArgument("write failed") }
                            return []
                        },
                        // Returns the write end of a pipe whose read end the test keeps.
                        DBusMethod(name: "Open", outputSignature: .test("h")) { _ throws(DBusError) in
                            guard let ends = closeOnExecPipe() else { throw .invalidArgument("pipe failed") }
                            defer { close(ends.writeEnd) }
                            kept.value = ends.readEnd
                            return [.unixFD(try DBusFileDescriptor(duplicating: ends.writeEnd))]
                        },
                    ])
            ])
        try pair.server.export(object)

        let ends = try #require(closeOnExecPipe())
        let writeEnd = try DBusFileDescriptor(duplicating: ends.writeEnd)
        close(ends.writeEnd)
        #expect(try await pair.call("/fd", "com.example.Pipes", "Fill", [.unixFD(writeEnd)]) == [])
        #expect(readAll(ends.readEnd, count: 11) == "from server")
        close(ends.readEnd)

        let reply = try await pair.call("/fd", "com.example.Pipes", "Open")
        let received = try #require(reply.first?.unixFD)
        let written = Array("from client".utf8).withUnsafeBytes {
            write(received.fileDescriptor, $0.baseAddress, $0.count)
        }
        #expect(written == 11)
        let readEnd = kept.value
        #expect(readEnd >= 0)
        #expect(readAll(readEnd, count: 11) == "from client")
        close(readEnd)
    }

    private func readAll(_ fd: Int32, count: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: count)
        var total = 0
        while total < count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + total }, count - total) }
            guard got > 0 else { break }
            total += got
        }
        return String(decoding: bytes.prefix(total), as: UTF8.self)
    }
}
