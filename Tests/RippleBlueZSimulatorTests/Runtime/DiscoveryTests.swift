import RippleDBus
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

private let otherAddress: BluetoothAddress = "C0:FF:EE:00:00:02"
private let otherPath = "/org/bluez/hci0/dev_C0_FF_EE_00_00_02"

private func world(variation: Int16 = 1) -> SimulatedWorld {
    var heart = monitor()
    heart.rssiVariation = variation
    let battery = SimulatedPeripheral(
        address: otherAddress, name: "Other", rssi: -70, advertisedServices: [0x180F],
        advertisingInterval: .milliseconds(20))
    return SimulatedWorld(peripherals: [.init(heart), .init(battery)])
}

private let leFilter: [String: DBusValue] = ["Transport": .string("le"), "DuplicateData": .boolean(false)]

@Suite struct DiscoveryTests {
    @Test func onlyDevicesMatchingTheFilterAppearWithWhatWasSeen() async throws {
        try await withFixture(SimulatorFixture(world: world())) { fixture in
            let added = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            var filter = leFilter
            filter["UUIDs"] = .array(.string, [.string("0000180d-0000-1000-8000-00805f9b34fb")])
            _ = try await fixture.call(hci0, adapterInterface, "SetDiscoveryFilter", [.stringVariantDictionary(filter)])
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            let appeared = await added.wait(for: 1)
            #expect(appeared.first?.body.first == .objectPath(try DBusObjectPath(monitorPath)))
            let device = appeared.first?.body.last?.dictionaryEntries?.first?.value.stringVariantDictionary ?? [:]
            #expect(device["RSSI"]?.unwrappingVariants == .int16(-52))
            #expect(device["TxPower"]?.unwrappingVariants == .int16(4))
            #expect(device["Name"]?.unwrappingVariants == .string("Monitor"))
            // The RSSI wanders by ±1 at each advertisement (pattern 0, +1, 0, -1): four changes later, the
            // other peripheral (same interval) has advertised as often, and was never reported.
            let rssi = await changes.wait { messages in
                messages.compactMap { $0.propertiesChange?.changed["RSSI"] }.count >= 4
            }.compactMap { $0.propertiesChange?.changed["RSSI"] }
            #expect(Array(rssi.prefix(4)) == [.int16(-51), .int16(-52), .int16(-53), .int16(-52)])
            #expect(try await fixture.managedObjects()[otherPath] == nil)
            #expect(try await fixture.property(hci0, adapterInterface, "Discovering") == .boolean(true))
        }
    }

