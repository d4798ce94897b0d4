import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct GATTOperationTests {
    private let sensor = CharacteristicReference(Lab.sensor)
    private let labAddress: BluetoothAddress = Lab.address

    @Test func theTreeHasServicesCharacteristicsAndDescriptorsWithTheirUUIDs() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let lab = try #require(peripheral.services.first { $0.uuid == Lab.service })
            #expect(lab.isPrimary)
            #expect(
                lab.characteristics.map(\.uuid) == [Lab.sensor, Lab.marker, Lab.indicator, Lab.stream])
            let sensor = try #require(lab.characteristics.first)
            #expect(sensor.flags == ["read", "write-without-response", "write", "notify"])
            #expect(sensor.isReadable && sensor.canNotify)
            #expect(sensor.properties == [.read, .writeWithoutResponse, .write, .notify])
            #expect(lab.characteristics.map(\.properties.canNotify) == [true, true, true, true])
            #expect(sensor.serviceUUID == Lab.service)
            // bluetoothd lists the Client Characteristic Configuration descriptor of a characteristic that notifies.
            #expect(
                sensor.descriptors.map(\.uuid) == [
                    .clientCharacteristicConfiguration, .characteristicUserDescription, Lab.setting,
                ])
            #expect(peripheral.mtu(of: self.sensor) == 185)
        }
    }

    @Test func writesWithAndWithoutResponseReachThePeripheral() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await peripheral.writeValue([1, 2, 3], to: sensor)
            #expect(try await fixture.simulator.value(of: Lab.sensor, peripheral: labAddress) == [1, 2, 3])
            try await peripheral.writeValue(UInt16(0x0405), to: sensor)
            #expect(try await peripheral.readValue(sensor) == [5, 4])
            try await peripheral.writeValue([9], to: sensor, type: .withoutResponse)
            // A write without response is answered before the peripheral takes it; a read after it sees it
            // (one link, in order).
            #expect(try await peripheral.readValue(sensor) == [9])
        }
    }

    @Test func aLongWriteIsWrittenWholeAndTooLongWritesFailAtOnce() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let long = (0..<400).map { UInt8(truncatingIfNeeded: $0) }
            try await peripheral.writeValue(long, to: sensor)
            #expect(try await peripheral.readValue(sensor) == long)
            do throws(BluetoothError) {
                try await peripheral.writeValue(long, to: sensor, type: .withoutResponse)
                Issue.record("a write without response longer than MTU - 3 was sent")
            } catch {
                #expect(error.kind == .invalidArgument)
                #expect(error.message.contains("MTU 185 allows 182"))
            }
            do throws(BluetoothError) {
                try await peripheral.writeValue([UInt8](repeating: 1, count: 513), to: sensor)
                Issue.record("a 513-byte write was sent")
            } catch {
                #expect(error.kind == .invalidArgument)
            }
            #expect(try await peripheral.readValue(sensor) == long)
        }
    }

    @Test func descriptorsAreReadAndWritten() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let description = try await peripheral.read(
                descriptor: .characteristicUserDescription, of: sensor, as: String.self
            )
            .values.first { _ in true }
            #expect(description == "Sensor")
            #expect(
                try await peripheral.read(descriptor: Lab.setting, of: sensor).values.first { _ in true } == [
                    7, 7,
                ])
            try await peripheral.write([1, 2], toDescriptor: Lab.setting, of: sensor).values.first { _ in true
            }
            #expect(try await fixture.simulator.value(of: Lab.setting, peripheral: labAddress) == [1, 2])
            // bluetoothd keeps the configuration descriptor to itself: listen instead.
            do {
                for try await _ in peripheral.write(
                    [1, 0], toDescriptor: .clientCharacteristicConfiguration, of: sensor
                )
                .values {}
                Issue.record("a write to the configuration descriptor succeeded")
            } catch {
                #expect((error as? BluetoothError)?.kind == .notPermitted)
            }
        }
    }

    @Test func anUnknownCharacteristicOrDescriptorFailsAsAttributeNotFound() async throws {
        try await withFixture(CentralFixture(world: Lab.world, attributeTimeout: .milliseconds(200))) { fixture in
            let peripheral = try await fixture.connect()
            for operation in [
                { () async throws in _ = try await peripheral.readValue(.heartRateMeasurement) },
                { () async throws in try await peripheral.writeValue([1], to: .heartRateControlPoint) },
                { () async throws in
                    for try await _ in peripheral.read(
                        descriptor: .characteristicUserDescription, of: CharacteristicReference(Lab.marker)
                    ).values {}
                },
            ] {
                do {
                    try await operation()
                    Issue.record("an operation on a missing attribute succeeded")
                } catch {
                    #expect((error as? BluetoothError)?.kind == .attributeNotFound)
                }
            }
        }
    }

    @Test func bluetoothdsErrorsKeepTheirNameAndMessage() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await fixture.simulator.inject(
                .fail(.notPermitted("Read not permitted")), on: .read(Lab.sensor), of: labAddress)
            do throws(BluetoothError) {
                _ = try await peripheral.readValue(sensor)
                Issue.record("the read succeeded")
            } catch {
                #expect(error.kind == .notPermitted)
                #expect(error.bluezName == "org.bluez.Error.NotPermitted")
                #expect(error.bluezMessage == "Read not permitted")
            }
            try await fixture.simulator.inject(.fail(.attError(0x0E)), on: .write(Lab.sensor), of: labAddress)
            do throws(BluetoothError) {
                try await peripheral.writeValue([1], to: sensor)
                Issue.record("the write succeeded")
            } catch {
                #expect(error.kind == .attError(0x0E))
            }
            // ATT's Insufficient Authentication and Encryption reach the client as NotPermitted "Not paired":
            // pairing is what is missing.
            for code: UInt8 in [0x05, 0x0F, 0x0C] {
                try await fixture.simulator.inject(.fail(.attError(code)), on: .read(Lab.sensor), of: labAddress)
                do throws(BluetoothError) {
                    _ = try await peripheral.readValue(sensor)
                    Issue.record("the read succeeded")
                } catch {
                    #expect(error.kind == .insufficientAuthentication)
                    #expect(error.bluezName == "org.bluez.Error.NotPermitted")
                    #expect(error.bluezMessage == "Not paired")
                }
            }
        }
    }

    @Test func operationsOnADisconnectedPeripheralFailAtOnceAsNotConnected() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await peripheral.disconnectPeripheral()
            for operation in [
                { () async throws in _ = try await peripheral.readValue(self.sensor) },
                { () async throws in try await peripheral.writeValue([1], to: self.sensor) },
                { () async throws in for try await _ in peripheral.notifications(of: self.sensor) {} },
            ] {
                do {
                    try await operation()
                    Issue.record("an operation on a disconnected peripheral succeeded")
                } catch {
                    #expect((error as? BluetoothError)?.kind == .notConnected)
                }
            }
        }
    }

    @Test func thePipelineOperatorsChainScanConnectReadAndDisconnect() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let values = TestSubscriber(
                fixture.central.startDiscovery(filter: .services([Lab.service]))
                    .first()
                    .connect(on: fixture.central)
                    .write([4, 2], to: sensor)
                    .read(sensor)
            )
            try await values.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(values.values == [[4, 2]])
            #expect(values.completion == .finished)
        }
    }
}
