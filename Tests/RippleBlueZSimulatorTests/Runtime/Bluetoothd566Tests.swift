import Ripple
import RippleDBus
import Synchronization
import Testing

@testable import RippleBlueZSimulator

/// What bluetoothd 5.66 (Debian 12) does, as `RealBlueZTests` saw it in the `Scripts/bluez-guest` guest
/// (dbus-monitor traces of real bluetoothd with two virtual controllers), pinned on the simulator.
@Suite struct Bluetoothd566Tests {
    private static let service = monitorPath + "/service0001"
    private static let level = service + "/char0002"  // 0xAAA1: read, notify
    private static let characteristic = "org.bluez.GattCharacteristic1"
    private static let noOptions = DBusValue.stringVariantDictionary([:])

    private static func world(_ services: [SimulatedService]? = nil) -> SimulatedWorld {
        var peripheral = monitor(known: true)
        peripheral.services =
            services ?? [
                SimulatedService(
                    uuid: 0xAAA0,
                    characteristics: [
                        SimulatedCharacteristic(uuid: 0xAAA1, flags: [.read, .notify], value: [1])
                    ])
            ]
        return SimulatedWorld(peripherals: [.init(peripheral)])
    }

    /// The device's property changes (`Name=…` per signal, names sorted) and the interfaces added and
    /// removed at and below it (`+service0001`, `-Battery1` for the device's own), in order.
    private static func timeline(_ messages: [DBusMessage]) -> [String] {
        messages.compactMap { message -> String? in
            switch message.member {
            case "PropertiesChanged":
                guard message.path?.description == monitorPath, let change = message.propertiesChange,
                    message.body.first?.string == deviceInterface
                else { return nil }
                return change.changed.keys.sorted().map {
                    "\($0)=\(change.changed[$0].map { "\($0.unwrappingVariants)" } ?? "")"
                }
                .joined(separator: ",")
            case "InterfacesAdded", "InterfacesRemoved":
                guard let path = message.body.first?.objectPath?.description, path.hasPrefix(monitorPath) else {
                    return nil
                }
                let sign = message.member == "InterfacesAdded" ? "+" : "-"
                if path == monitorPath {
                    let names =
                        message.member == "InterfacesAdded"
                        ? (message.body.dropFirst().first?.dictionaryEntries ?? []).compactMap(\.key.string)
                        : (message.body.dropFirst().first?.arrayElements ?? []).compactMap(\.string)
                    return names.filter { $0 != deviceInterface }.map {
                        sign + $0.replacingOccurrences(of: "org.bluez.", with: "")
                    }
                    .joined(separator: ",")
                }
                return sign + path.dropFirst(monitorPath.count + 1)
            default:
                return nil
            }
        }
    }

    private static func log(_ fixture: SimulatorFixture) async throws -> SignalLog {
        let log = SignalLog(fixture.client.signals(matching: DBusMatchRule(sender: "org.bluez")))
        for try await _ in fixture.client.synchronize().values {}
        return log
    }

    private static func disconnect(_ fixture: SimulatorFixture, _ log: SignalLog) async throws {
        _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
        _ = await log.wait { timeline($0).last == "Connected=false" }
    }

