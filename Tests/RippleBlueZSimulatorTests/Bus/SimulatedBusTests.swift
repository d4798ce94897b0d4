import Ripple
import RippleDBus
import RippleLoop
import Testing

@testable import RippleBlueZSimulator

/// A simulator's private bus: clients reach the simulated bluetoothd at its address, a bus that refuses
/// clients answers them as a system bus answers a process it does not let in, and stopping it disconnects
/// them.
@Suite struct SimulatedBusTests {
    /// bluetoothd's object tree, asked through `connection`.
    static func managedObjects(through connection: DBusConnection) async throws -> DBusMessage {
        try await connection.call(
            destination: "org.bluez", path: .root, interface: "org.freedesktop.DBus.ObjectManager",
            member: "GetManagedObjects"
        ).firstValue
    }

    @Test func clientsReachTheSimulatorAtTheBusAddress() async throws {
        let bus = try SimulatedBus()
        defer { bus.stop() }
        #expect(bus.bus == .address(bus.address))
        let simulator = BlueZSimulator(world: SimulatedWorld(), bus: bus.bus)
        try await simulator.start()
        let loop = try EventLoopThread(name: "simulated-bus-test")
        defer { loop.stop() }
        let client = try DBusConnection(bus: .address(bus.address), loop: loop.loop)
        let objects = try await Self.managedObjects(through: client)
        let paths = objects.body.first?.dictionaryEntries?.compactMap { $0.key.objectPath?.rawValue } ?? []
        #expect(paths.contains("/org/bluez/hci0"))
        await simulator.stop()
    }

    @Test func aBusRefusingClientsAnswersWithAccessDenied() async throws {
        let bus = try SimulatedBus(refusingClients: true)
        defer { bus.stop() }
        let simulator = BlueZSimulator(world: SimulatedWorld(), bus: bus.bus)
        try await simulator.start()
        let loop = try EventLoopThread(name: "refusing-bus-test")
        defer { loop.stop() }
        let client = try DBusConnection(bus: bus.bus, loop: loop.loop)
        await #expect {
            try await Self.managedObjects(through: client)
        } throws: { error in
            (error as? DBusError)?.remoteName == "org.freedesktop.DBus.Error.AccessDenied"
        }
        await simulator.stop()
    }

    @Test func stoppingTheBusDisconnectsItsClients() async throws {
        let bus = try SimulatedBus()
        let loop = try EventLoopThread(name: "stopped-bus-test")
        defer { loop.stop() }
        let client = try DBusConnection(bus: bus.bus, loop: loop.loop)
        bus.stop()
        bus.stop()  // idempotent
        #expect(try await client.closed.firstValue == .disconnected)
    }
}
