import Ripple
import RippleDBus
import RippleLoop
import Testing

@testable import RippleBlueZSimulator

/// An outbox on a connection of its own, with an object manager at `/` and plain objects to change, so
/// that each GDBus rule shows without bluetoothd's behaviour around it. Each scenario runs in one loop
/// turn (or in turns it schedules itself), so the outcome depends on the seed alone.
private final class OutboxFixture: Sendable {
    static let thing = "org.example.Thing1"
    static let other = "org.example.Other1"
    static let characteristic = "org.bluez.GattCharacteristic1"

    let bus: SimulatedBus
    let thread: EventLoopThread
    let server: DBusConnection
    let outbox: SignalOutbox

    init(seed: UInt64) async throws {
        bus = try SimulatedBus()
        thread = try EventLoopThread(name: "outbox-test")
        server = try DBusConnection(bus: bus.bus, loop: thread.loop)
        let (outbox, server) = (SignalOutbox(loop: thread.loop, connection: server, seed: seed), server)
        self.outbox = outbox
        try await thread.loop.perform { () throws(DBusError) in
            outbox.install()
            try server.exportObjectManager(at: .root)
        }
    }

    func stop() {
        server.close()
        thread.stop()
        bus.stop()
    }

    static func object(_ path: String, _ interfaces: [String] = [thing]) throws -> DBusExportedObject {
        try DBusExportedObject(path: DBusObjectPath(path), interfaces: interfaces.map(Self.interface))
    }

    static func interface(_ name: String) -> DBusInterface {
        if name == characteristic {
            return DBusInterface(
                name: name,
                properties: [
                    DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
                    DBusProperty(name: "Notifying", initialValue: .boolean(false)),
                ])
        }
        return DBusInterface(
            name: name,
            properties: [
                DBusProperty(name: "P", initialValue: .int32(0)),
                DBusProperty(name: "Q", initialValue: .boolean(false)),
            ])
    }

    /// Exports `objects` and waits until their signals went out.
    func export(_ objects: [DBusExportedObject]) async throws {
        let server = server
        try await thread.loop.perform { () throws(DBusError) in
            for object in objects { try server.export(object) }
        }
        await settle()
    }

    /// Runs `body` in one turn of the loop, then waits until the outbox holds nothing; returns what was sent
    /// meanwhile.
    func run(_ body: @escaping @Sendable (DBusConnection, SignalOutbox) throws -> Void) async throws -> [String] {
        let (server, outbox) = (server, self.outbox)
        let before = await thread.loop.perform { outbox.trace.count }
        try await thread.loop.perform { () throws(any Error) in try body(server, outbox) }
        await settle()
        return await thread.loop.perform { outbox.trace.dropFirst(before).map(\.description) }
    }

    /// Waits, turn by turn of the loop, until nothing has been held or due for three turns in a row (a wait
    /// lasts a few turns at most).
    func settle() async {
        let outbox = outbox
        var quiet = 0
        for _ in 0..<256 where quiet < 3 {
            quiet = await thread.loop.perform { outbox.isSettled } ? quiet + 1 : 0
        }
    }
}

@Suite struct SignalOutboxTests {
    private static let seeds: ClosedRange<UInt64> = 1...24

    /// Outcomes of one scenario over the seeds, with the scenario's objects exported (and announced) first.
    private static func outcomes(
        exporting paths: [(String, [String])] = [("/d", [OutboxFixture.thing])],
        _ scenario: @escaping @Sendable (DBusConnection, SignalOutbox, [DBusExportedObject]) throws -> Void
    ) async throws -> Set<[String]> {
        var seen: Set<[String]> = []
        for seed in seeds {
            let fixture = try await OutboxFixture(seed: seed)
            defer { fixture.stop() }
            let objects = try paths.map { try OutboxFixture.object($0.0, $0.1) }
            try await fixture.export(objects)
            seen.insert(try await fixture.run { server, outbox in try scenario(server, outbox, objects) })
        }
        return seen
    }

