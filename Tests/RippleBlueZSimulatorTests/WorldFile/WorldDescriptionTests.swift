import Foundation
import Testing

@testable import RippleBlueZSimulator

@Suite struct WorldDescriptionTests {
    @Test func anEmptyFileIsOnePoweredAdapter() throws {
        let world = try WorldJSON.world("{}")
        #expect(world.adapters == [SimulatedAdapter()])
        #expect(world.peripherals.isEmpty)
    }

    @Test func theInteropWorldHasTheMonitorAndTheStream() throws {
        let world = try WorldJSON.world(try WorldJSON.example("interop.json"))
        #expect(world.adapters.map(\.name) == ["hci0"])
        let placement = try #require(world.peripherals.first)
        #expect(world.peripherals.count == 1)
        #expect(placement.adapter == "hci0")
        let monitor = placement.peripheral
        #expect(monitor.name == "Ripple HRM")
        #expect(monitor.address == "C0:FF:EE:00:00:01")
        #expect(monitor.rssi == -55)
        #expect(monitor.advertisedServices == [.heartRate])
        #expect(
            monitor.services.map(\.uuid) == [
                .heartRate, .battery, .deviceInformation,
                BluetoothUUID("52495054-0000-4000-8000-000000000001"),
            ])
        let test = try #require(monitor.services.last)
        let stream = test.characteristics[0]
        #expect(stream.flags == [.notify])
        #expect(stream.notificationSource == NotificationSource(count: 10_000, rate: nil, payload: .numbered(size: 20)))
        #expect(stream.descriptors.map(\.value) == [Array("Numbered stream".utf8)])
        let writable = test.characteristics[1]
        #expect(writable.flags == [.read, .write, .writeWithoutResponse])
        #expect(writable.value == [0])
        #expect(writable.onWrite == nil)
    }

    @Test func aPeripheralIsDescribedField() throws {
        let world = try WorldJSON.world(
            WorldJSON.onePeripheral(
                """
                {"address": "c0:ff:ee:00:00:10", "addressType": "random", "name": "Tag", "appearance": "0x0200",
                 "rssi": -80, "rssiVariation": 6, "txPower": -4,
                 "manufacturerData": {"0x004C": "02 15", "89": "ff"}, "serviceData": {"feaa": "10:00"},
                 "advertisedServices": ["feaa", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"],
                 "advertisingInterval": "1.5s", "connectable": false, "inRange": false, "known": true,
                 "paired": true, "connectionDelay": 20, "mtu": 23}
                """))
        let tag = try #require(world.peripherals.first?.peripheral)
        #expect(tag.address == "C0:FF:EE:00:00:10")
        #expect(tag.addressType == .random)
        #expect(tag.name == "Tag")
        #expect(tag.appearance == 0x0200)
        #expect(tag.rssi == -80)
        #expect(tag.rssiVariation == 6)
        #expect(tag.txPower == -4)
        #expect(tag.manufacturerData == [0x004C: [0x02, 0x15], 89: [0xFF]])
        #expect(tag.serviceData == [BluetoothUUID(0xFEAA): [0x10, 0x00]])
        #expect(tag.advertisedServices == [0xFEAA, BluetoothUUID("6e400001-b5a3-f393-e0a9-e50e24dcca9e")])
        #expect(tag.advertisingInterval == .milliseconds(1500))
        #expect(!tag.isConnectable)
        #expect(!tag.isInRange)
        #expect(tag.isKnown)
        #expect(tag.isPaired)
        #expect(tag.connectionDelay == .milliseconds(20))
        #expect(tag.mtu == 23)
        #expect(tag.services.isEmpty)
    }

    @Test func characteristicsDescriptorsAndSources() throws {
        let world = try WorldJSON.world(
            WorldJSON.characteristics(
                """
                {"uuid": "ffe1", "flags": ["read", "write", "notify"], "value": "0x0A0B",
                 "descriptors": [{"uuid": "2901", "text": "Knob"}, {"uuid": "ffe9", "flags": ["read", "write"], "value": ""}],
                 "notifications": {"count": 5, "rate": 10, "payload": "sequence-byte", "size": 3}},
                {"uuid": "ffe2", "flags": ["indicate"], "text": "hé", "notifications": {"cycle": ["01", "0203"]}},
                {"uuid": "ffe3", "flags": ["write-without-response", "notify"], "echo": true}
                """))
        let service = try #require(world.peripherals.first?.peripheral.services.first)
        #expect(service.uuid == 0xFFE0)
        #expect(service.isPrimary)
        let first = service.characteristics[0]
        #expect(first.value == [0x0A, 0x0B])
        #expect(first.descriptors.map(\.uuid) == [0x2901, 0xFFE9])
        #expect(first.descriptors.map(\.flags) == [[.read], [.read, .write]])
        #expect(first.descriptors[1].value == [])
        #expect(first.notificationSource == NotificationSource(count: 5, rate: 10, payload: .sequenceByte(size: 3)))
        let second = service.characteristics[1]
        #expect(second.value == Array("hé".utf8))
        #expect(second.notificationSource?.payload == .cycle([[1], [2, 3]]))
        let echo = try #require(service.characteristics[2].onWrite)
        #expect(try echo(GATTWriteRequest(value: [7, 8])).notifications == [SimulatedNotification([7, 8])])
    }

    @Test func presetsTakeOverridesAndAppendedServices() throws {
        let world = try WorldJSON.world(
            """
            {"adapters": [{"name": "hci0"}, {"name": "hci1", "address": "00:1A:7D:DA:71:99", "systemName": "two",
                           "powered": false}],
             "peripherals": [
               {"preset": "heart-rate-monitor", "address": "AA:BB:CC:DD:EE:FF", "name": "Strap", "batteryLevel": 12,
                "adapter": "hci1", "services": [{"preset": "led-button", "ledOn": true}]},
               {"preset": "led-button", "rssi": -90}
             ]}
            """)
        #expect(
            world.adapters == [
                SimulatedAdapter(name: "hci0"),
                SimulatedAdapter(name: "hci1", address: "00:1A:7D:DA:71:99", systemName: "two", isPowered: false),
            ])
        let strap = try #require(world.peripherals.first)
        #expect(strap.adapter == "hci1")
        #expect(strap.peripheral.name == "Strap")
        #expect(strap.peripheral.address == "AA:BB:CC:DD:EE:FF")
        #expect(strap.peripheral.appearance == 0x0341)
        #expect(
            strap.peripheral.services.map(\.uuid) == [
                .heartRate, .battery, .deviceInformation, .ledButtonService,
            ])
        #expect(strap.peripheral.services[1].characteristics[0].value == [12])
        let systemID = strap.peripheral.services[2].characteristics.first { $0.uuid == .systemID }
        #expect(systemID?.value == SimulatedDeviceInformation.systemID(for: "AA:BB:CC:DD:EE:FF"))
        #expect(strap.peripheral.services[3].characteristics[0].value == [1])
        let board = try #require(world.peripherals.last)
        #expect(board.adapter == "hci0")
        #expect(board.peripheral.address == "C0:FF:EE:00:00:02")
        #expect(board.peripheral.rssi == -90)
    }

    @Test func servicePresetsTakeTheirOptions() throws {
        let world = try WorldJSON.world(
            WorldJSON.services(
                """
                {"preset": "heart-rate", "location": "wrist", "rate": 4},
                {"preset": "battery", "level": 100},
                {"preset": "device-information", "manufacturerName": "Acme", "modelNumber": "X",
                 "serialNumber": "1", "hardwareRevision": "2", "firmwareRevision": "3", "softwareRevision": "4",
                 "systemID": "0102030405060708", "pnpID": "02 15 19 0f 52 01 00"},
                {"uuid": "ffe0", "primary": false}
                """))
        let services = try #require(world.peripherals.first?.peripheral.services)
        #expect(services[0].characteristics[1].value == [SimulatedBodySensorLocation.wrist.rawValue])
        #expect(services[0].characteristics[0].notificationSource?.rate == 4)
        #expect(services[1].characteristics[0].value == [100])
        #expect(
            services[2].characteristics.map(\.uuid) == [
                .manufacturerNameString, .modelNumberString, .serialNumberString, .hardwareRevisionString,
                .firmwareRevisionString, .softwareRevisionString,
                .systemID, .pnpID,
            ])
        #expect(services[2].characteristics[7].value == [0x02, 0x15, 0x19, 0x0F, 0x52, 0x01, 0x00])
        #expect(!services[3].isPrimary)
        #expect(services[3].characteristics.isEmpty)
    }

    @Test func theDemoDescriptionIsValid() throws {
        let world = try WorldDescription.demo.makeWorld()
        #expect(world.adapters == [SimulatedAdapter()])
        #expect(world.peripherals.map(\.peripheral.name) == ["Ripple HRM", "Ripple LED"])
    }

    @Test func descriptionsRoundTripThroughJSON() throws {
        let description = try WorldJSON.decode(try WorldJSON.example("interop.json"))
        let encoded = try JSONEncoder().encode(description)
        #expect(try JSONDecoder().decode(WorldDescription.self, from: encoded) == description)
        let demo = try JSONEncoder().encode(WorldDescription.demo)
        #expect(try JSONDecoder().decode(WorldDescription.self, from: demo) == WorldDescription.demo)
        let scalars = WorldDescription.Peripheral(
            address: "C0:FF:EE:00:00:10", appearance: 5, advertisingInterval: "2s")
        let round = try JSONDecoder().decode(WorldDescription.Peripheral.self, from: try JSONEncoder().encode(scalars))
        #expect(round == scalars)
    }

    @Test func durationsAreMillisecondsOrCarryAUnit() throws {
        let cases: [(String, Duration)] = [
            ("100", .milliseconds(100)), ("\"250ms\"", .milliseconds(250)), ("\"1.5s\"", .milliseconds(1500)),
            ("\"500us\"", .microseconds(500)), ("\"2 s\"", .seconds(2)), ("0.5", .microseconds(500)),
        ]
        for (text, expected) in cases {
            let world = try WorldJSON.world(
                WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "connectionDelay": \#(text)}"#))
            #expect(world.peripherals.first?.peripheral.connectionDelay == expected, "\(text)")
        }
    }

    @Test func descriptionsBuiltInSwiftMakeWorldsAndEncode() throws {
        let description = WorldDescription(
            adapters: [
                WorldDescription.Adapter(name: "hci1", address: "00:1A:7D:DA:71:20", systemName: "s", powered: true)
            ],
            peripherals: [
                WorldDescription.Peripheral(
                    address: "C0:FF:EE:00:00:10", adapter: "hci1",
                    services: [
                        WorldDescription.Service(preset: "battery", level: 5),
                        WorldDescription.Service(
                            uuid: "ffe0", primary: true,
                            characteristics: [
                                WorldDescription.Characteristic(
                                    uuid: "ffe1", flags: ["read", "notify"], value: "01",
                                    descriptors: [
                                        WorldDescription.Descriptor(uuid: "2901", flags: ["read"], text: "x")
                                    ],
                                    notifications: WorldDescription.Notifications(
                                        count: 3, rate: 2, payload: "numbered", size: 8),
                                    echo: false)
                            ]),
                    ])
            ])
        let world = try description.makeWorld()
        let peripheral = try #require(world.peripherals.first)
        #expect(peripheral.adapter == "hci1")
        #expect(peripheral.peripheral.services[0].characteristics[0].value == [5])
        let characteristic = peripheral.peripheral.services[1].characteristics[0]
        #expect(characteristic.notificationSource == NotificationSource(count: 3, rate: 2, payload: .numbered(size: 8)))
        #expect(characteristic.onWrite == nil)
        let encoded = try JSONEncoder().encode(description)
        #expect(try JSONDecoder().decode(WorldDescription.self, from: encoded) == description)
    }
}
