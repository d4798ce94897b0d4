import Ripple
import RippleDBus
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

/// A simulator that records what it is asked; only `C0:FF:EE:00:00:01` and adapter `hci0` exist.
private final class RecordingSimulator: SimulatorScripting {
    enum Call: Equatable, Sendable {
        case disconnect(BluetoothAddress, DisconnectReason)
        case setInRange(Bool, BluetoothAddress)
        case setPowered(Bool, String)
        case notify(BluetoothAddress, BluetoothUUID, [UInt8])
        case inject(OperationFault, SimulatedOperation, BluetoothAddress, Int?)
        case clearFaults(BluetoothAddress)
        case restart(Duration)
    }

    static let known: BluetoothAddress = "C0:FF:EE:00:00:01"
    private let recorded = LockedBox<[Call]>()
    let statistics = SimulatorStatistics()

    var calls: [Call] { recorded.value }

    private func record(_ call: Call, peripheral: BluetoothAddress? = nil) throws(SimulatorError) {
        if let peripheral, peripheral != Self.known { throw .unknownPeripheral(peripheral) }
        recorded.append(call)
    }

    func disconnect(peripheral: BluetoothAddress, reason: DisconnectReason) async throws(SimulatorError) {
        try record(.disconnect(peripheral, reason), peripheral: peripheral)
    }

    func setInRange(_ inRange: Bool, peripheral: BluetoothAddress) async throws(SimulatorError) {
        try record(.setInRange(inRange, peripheral), peripheral: peripheral)
    }

    func setPowered(_ powered: Bool, adapter: String) async throws(SimulatorError) {
        guard adapter == "hci0" else { throw .invalidWorld("no adapter is named \(adapter)") }
        try record(.setPowered(powered, adapter))
    }

    func notify(peripheral: BluetoothAddress, characteristic: BluetoothUUID, value: [UInt8])
        async throws(SimulatorError)
    {
        // Yield a few times so that a service running calls concurrently would reorder them.
        for _ in 0..<Int(value.first ?? 0) % 4 { await Task.yield() }
        try record(.notify(peripheral, characteristic, value), peripheral: peripheral)
    }

    func inject(_ fault: OperationFault, on operation: SimulatedOperation, of peripheral: BluetoothAddress, times: Int?)
        async throws(SimulatorError)
    {
        try record(.inject(fault, operation, peripheral, times), peripheral: peripheral)
    }

    func clearFaults(of peripheral: BluetoothAddress) async throws(SimulatorError) {
        try record(.clearFaults(peripheral), peripheral: peripheral)
    }

    func restart(downtime: Duration) async throws(SimulatorError) {
        try record(.restart(downtime))
    }
}

/// A private bus, a loop thread, a recording simulator, its control service, and a plain client.
private final class ControlFixture: Sendable {
    let daemon: PrivateDBusDaemon
    let loopThread: EventLoopThread
    let simulator = RecordingSimulator()
    let service: SimulatorControlService
    let client: DBusConnection

    init() async throws {
        daemon = try PrivateDBusDaemon()
        loopThread = try EventLoopThread(name: "control-test-loop")
        service = SimulatorControlService(simulator: simulator, bus: daemon.bus, loop: loopThread.loop)
        try await service.start()
        client = try DBusConnection(bus: daemon.bus, loop: loopThread.loop)
    }

    deinit {
        client.close()
        daemon.stop()
        loopThread.stop()
    }

    func callPublisher(
        _ member: String, _ arguments: [DBusValue], timeout: Duration = DBusConnection.defaultCallTimeout
    ) throws -> AnyPublisher<DBusMessage, DBusError> {
        client.call(
            destination: SimulatorControlService.busName,
            path: try DBusObjectPath(SimulatorControlService.objectPathString),
            interface: SimulatorControlService.interfaceName, member: member, arguments: arguments, timeout: timeout
        ).eraseToAnyPublisher()
    }

    @discardableResult
    func call(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] {
        try await callPublisher(member, arguments).firstValue.body
    }

    /// The D-Bus error a call fails with, or nil when it succeeds.
    func failure(_ member: String, _ arguments: [DBusValue]) async throws -> DBusError? {
        do {
            try await call(member, arguments)
            return nil
        } catch let error as DBusError {
            return error
        }
    }
}