    @Test func aChangeToAnInterfaceNotAnnouncedYetGoesInItsInterfacesAdded() async throws {
        let fixture = try await OutboxFixture(seed: 7)
        defer { fixture.stop() }
        let trace = try await fixture.run { server, _ in
            let object = try OutboxFixture.object("/x")
            try server.export(object)
            try object.setProperty("P", of: OutboxFixture.thing, to: .int32(2))
        }
        #expect(trace == ["+/x [org.example.Thing1]"])
        let announced = await fixture.thread.loop.perform { fixture.outbox.trace.last?.message.body }
        let properties = announced?.last?.dictionaryEntries?.first?.value.stringVariantDictionary
        #expect(properties == ["P": .int32(2), "Q": .boolean(false)])
    }

    @Test func changesInOneTurnGoInOneSignalAndChangesInTwoTurnsInOneOrTwo() async throws {
        let thing = OutboxFixture.thing
        let oneTurn = try await Self.outcomes { _, _, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            try objects[0].setProperty("Q", of: thing, to: .boolean(true))
        }
        #expect(oneTurn == [["/d org.example.Thing1 {P=1, Q=true}"]])
        let twoTurns = try await Self.outcomes { server, _, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            server.loop.schedule { _ = try? objects[0].setProperty("P", of: thing, to: .int32(2)) }
        }
        #expect(
            twoTurns == [
                ["/d org.example.Thing1 {P=2}"], ["/d org.example.Thing1 {P=1}", "/d org.example.Thing1 {P=2}"],
            ])
    }

    @Test func anObjectSendsItsNewInterfacesThenItsChangesThenItsRemovedInterfaces() async throws {
        let thing = OutboxFixture.thing
        let outcomes = try await Self.outcomes(exporting: [("/d", [thing, "org.example.Gone1"])]) { _, _, objects in
            try objects[0].addInterface(OutboxFixture.interface(OutboxFixture.other))
            objects[0].removeInterface(named: "org.example.Gone1")
            try objects[0].setProperty("P", of: thing, to: .int32(5))
        }
        #expect(outcomes == [["+/d [org.example.Other1]", "/d org.example.Thing1 {P=5}", "-/d [org.example.Gone1]"]])
    }

    @Test func aParentIsAnnouncedBeforeItsChildren() async throws {
        let outcomes = try await Self.outcomes(exporting: []) { server, _, _ in
            try server.export(OutboxFixture.object("/p/c"))
            try server.export(OutboxFixture.object("/p"))
        }
        #expect(outcomes == [["+/p [org.example.Thing1]", "+/p/c [org.example.Thing1]"]])
    }

    /// Issue 1489's shape: the device changes first, its children come, the device changes again. The idle
    /// callbacks send the children first (the device's came last); a reply to another client's call
    /// dispatched before them sends the device first (it is first in the pending list).
    @Test func theIdleQueueAndAnotherClientsReplyFlushInTheirOwnOrders() async throws {
        let thing = OutboxFixture.thing
        let outcomes = try await Self.outcomes { server, _, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            try server.export(OutboxFixture.object("/d/g1"))
            try server.export(OutboxFixture.object("/d/g2"))
            try objects[0].setProperty("Q", of: thing, to: .boolean(true))
        }
        #expect(
            outcomes == [
                ["+/d/g1 [org.example.Thing1]", "+/d/g2 [org.example.Thing1]", "/d org.example.Thing1 {P=1, Q=true}"],
                ["/d org.example.Thing1 {P=1, Q=true}", "+/d/g1 [org.example.Thing1]", "+/d/g2 [org.example.Thing1]"],
            ])
    }

    @Test func anythingElseSentFlushesEveryObjectInTheOrderOfItsFirstChange() async throws {
        let thing = OutboxFixture.thing
        let outcomes = try await Self.outcomes { server, _, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            try server.export(OutboxFixture.object("/d/g1"))
            try objects[0].setProperty("Q", of: thing, to: .boolean(true))
            try objects[0].emitSignal(interface: thing, member: "Ping")
        }
        #expect(
            outcomes == [
                ["/d org.example.Thing1 {P=1, Q=true}", "+/d/g1 [org.example.Thing1]", "/d org.example.Thing1.Ping"]
            ])
    }

    /// A call is dispatched from the idle queue too: the objects whose idle callbacks were queued before it
    /// go first (in the order of their latest change), its reply sends the rest (first change first).
    @Test func aCallIsDispatchedAfterTheObjectsQueuedBeforeIt() async throws {
        let thing = OutboxFixture.thing
        let call = DBusMessage(kind: .methodCall, serial: 9, sender: ":1.99", path: .root, member: "Ping")
        let outcomes = try await Self.outcomes { server, outbox, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            try server.export(OutboxFixture.object("/d/g1"))
            try objects[0].setProperty("Q", of: thing, to: .boolean(true))
            outbox.callArrives(call)
            try objects[0].emitSignal(interface: thing, member: "Pong")
        }
        #expect(
            outcomes == [
                ["/d org.example.Thing1 {P=1, Q=true}", "+/d/g1 [org.example.Thing1]", "/d org.example.Thing1.Pong"],
                ["+/d/g1 [org.example.Thing1]", "/d org.example.Thing1 {P=1, Q=true}", "/d org.example.Thing1.Pong"],
            ])
    }

    @Test func aCharacteristicsValueGoesAtOnceButNeverBeforeTheCharacteristic() async throws {
        let (thing, characteristic) = (OutboxFixture.thing, OutboxFixture.characteristic)
        let notify: @Sendable (DBusExportedObject, UInt8) throws -> Void = { object, value in
            try object.emitSignal(
                interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arguments: [
                    .string(characteristic), .stringVariantDictionary(["Value": .bytes([value])]), .array(.string, []),
                ])
        }
        let announced = try await Self.outcomes(exporting: [("/d", [thing]), ("/d/c", [characteristic])]) {
            _, _, objects in
            try objects[0].setProperty("P", of: thing, to: .int32(1))
            try objects[1].setProperty("Notifying", of: characteristic, to: .boolean(true))
            try notify(objects[1], 7)
        }
        #expect(
            announced == [
                ["/d/c GattCharacteristic1 {Notifying=true, Value=bytes [07]}", "/d org.example.Thing1 {P=1}"]
            ])
        let unannounced = try await Self.outcomes(exporting: []) { server, _, _ in
            let object = try OutboxFixture.object("/c", [characteristic])
            try server.export(object)
            try notify(object, 9)
        }
        #expect(unannounced == [["+/c [GattCharacteristic1]"]])
    }

    @Test func anObjectThatGoesSendsWhatItHeldAtOnceAndANewOneThatGoesSendsNothing() async throws {
        let thing = OutboxFixture.thing
        let outcomes = try await Self.outcomes(exporting: [("/x", [thing]), ("/y", [thing])]) { server, _, objects in
            try objects[1].setProperty("P", of: thing, to: .int32(1))
            try objects[0].setProperty("P", of: thing, to: .int32(2))
            server.unexport(objects[0].path)
            let passing = try OutboxFixture.object("/z")
            try server.export(passing)
            server.unexport(passing.path)
        }
        #expect(
            outcomes == [["/x org.example.Thing1 {P=2}", "-/x [org.example.Thing1]", "/y org.example.Thing1 {P=1}"]])
    }

    @Test func theSameSeedGivesTheSameTrace() async throws {
        let thing = OutboxFixture.thing
        let scenario: @Sendable (DBusConnection, SignalOutbox) throws -> Void = { server, _ in
            for index in 0..<6 {
                let object = try OutboxFixture.object("/n\(index)")
                try server.export(object)
                server.loop.schedule {
                    _ = try? object.setProperty("P", of: thing, to: .int32(Int32(index)))
                    server.loop.schedule { _ = try? object.setProperty("Q", of: thing, to: .boolean(true)) }
                }
            }
        }
        var traces: [UInt64: [[String]]] = [:]
        for seed: UInt64 in [3, 3, 11, 11, 12] {
            let fixture = try await OutboxFixture(seed: seed)
            defer { fixture.stop() }
            traces[seed, default: []].append(try await fixture.run(scenario))
        }
        #expect(traces[3]?[0] == traces[3]?[1])
        #expect(traces[11]?[0] == traces[11]?[1])
        #expect(Set([traces[3]?[0], traces[11]?[0], traces[12]?[0]]).count > 1)
    }
}