    @Test func discoveryErrorsAreBluetoothds() async throws {
        try await withFixture(SimulatorFixture(world: world())) { fixture in
            #expect(try await fixture.error(hci0, adapterInterface, "StopDiscovery") == .failed("No discovery started"))
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            #expect(try await fixture.error(hci0, adapterInterface, "StartDiscovery") == .busy)
            #expect(
                try await fixture.error(
                    hci0, adapterInterface, "SetDiscoveryFilter", [.stringVariantDictionary(["Colour": .string("red")])]
                )
                    == .invalidArguments)
            #expect(
                try await fixture.error(
                    hci0, adapterInterface, "SetDiscoveryFilter", [.stringVariantDictionary(["RSSI": .string("-60")])])
                    == .invalidArguments)
            #expect(
                try await fixture.call(hci0, adapterInterface, "GetDiscoveryFilters") == [
                    .array(
                        .string,
                        ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"].map(
                            DBusValue.string))
                ])
            #expect(
                try await fixture.error(
                    hci0, adapterInterface, "RemoveDevice", [.objectPath(try DBusObjectPath(otherPath + "9"))])
                    == .doesNotExist)
        }
    }

    @Test func aClientLeavingTheBusEndsItsSessionAndStopInvalidatesRSSI() async throws {
        try await withFixture(SimulatorFixture(world: world(variation: 0))) { fixture in
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            let other = try fixture.connectAnotherClient()
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery", on: other)
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            #expect(try await fixture.simulator.discoveringClients().count == 2)
            other.close()
            _ = try await fixture.call(hci0, adapterInterface, "StopDiscovery")
            let messages = await changes.wait { messages in
                messages.contains { $0.propertiesChange?.changed["Discovering"] == .boolean(false) }
                    && messages.filter { $0.path?.description == monitorPath }.flatMap {
                        $0.propertiesChange?.invalidated ?? []
                    }
                        == ["RSSI", "TxPower"]
            }
            let discovering = messages.compactMap { $0.propertiesChange?.changed["Discovering"] }
            #expect(discovering == [.boolean(true), .boolean(false)])
            #expect(try await fixture.simulator.discoveringClients() == [])
            #expect(try await fixture.property(monitorPath, deviceInterface, "RSSI") == nil)
        }
    }

    @Test func unseenDevicesAgeOutButStoredOnesStay() async throws {
        var known = SimulatedPeripheral(address: otherAddress, name: "Known", isKnown: true)
        known.isInRange = false
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor()), .init(known)]),
                configuration: .init(deviceTimeout: .milliseconds(60), connectTimeout: .milliseconds(100)))
        ) { fixture in
            let added = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
            let removed = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved")
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            await added.wait(for: 1)
            try await fixture.simulator.setInRange(false, peripheral: monitorAddress)
            let gone = await removed.wait(for: 1)
            #expect(gone.first?.body.first == .objectPath(try DBusObjectPath(monitorPath)))
            #expect(try await fixture.managedObjects()[otherPath] != nil)
        }
    }

    @Test func aDeviceOnceConnectedNoLongerAgesOut() async throws {
        // bluetoothd makes a device it connects to non-temporary: it stays after the link is gone.
        let other = SimulatedPeripheral(address: otherAddress, name: "Other")
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor()), .init(other)]),
                configuration: .init(deviceTimeout: .milliseconds(60), connectTimeout: .milliseconds(100)))
        ) { fixture in
            let added = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
            let removed = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesRemoved")
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            await added.wait(for: 2)
            try await fixture.connectAndResolve(monitorPath)
            _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
            // Neither is seen again, the monitor first: had it stayed temporary, it would age out first.
            try await fixture.simulator.setInRange(false, peripheral: monitorAddress)
            try await fixture.simulator.setInRange(false, peripheral: otherAddress)
            // The monitor's GATT objects went with its link; the first device to go is the other one.
            let isDevice: @Sendable (DBusMessage) -> Bool = {
                guard case .objectPath(let path)? = $0.body.first else { return false }
                return path.description.hasPrefix(hci0 + "/dev_")
                    && !path.description.dropFirst(hci0.count + 1).contains("/")
            }
            let gone = await removed.wait(until: { $0.contains(where: isDevice) })
            #expect(gone.first(where: isDevice)?.body.first == .objectPath(try DBusObjectPath(otherPath)))
            #expect(try await fixture.managedObjects()[monitorPath] != nil)
        }
    }

    @Test func poweringOffStopsDiscoveryAndRefusesIt() async throws {
        try await withFixture(SimulatorFixture(world: world())) { fixture in
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            await changes.wait { $0.contains { $0.propertiesChange?.changed["PowerState"] == .string("off") } }
            #expect(try await fixture.property(hci0, adapterInterface, "Powered") == .boolean(false))
            #expect(try await fixture.property(hci0, adapterInterface, "Discovering") == .boolean(false))
            #expect(try await fixture.error(hci0, adapterInterface, "StartDiscovery") == .notReady)
            // A client powers it back on through the property, as bluetoothctl does.
            _ = try await fixture.call(
                hci0, "org.freedesktop.DBus.Properties", "Set",
                [.string(adapterInterface), .string("Powered"), .variant(.boolean(true))])
            await changes.wait { $0.contains { $0.propertiesChange?.changed["PowerState"] == .string("on") } }
            #expect(try await fixture.error(hci0, adapterInterface, "StartDiscovery") == nil)
        }
    }
}