    @Test func theGATTObjectsStayCachedWhenTheLinkEndsAndTheNextConnectionResolvesAtOnce() async throws {
        let fixture = try await SimulatorFixture(world: Self.world())
        try await fixture.connectAndResolve(monitorPath)
        let log = try await Self.log(fixture)
        try await Self.disconnect(fixture, log)
        #expect(try await fixture.managedObjects()[Self.level] != nil)
        #expect(
            try await fixture.error(Self.level, Self.characteristic, "ReadValue", [Self.noOptions])
                == .failed("Not connected"))
        #expect(
            try await fixture.error(Self.level, Self.characteristic, "AcquireNotify", [Self.noOptions])
                == .failed("Not connected"))
        try await fixture.connectAndResolve(monitorPath)
        #expect(
            Self.timeline(log.messages) == [
                "ServicesResolved=false", "Connected=false", "Connected=true", "ServicesResolved=true",
            ])
        #expect(try await fixture.call(Self.level, Self.characteristic, "ReadValue", [Self.noOptions]) == [.bytes([1])])
        await fixture.stop()
    }

    /// bluetoothd keeps a `StartNotify` session across the link's end and enables it again on the next
    /// link; until then the same client's `StartNotify` is "In Progress", another client's is taken, and
    /// `StopNotify` ends a session at once.
    @Test func aStartNotifySessionOutlivesTheLinkAndNotifiesAgainWhenItIsBack() async throws {
        let fixture = try await SimulatorFixture(world: Self.world())
        try await fixture.connectAndResolve(monitorPath)
        _ = try await fixture.call(Self.level, Self.characteristic, "StartNotify")
        let log = try await Self.log(fixture)
        try await Self.disconnect(fixture, log)
        #expect(try await fixture.property(Self.level, Self.characteristic, "Notifying") == .boolean(true))
        #expect(try await fixture.error(Self.level, Self.characteristic, "StartNotify") == .inProgress)
        let another = try fixture.connectAnotherClient()
        #expect(try await fixture.error(Self.level, Self.characteristic, "StartNotify", on: another) == nil)
        #expect(
            try await fixture.error(Self.level, Self.characteristic, "StopNotify", on: another) == nil, "ends at once")
        try await fixture.connectAndResolve(monitorPath)
        let values = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
        try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: [7])
        let changes = await values.wait { $0.contains { $0.path?.description == Self.level } }
        #expect(
            changes.compactMap { $0.path?.description == Self.level ? $0.propertiesChange?.changed["Value"] : nil } == [
                .bytes([7])
            ])
        another.close()
        await fixture.stop()
    }

    /// `Disconnect()` is answered after `ServicesResolved` turns false and before `Connected` does.
    @Test func disconnectIsAnsweredBetweenServicesResolvedAndConnected() async throws {
        let fixture = try await SimulatorFixture(world: Self.world())
        try await fixture.connectAndResolve(monitorPath)
        let log = try await Self.log(fixture)
        // A signal is recorded no earlier than the reply that followed it on the bus (its delivery may lag,
        // never lead): when the reply arrives, Connected=false must not have been recorded.
        let signalsBeforeReply = Atomic<Int>(-1)
        let disconnecting = fixture.client.call(
            destination: "org.bluez", path: try DBusObjectPath(monitorPath), interface: deviceInterface,
            member: "Disconnect"
        ).sink(
            receiveCompletion: { _ in },
            receiveValue: { _ in signalsBeforeReply.store(log.messages.count, ordering: .sequentiallyConsistent) })
        let messages = await log.wait { Self.timeline($0).last == "Connected=false" }
        disconnecting.cancel()
        let before = signalsBeforeReply.load(ordering: .sequentiallyConsistent)
        #expect(before >= 0)
        #expect(!Self.timeline(Array(messages.prefix(max(before, 0)))).contains("Connected=false"))
        #expect(Self.timeline(messages) == ["ServicesResolved=false", "Connected=false"])
        await fixture.stop()
    }

    @Test func aDatabaseReplacedWhileDisconnectedIsFoundOutAtTheNextConnection() async throws {
        let fixture = try await SimulatorFixture(world: Self.world())
        try await fixture.connectAndResolve(monitorPath)
        let log = try await Self.log(fixture)
        try await Self.disconnect(fixture, log)
        try await fixture.simulator.changeServices(
            of: monitorAddress,
            to: [
                SimulatedService(
                    uuid: 0xBBB0, characteristics: [SimulatedCharacteristic(uuid: 0xBBB1, flags: [.read], value: [2])])
            ])
        #expect(try await fixture.managedObjects()[Self.level] != nil, "the cache is not told")
        try await fixture.connectAndResolve(monitorPath)
        #expect(
            Self.timeline(log.messages) == [
                "ServicesResolved=false", "Connected=false", "Connected=true",
                "-service0001/char0002/desc0004", "-service0001/char0002", "-service0001", "+service0001",
                "+service0001/char0002",
                "ServicesResolved=true,UUIDs=[\"0000bbb0-0000-1000-8000-00805f9b34fb\"]",
            ])
        await fixture.stop()
    }

    /// The battery plugin: `Battery1.Percentage` while connected, following the notified level; it goes
    /// first thing when the link ends.
    @Test func aBatteryServiceGivesTheDeviceBattery1WhileConnected() async throws {
        let fixture = try await SimulatorFixture(world: Self.world([.battery(level: 87)]))
        let log = try await Self.log(fixture)
        try await fixture.connectAndResolve(monitorPath)
        let battery = "org.bluez.Battery1"
        _ = await log.wait { Self.timeline($0).contains("+Battery1") }
        #expect(try await fixture.property(monitorPath, battery, "Percentage") == .byte(87))
        try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: .batteryLevel, value: [55])
        #expect(try await fixture.property(monitorPath, battery, "Percentage") == .byte(55))
        try await Self.disconnect(fixture, log)
        #expect(
            Array(Self.timeline(log.messages).suffix(3)) == ["-Battery1", "ServicesResolved=false", "Connected=false"])
        #expect(try await fixture.managedObjects()[monitorPath]?[battery] == nil)
        await fixture.stop()
    }

    /// The GAP plugin claims Generic Access (never exported) and takes its name and appearance; the next
    /// advertisement's name takes over again. `UUIDs` is then the database's services, sorted.
    @Test func genericAccessIsClaimedAndItsNameTakenUntilTheNextAdvertisement() async throws {
        let fixture = try await SimulatorFixture(
            world: Self.world([
                SimulatedService(
                    uuid: 0x180D, characteristics: [SimulatedCharacteristic(uuid: 0x2A38, flags: [.read], value: [1])]),
                SimulatedService(
                    uuid: 0x1800,
                    characteristics: [
                        SimulatedCharacteristic(uuid: 0x2A00, flags: [.read], value: Array("Thermo 9".utf8)),
                        SimulatedCharacteristic(uuid: 0x2A01, flags: [.read], value: [0x41, 0x03]),
                    ]),
            ]))
        try await fixture.connectAndResolve(monitorPath)
        let services = try await fixture.managedObjects().values.compactMap { $0["org.bluez.GattService1"]?["UUID"] }
        #expect(services == [.string("0000180d-0000-1000-8000-00805f9b34fb")])
        #expect(
            try await fixture.property(monitorPath, deviceInterface, "UUIDs")
                == .array(
                    .string,
                    [
                        .string("00001800-0000-1000-8000-00805f9b34fb"),
                        .string("0000180d-0000-1000-8000-00805f9b34fb"),
                    ]))
        #expect(try await fixture.property(monitorPath, deviceInterface, "Name") == .string("Thermo 9"))
        #expect(try await fixture.property(monitorPath, deviceInterface, "Alias") == .string("Thermo 9"))
        #expect(try await fixture.property(monitorPath, deviceInterface, "Appearance") == .uint16(0x0341))
        let log = try await Self.log(fixture)
        try await Self.disconnect(fixture, log)
        _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
        _ = await log.wait { Self.timeline($0).contains { $0.contains("Name=\"Monitor\"") } }
        #expect(try await fixture.property(monitorPath, deviceInterface, "Alias") == .string("Monitor"))
        await fixture.stop()
    }

    /// The Device Information plugin turns the PnP ID into `Modalias` (here the one bluetoothd 5.66
    /// serves itself: USB vendor 0x1D6B, product 0x0246, version 0x0542).
    @Test func thePnPIDBecomesTheModalias() async throws {
        let fixture = try await SimulatorFixture(
            world: Self.world([
                SimulatedService(
                    uuid: 0x180A,
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: 0x2A50, flags: [.read], value: [0x02, 0x6B, 0x1D, 0x46, 0x02, 0x42, 0x05])
                    ])
            ]))
        #expect(try await fixture.property(monitorPath, deviceInterface, "Modalias") == nil)
        try await fixture.connectAndResolve(monitorPath)
        let log = try await Self.log(fixture)
        if try await fixture.property(monitorPath, deviceInterface, "Modalias") == nil {
            _ = await log.wait { Self.timeline($0).contains { $0.hasPrefix("Modalias") } }
        }
        #expect(try await fixture.property(monitorPath, deviceInterface, "Modalias") == .string("usb:v1D6Bp0246d0542"))
        #expect(
            SimulatedDevice.modalias(pnpID: [0x01, 0x0F, 0x00, 0x01, 0x00, 0x10, 0x00]) == "bluetooth:v000Fp0001d0010")
        #expect(SimulatedDevice.modalias(pnpID: [0x03, 0, 0, 0, 0, 0, 0]) == nil)
        #expect(SimulatedDevice.modalias(pnpID: [0x01, 0, 0]) == nil)
        await fixture.stop()
    }
}