private func options(_ values: [String: DBusValue]) -> DBusValue {
    .stringVariantDictionary(values)
}

private let address: DBusValue = .string("c0:ff:ee:00:00:01")

@Suite struct SimulatorControlServiceTests {
    @Test func ownsItsNameAndStopsOwningIt() async throws {
        let fixture = try await ControlFixture()
        #expect(fixture.service.isRunning)
        let owner = try await fixture.client.call(
            destination: "org.freedesktop.DBus", path: try DBusObjectPath("/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "GetNameOwner",
            arguments: [.string(SimulatorControlService.busName)]
        ).firstValue
        #expect(owner.body == [.string(fixture.service.uniqueName ?? "")])
        try await fixture.service.start()  // already started: nothing happens
        await fixture.service.stop()
        #expect(!fixture.service.isRunning)
        #expect(fixture.service.uniqueName == nil)
        let hasOwner = try await fixture.client.call(
            destination: "org.freedesktop.DBus", path: try DBusObjectPath("/org/freedesktop/DBus"),
            interface: "org.freedesktop.DBus", member: "NameHasOwner",
            arguments: [.string(SimulatorControlService.busName)]
        ).firstValue
        #expect(hasOwner.body == [.boolean(false)])
        await fixture.service.stop()  // already stopped: nothing happens
    }

    @Test func aSecondServiceCannotTakeTheName() async throws {
        let fixture = try await ControlFixture()
        let second = SimulatorControlService(
            simulator: RecordingSimulator(), bus: fixture.daemon.bus, loop: fixture.loopThread.loop)
        await #expect(
            throws: SimulatorError.bus(
                .remote(
                    name: "org.freedesktop.DBus.Error.AddressInUse",
                    message: "org.ripple.BlueZSimulator is owned by another connection"))
        ) {
            try await second.start()
        }
        #expect(!second.isRunning)
    }

