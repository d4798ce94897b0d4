import Testing

@testable import RippleBlueZSimulator

@Suite struct WorldFileProblemTests {
    private func expectProblem(_ json: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(WorldJSON.problem(json) == expected, sourceLocation: sourceLocation)
    }

    @Test func unknownKeysAreNamedWithTheAllowedOnes() {
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read"], "flgs": ["read"]}"#),
            #"peripherals[0].services[0].characteristics[0].flgs: unknown key "flgs" (the keys here are: "#
                + "uuid, flags, value, text, descriptors, notifications, echo)")
        expectProblem(
            #"{"peripheral": []}"#,
            #"peripheral: unknown key "peripheral" (the keys here are: "#
                + "adapters, peripherals, description, signalOrder)")
    }

    @Test func typeErrorsSayWhereAndWhatWasExpected() throws {
        let message = try #require(
            WorldJSON.problem(WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "rssi": "loud"}"#)))
        #expect(message.hasPrefix("peripherals[0].rssi: expected an integer"))
        let missing = try #require(WorldJSON.problem(WorldJSON.characteristics(#"{"flags": ["read"]}"#)))
        #expect(missing.hasPrefix(#"peripherals[0].services[0].characteristics[0]: missing key "uuid""#))
        let broken = try #require(WorldJSON.problem("{"))
        #expect(broken.hasPrefix("the file: "))
        let null = try #require(WorldJSON.problem(WorldJSON.onePeripheral(#"{"address": null, "connectable": "yes"}"#)))
        #expect(null.hasPrefix("peripherals[0].connectable: expected true or false"))
    }

    @Test func malformedScalarsAreReportedAtTheirPlace() {
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE"}"#),
            #"peripherals[0].address: "C0:FF:EE" is not a device address (six hex bytes separated by colons)"#)
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "advertisedServices": ["180d", "18x"]}"#),
            #"peripherals[0].advertisedServices[1]: "18x" is not a UUID (4 or 8 hex digits, or 128 bits as 8-4-4-4-12 hex digits)"#
        )
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "manufacturerData": {"0x10000": "00"}}"#),
            #"peripherals[0].manufacturerData["0x10000"]: "0x10000" is not a 16-bit number (0…65535, or 0x0000…0xFFFF)"#
        )
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "serviceData": {"feaa": "0g"}}"#),
            #"peripherals[0].serviceData["feaa"]: "0g" is not hexadecimal bytes (like "0a0b", "0a 0b" or "0a:0b")"#)
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "advertisingInterval": "soon"}"#),
            #"peripherals[0].advertisingInterval: "soon" is not a duration (milliseconds, or "250ms", "1.5s", "500us")"#
        )
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "advertisingInterval": 0}"#),
            "peripherals[0].advertisingInterval: must be longer than 0")
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "connectionDelay": -1}"#),
            #"peripherals[0].connectionDelay: -1 is not a duration (milliseconds, or "250ms", "1.5s", "500us")"#)
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "appearance": 1.5}"#),
            "peripherals[0].appearance: 1.5 is not a 16-bit number (0…65535, or 0x0000…0xFFFF)")
    }

    @Test func rangesAreChecked() {
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "rssi": 30}"#),
            "peripherals[0].rssi: 30 is out of range (-127…20 dB)")
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "rssiVariation": -1}"#),
            "peripherals[0].rssiVariation: -1 is out of range (0…50 dB)")
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "txPower": -200}"#),
            "peripherals[0].txPower: -200 is out of range (-127…20 dB)")
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "mtu": 600}"#),
            "peripherals[0].mtu: 600 is not an ATT MTU (23…517)")
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "addressType": "static"}"#),
            #"peripherals[0].addressType: "static" is neither public nor random"#)
    }

    @Test func adaptersAreChecked() {
        expectProblem(
            #"{"adapters": [{"name": "hci0"}, {"name": "hci0", "address": "00:1A:7D:DA:71:13"}, {"name": "bt0"}]}"#,
            """
            adapters[2].name: "bt0" is not an adapter name (hci0, hci1, …)
            adapters[1].name: "hci0" is also the name of adapters[0]
            adapters[1].address: "00:1A:7D:DA:71:13" is also the address of adapters[0]
            """)
        expectProblem(
            #"{"peripherals": [{"preset": "led-button", "adapter": "hci1"}]}"#,
            #"peripherals[0].adapter: no adapter is named "hci1" (the adapters are: hci0)"#)
        expectProblem(
            #"{"adapters": [], "peripherals": [{"preset": "led-button"}]}"#,
            #"peripherals[0]: no adapter is named "hci0" (the adapters are: none)"#)
    }

    @Test func peripheralsAreChecked() {
        expectProblem(
            #"{"peripherals": [{"name": "anonymous"}]}"#,
            #"peripherals[0]: missing key "address" (a peripheral without a preset needs its address)"#)
        expectProblem(
            #"{"peripherals": [{"preset": "fridge"}]}"#,
            #"peripherals[0].preset: unknown preset "fridge" (the peripheral presets are: heart-rate-monitor, led-button)"#
        )
        expectProblem(
            #"{"peripherals": [{"preset": "led-button"}, {"preset": "heart-rate-monitor", "address": "C0:FF:EE:00:00:02"}]}"#,
            #"peripherals[1].address: "C0:FF:EE:00:00:02" is also the address of peripherals[0]"#)
        expectProblem(
            WorldJSON.onePeripheral(#"{"address": "C0:FF:EE:00:00:10", "batteryLevel": 50}"#),
            "peripherals[0].batteryLevel: applies only to a preset (describe a battery service instead)")
        expectProblem(
            #"{"peripherals": [{"preset": "led-button", "batteryLevel": 101}]}"#,
            "peripherals[0].batteryLevel: 101 is not a percentage (0…100)")
    }

    @Test func servicesAreChecked() {
        expectProblem(
            WorldJSON.services(#"{"preset": "thermometer"}"#),
            #"peripherals[0].services[0].preset: unknown preset "thermometer" (the service presets are: heart-rate, battery, device-information, led-button)"#
        )
        expectProblem(
            WorldJSON.services(#"{"preset": "battery", "level": 120, "location": "chest", "uuid": "180f"}"#),
            """
            peripherals[0].services[0].uuid: a preset service cannot have it (describe the service instead)
            peripherals[0].services[0].location: does not apply to the battery preset
            peripherals[0].services[0].level: 120 is not a percentage (0…100)
            """)
        expectProblem(
            WorldJSON.services(#"{"uuid": "ffe0", "level": 3}"#),
            "peripherals[0].services[0].level: applies only to a service preset")
        expectProblem(
            WorldJSON.services(#"{"primary": true}"#),
            #"peripherals[0].services[0]: missing key "uuid" (a service needs a uuid or a preset)"#)
        expectProblem(
            WorldJSON.services(#"{"preset": "heart-rate", "location": "knee", "rate": 0}"#),
            """
            peripherals[0].services[0].location: unknown body sensor location "knee" (the locations are: other, chest, wrist, finger, hand, ear-lobe, foot)
            peripherals[0].services[0].rate: must be a positive number
            """)
        expectProblem(
            WorldJSON.services(#"{"preset": "device-information", "systemID": "0102", "pnpID": "xx"}"#),
            """
            peripherals[0].services[0].systemID: must be 8 bytes, not 2
            peripherals[0].services[0].pnpID: "xx" is not hexadecimal bytes (like "0a0b", "0a 0b" or "0a:0b")
            """)
    }

    @Test func characteristicsAreChecked() {
        let path = "peripherals[0].services[0].characteristics[0]"
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read", "notfy"]}"#),
            "\(path).flags[1]: unknown flag \"notfy\" (the flags are: broadcast, read, write-without-response, "
                + "write, notify, indicate, authenticated-signed-writes, extended-properties, reliable-write, "
                + "writable-auxiliaries, encrypt-read, encrypt-write, encrypt-authenticated-read, "
                + "encrypt-authenticated-write, authorize, encrypt-notify)")
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": []}"#),
            "\(path).flags: a characteristic needs at least one flag")
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read"], "value": "00", "text": "a"}"#),
            "\(path): has both value and text; give one")
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read"], "notifications": {}}"#),
            "\(path).notifications: the characteristic has neither the notify nor the indicate flag")
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read"], "echo": true}"#),
            "\(path).echo: needs a writable characteristic that can notify or indicate")
        let long = String(repeating: "00", count: 513)
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["read"], "value": "\#(long)"}"#),
            "\(path).value: is 513 bytes long; an attribute value holds at most 512")
        expectProblem(
            WorldJSON.characteristics(#"{"uuid": "zz", "flags": ["read"], "text": "\#(long)"}"#),
            """
            \(path).uuid: "zz" is not a UUID (4 or 8 hex digits, or 128 bits as 8-4-4-4-12 hex digits)
            \(path).text: is 1026 bytes long; a value holds at most 512
            """)
    }

    @Test func notificationSourcesAreChecked() {
        let path = "peripherals[0].services[0].characteristics[0].notifications"
        func source(_ json: String) -> String {
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["notify"], "notifications": \#(json)}"#)
        }
        expectProblem(
            source(#"{"payload": "random"}"#),
            "\(path).payload: unknown payload \"random\" (the payloads are: numbered, sequence-byte, timestamped, cycle)"
        )
        expectProblem(source(#"{"size": 3}"#), "\(path): a numbered notification source needs payloads of 4…512 bytes")
        expectProblem(source(#"{"count": -1}"#), "\(path): a notification source's count is negative")
        expectProblem(source(#"{"rate": 0}"#), "\(path): a notification source's rate is not a positive number")
        expectProblem(source(#"{"payload": "cycle"}"#), "\(path): missing key \"cycle\" (the payloads of a cycle)")
        expectProblem(source(#"{"cycle": []}"#), "\(path): a cycling notification source has no payloads")
        expectProblem(
            source(#"{"cycle": ["01", "0"], "size": 2}"#),
            """
            \(path).size: does not apply to a cycle (each payload has its size)
            \(path).cycle[1]: "0" is not hexadecimal bytes (like "0a0b", "0a 0b" or "0a:0b")
            """)
        expectProblem(
            source(#"{"payload": "numbered", "cycle": ["01"]}"#), "\(path).cycle: applies only to payload: cycle")
    }

    @Test func descriptorsAreChecked() {
        let path = "peripherals[0].services[0].characteristics[0].descriptors[0]"
        func descriptor(_ json: String) -> String {
            WorldJSON.characteristics(#"{"uuid": "ffe1", "flags": ["notify"], "descriptors": [\#(json)]}"#)
        }
        expectProblem(
            descriptor(#"{"uuid": "2902"}"#),
            "\(path).uuid: the Client Characteristic Configuration descriptor (2902) is added by the simulator itself")
        expectProblem(
            descriptor(#"{"uuid": "2901", "flags": ["notify"]}"#),
            "\(path).flags[0]: unknown flag \"notify\" (the descriptor flags are: read, write, encrypt-read, "
                + "encrypt-write, encrypt-authenticated-read, encrypt-authenticated-write, authorize)")
        expectProblem(
            descriptor(#"{"uuid": "2901", "value": "1"}"#),
            "\(path).value: \"1\" is not hexadecimal bytes (like \"0a0b\", \"0a 0b\" or \"0a:0b\")")
    }

    @Test func everyProblemIsListedAndTheErrorSaysItIsTheWorld() throws {
        let json = #"{"peripherals": [{"preset": "x"}, {"address": "bad"}]}"#
        do {
            _ = try WorldJSON.world(json)
            Issue.record("no error")
        } catch {
            #expect(error.description.hasPrefix("invalid simulated world: peripherals[0].preset: unknown preset"))
            #expect(error.description.contains("\nperipherals[1].address: \"bad\" is not a device address"))
        }
    }

    @Test func locationsReadLikeThePathInTheFile() {
        #expect(WorldDescription.location([]) == "the file")
        let path: [any CodingKey] = [
            WorldFileKey(stringValue: "peripherals"), WorldFileKey(intValue: 2) ?? WorldFileKey(stringValue: "?"),
            WorldFileKey(stringValue: "name"),
        ]
        #expect(WorldDescription.location(path) == "peripherals[2].name")
        #expect(WorldDescription.problem(decoding: SimulatorError.notRunning) == "the simulator is not running")
    }
}
