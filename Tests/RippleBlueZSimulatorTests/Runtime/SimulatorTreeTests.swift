import RippleDBus
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

let hci0 = "/org/bluez/hci0"
let monitorAddress: BluetoothAddress = "C0:FF:EE:00:00:01"
let monitorPath = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
let adapterInterface = "org.bluez.Adapter1"
let deviceInterface = "org.bluez.Device1"

func monitor(known: Bool = false, rssi: Int16 = -52) -> SimulatedPeripheral {
    SimulatedPeripheral(
        address: monitorAddress, name: "Monitor", rssi: rssi, txPower: 4, manufacturerData: [0x05F1: [1, 2]],
        advertisedServices: [0x180D], advertisingInterval: .milliseconds(20), isKnown: known,
        connectionDelay: .milliseconds(1),
        services: [
            SimulatedService(
                uuid: 0x180D,
                characteristics: [
                    SimulatedCharacteristic(uuid: 0x2A38, flags: [.read], value: [1])
                ])
        ])
}

@Suite struct SimulatorTreeTests {
    @Test func theTreeHasBluezsObjectsAndAdapterProperties() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(
                    adapters: [SimulatedAdapter(name: "hci0", address: "00:1A:7D:DA:71:13", systemName: "sim")],
                    peripherals: [.init(monitor(known: true))]))
        ) { fixture in
            let tree = try await fixture.managedObjects()
            #expect(Set(tree.keys) == ["/org/bluez", hci0, monitorPath])
            #expect(Set(tree["/org/bluez"]?.keys ?? [:].keys) == ["org.bluez.AgentManager1"])
            let adapter = try #require(tree[hci0]?[adapterInterface])
            #expect(adapter["Address"] == .string("00:1A:7D:DA:71:13"))
            #expect(adapter["Powered"] == .boolean(true))
            #expect(adapter["Discovering"] == .boolean(false))
            #expect(adapter["Roles"] == .array(.string, [.string("central"), .string("peripheral")]))
            let device = try #require(tree[monitorPath]?[deviceInterface])
            #expect(device["Address"] == .string(monitorAddress.description))
            #expect(device["Name"] == .string("Monitor"))
            #expect(device["Connected"] == .boolean(false))
            #expect(device["Adapter"] == .objectPath(try DBusObjectPath(hci0)))
            #expect(device["RSSI"] == nil)  // not seen yet
        }
    }

    @Test func aSecondBluetoothdCannotTakeTheName() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld())) { fixture in
            let second = BlueZSimulator(bus: fixture.bus.bus)
            await #expect(throws: SimulatorError.self) { try await second.start() }
        }
    }

    @Test func anInvalidWorldIsRefusedWithItsReason() async throws {
        let bus = try SimulatedBus()
        let simulator = BlueZSimulator(
            world: SimulatedWorld(
                peripherals: [
                    .init(SimulatedPeripheral(address: "C0:FF:EE:00:00:0A")),
                    .init(SimulatedPeripheral(address: "C0:FF:EE:00:00:0A")),
                ]), bus: bus.bus)
        await #expect(throws: SimulatorError.invalidWorld("two peripherals have the address C0:FF:EE:00:00:0A")) {
            try await simulator.start()
        }
        #expect(!simulator.isRunning)
        bus.stop()
    }
}