    @Test func anUnreachableBusFailsToStart() async throws {
        let loop = try EventLoopThread(name: "control-test-loop")
        defer { loop.stop() }
        let service = SimulatorControlService(
            simulator: RecordingSimulator(), bus: .address("unix:path=/nonexistent/ripple-bus"), loop: loop.loop)
        await #expect {
            try await service.start()
        } throws: { error in
            guard case .bus = error as? SimulatorError else { return false }
            return true
        }
    }

    @Test func scriptingCallsReachTheSimulator() async throws {
        let fixture = try await ControlFixture()
        try await fixture.call("Disconnect", [address, .string("")])
        try await fixture.call("Disconnect", [address, .string("timeout")])
        try await fixture.call("Disconnect", [address, .string("org.bluez.Reason.Local")])
        try await fixture.call("SetInRange", [address, .boolean(false)])
        try await fixture.call("SetPowered", [.string("hci0"), .boolean(false)])
        try await fixture.call("Notify", [address, .string("2a19"), .bytes([42])])
        try await fixture.call("ClearFaults", [address])
        try await fixture.call("Restart", [.double(0.25)])
        let known = RecordingSimulator.known
        #expect(
            fixture.simulator.calls == [
                .disconnect(known, .remote), .disconnect(known, .timeout), .disconnect(known, .local),
                .setInRange(false, known), .setPowered(false, "hci0"), .notify(known, 0x2A19, [42]),
                .clearFaults(known), .restart(.milliseconds(250)),
            ])
    }

    @Test func faultsAreReadFromTheirOptions() async throws {
        let fixture = try await ControlFixture()
        let uuid: DBusValue = .string("2a37")
        try await fixture.call(
            "InjectFault", [address, .string("connect"), .string(""), .string("fail"), options([:])])
        try await fixture.call(
            "InjectFault",
            [
                address, .string("read"), uuid, .string("fail"),
                options([
                    "error": .string("NotPermitted"),
                    "message": .string("Read not permitted"), "times": .uint32(2),
                ]),
            ])
        try await fixture.call(
            "InjectFault", [address, .string("write"), uuid, .string("fail"), options(["att": .byte(0x80)])])
        try await fixture.call(
            "InjectFault", [address, .string("start-notify"), uuid, .string("delay"), options(["delay": .double(1.5)])])
        try await fixture.call(
            "InjectFault",
            [
                address, .string("acquire-notify"), uuid, .string("fail-after"),
                options(["delay": .int32(2), "error": .string("org.bluez.Error.NotReady")]),
            ])
        try await fixture.call(
            "InjectFault",
            [
                address, .string("pair"), .string(""), .string("disconnect"),
                options(["reason": .string("authentication")]),
            ])
        try await fixture.call(
            "InjectFault",
            [
                address, .string("connect"), .string(""), .string("connect-without-connected-signal"),
                options(["times": .int64(1)]),
            ])
        for (operation, expected) in [
            ("disconnect", SimulatedOperation.disconnect), ("stop-notify", .stopNotify(0x2A37)),
            ("acquire-write", .acquireWrite(0x2A37)), ("read-descriptor", .readDescriptor(0x2A37)),
            ("write-descriptor", .writeDescriptor(0x2A37)),
        ] {
            let attribute: DBusValue = expected == .disconnect ? .string("") : uuid
            try await fixture.call(
                "InjectFault",
                [address, .string(operation), attribute, .string("fail"), options(["error": .string("Failed")])])
        }
        let known = RecordingSimulator.known
        let failed = BlueZError.failed("Operation failed")
        #expect(
            fixture.simulator.calls == [
                .inject(.fail(failed), .connect, known, nil),
                .inject(.fail(.notPermitted("Read not permitted")), .read(0x2A37), known, 2),
                .inject(.fail(.failed("Operation failed with ATT error: 0x80")), .write(0x2A37), known, nil),
                .inject(.delay(.milliseconds(1500)), .startNotify(0x2A37), known, nil),
                .inject(.failAfter(.seconds(2), .notReady), .acquireNotify(0x2A37), known, nil),
                .inject(.disconnect(.authentication), .pair, known, nil),
                .inject(.connectWithoutConnectedSignal, .connect, known, 1),
                .inject(.fail(failed), .disconnect, known, nil),
                .inject(.fail(failed), .stopNotify(0x2A37), known, nil),
                .inject(.fail(failed), .acquireWrite(0x2A37), known, nil),
                .inject(.fail(failed), .readDescriptor(0x2A37), known, nil),
                .inject(.fail(failed), .writeDescriptor(0x2A37), known, nil),
            ])
    }

    @Test func malformedArgumentsAreRefusedSayingWhy() async throws {
        let fixture = try await ControlFixture()
        let invalid = "org.ripple.BlueZSimulator.Error.InvalidArguments"
        func expectInvalid(
            _ member: String, _ arguments: [DBusValue], _ message: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let error = try await fixture.failure(member, arguments)
            #expect(error == .remote(name: invalid, message: message), sourceLocation: sourceLocation)
        }
        try await expectInvalid(
            "Disconnect", [.string("nope"), .string("")], #""nope" is not a device address (XX:XX:XX:XX:XX:XX)"#)
        try await expectInvalid(
            "Disconnect", [address, .string("bored")],
            #""bored" is not a disconnect reason (unknown, timeout, local, remote, authentication, suspend, or org.bluez.Reason.*)"#
        )
        try await expectInvalid("Notify", [address, .string("2g37"), .bytes([])], #""2g37" is not a UUID"#)
        try await expectInvalid(
            "InjectFault", [address, .string("explode"), .string(""), .string("fail"), options([:])],
            #""explode" is not an operation (connect, disconnect, pair, read, write, start-notify, stop-notify, acquire-notify, acquire-write, read-descriptor, write-descriptor)"#
        )
        try await expectInvalid(
            "InjectFault", [address, .string("connect"), .string("2a37"), .string("fail"), options([:])],
            #"the operation connect takes no attribute; pass """#)
        try await expectInvalid(
            "InjectFault", [address, .string("read"), .string(""), .string("fail"), options([:])], #""" is not a UUID"#)
        try await expectInvalid(
            "InjectFault", [address, .string("connect"), .string(""), .string("melt"), options([:])],
            #""melt" is not a fault (fail, delay, fail-after, disconnect, connect-without-connected-signal)"#)
        try await expectInvalid(
            "InjectFault",
            [address, .string("connect"), .string(""), .string("fail"), options(["colour": .string("red")])],
            #""colour" is not a fault option (error, message, att, delay, reason, times)"#)
        try await expectInvalid(
            "InjectFault", [address, .string("connect"), .string(""), .string("fail"), options(["times": .int32(0)])],
            "times must be a positive integer")
        try await expectInvalid(
            "InjectFault", [address, .string("connect"), .string(""), .string("delay"), options([:])],
            "the fault needs a delay (seconds)")
        try await expectInvalid(
            "InjectFault",
            [address, .string("connect"), .string(""), .string("delay"), options(["delay": .double(-1)])],
            "delay must be a number of seconds (0 or more)")
        try await expectInvalid(
            "InjectFault", [address, .string("read"), .string("2a37"), .string("fail"), options(["att": .int32(300)])],
            "att must be an ATT error code (0…255)")
        try await expectInvalid(
            "InjectFault",
            [address, .string("read"), .string("2a37"), .string("fail"), options(["error": .string("org.")])],
            #""org." is not an error name"#)
        try await expectInvalid("Restart", [.double(-2)], "the downtime must be 0…3600 seconds")
        #expect(fixture.simulator.calls.isEmpty)
        let wrongSignature = try await fixture.failure("SetPowered", [.string("hci0")])
        #expect(wrongSignature?.remoteName == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func theSimulatorsRefusalsHaveTheirOwnNames() async throws {
        let fixture = try await ControlFixture()
        let stranger = try await fixture.failure("SetInRange", [.string("C0:FF:EE:00:00:99"), .boolean(true)])
        #expect(
            stranger
                == .remote(
                    name: "org.ripple.BlueZSimulator.Error.UnknownPeripheral",
                    message: "no simulated peripheral has the address C0:FF:EE:00:00:99"))
        let adapter = try await fixture.failure("SetPowered", [.string("hci7"), .boolean(true)])
        #expect(
            adapter
                == .remote(
                    name: "org.ripple.BlueZSimulator.Error.InvalidArguments", message: "no adapter is named hci7"))
        let names = [
            SimulatorError.unknownAttribute(0x2A37), .notConnected(RecordingSimulator.known), .notRunning,
            .bus(.disconnected),
        ].map { SimulatorControlService.dbusError($0).remoteName }
        #expect(
            names == [
                "org.ripple.BlueZSimulator.Error.UnknownAttribute", "org.ripple.BlueZSimulator.Error.NotConnected",
                "org.ripple.BlueZSimulator.Error.NotRunning", "org.ripple.BlueZSimulator.Error.Failed",
            ])
    }

    @Test func callsAreCarriedOutInTheOrderTheyArrive() async throws {
        let fixture = try await ControlFixture()
        var publishers: [AnyPublisher<DBusMessage, DBusError>] = []
        // The service carries the calls out one after another on the cooperative pool, which the rest of the
        // suite, run in parallel on a loaded machine, can hold for longer than the default 25 s: the bound here is
        // about order, not time.
        for index in 0..<60 {
            publishers.append(
                try fixture.callPublisher(
                    "Notify", [address, .string("2a19"), .bytes([UInt8(index)])], timeout: .seconds(300)))
        }
        // Subscribing sends the calls, in order, without waiting for the replies.
        let merged = Publishers.MergeMany(publishers).collect()
        let replies = try await merged.firstValue
        #expect(replies.count == 60)
        let values = fixture.simulator.calls.compactMap { call -> UInt8? in
            guard case .notify(_, _, let value) = call else { return nil }
            return value.first
        }
        #expect(values == (0..<60).map(UInt8.init))
    }

    @Test func statisticsComeAsAStringVariantDictionary() async throws {
        let fixture = try await ControlFixture()
        fixture.simulator.statistics.recordSocketNotifications(1000)
        fixture.simulator.statistics.recordSignalNotifications(7)
        fixture.simulator.statistics.recordEmitterCPU(nanoseconds: 250_000)
        let reply = try await fixture.call("GetStatistics")
        let statistics = try #require(reply.first?.stringVariantDictionary)
        #expect(statistics["SocketNotifications"] == .int64(1000))
        #expect(statistics["SignalNotifications"] == .int64(7))
        #expect(statistics["EmitterCPUNanoseconds"] == .int64(250_000))
        #expect(statistics["EmitterNanosecondsPerNotification"] == .double(250))
        #expect((statistics["ProcessCPUNanoseconds"]?.int64 ?? 0) > 0)
    }
}
