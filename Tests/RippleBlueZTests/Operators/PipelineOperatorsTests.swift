import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// The pipeline operators (scan → connect → read / write / listen → disconnect) and their async forms run
/// each step on each peripheral and end when the pipeline does.
@Suite(.timeLimit(Patience.test)) struct PipelineOperatorsTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    /// The lab peripheral, discovered by `central` and connected through the `connect(on:)` operator.
    private func labConnection(_ central: Central) -> AnyPublisher<Peripheral, BluetoothError> {
        central.startDiscovery().first { $0.address == Lab.address }.connect(on: central)
    }

    /// The lab peripheral once connected, as a one-value pipeline (a connected peripheral does not advertise,
    /// so it is not discovered again).
    private func connectedLab(_ central: Central) throws -> AnyPublisher<Peripheral, BluetoothError> {
        let peripheral = try #require(central.peripheral(address: Lab.address))
        return Just(peripheral).setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
    }

    @Test func aDiscoveryIsConnectedThenReadAndTheWholePipelineFinishes() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let bytes = TestSubscriber<[UInt8], BluetoothError>()
            labConnection(fixture.central).read(sensor).subscribe(bytes)
            #expect(try await bytes.waitForCompletion(timeout: Patience.step) == .finished)
            #expect(bytes.values == [[0]])
            let decoded = TestSubscriber<UInt8, BluetoothError>()
            try connectedLab(fixture.central).read(sensor, as: UInt8.self).subscribe(decoded)
            #expect(try await decoded.waitForCompletion(timeout: Patience.step) == .finished)
            #expect(decoded.values == [0])
        }
    }

    @Test func aWritePassesThePeripheralOnAndDisconnectEndsTheLink() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let written = TestSubscriber<[UInt8], BluetoothError>()
            labConnection(fixture.central).write([4, 2], to: sensor).read(sensor).subscribe(written)
            #expect(try await written.waitForCompletion(timeout: Patience.step) == .finished)
            #expect(written.values == [[4, 2]])
            #expect(
                try await fixture.simulator.value(of: Lab.sensor, peripheral: Lab.address) == [4, 2])

            let disconnected = TestSubscriber<Void, BluetoothError>()
            try connectedLab(fixture.central).disconnect().subscribe(disconnected)
            #expect(try await disconnected.waitForCompletion(timeout: Patience.step) == .finished)
            #expect(disconnected.values.count == 1)
            #expect(fixture.central.peripheral(address: Lab.address)?.isConnected != true)
        }
    }

    @Test func listenDeliversEachNotificationOfTheConnectedPeripheral() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let raw = TestSubscriber<[UInt8], BluetoothError>()
            labConnection(fixture.central).listen(to: sensor).subscribe(raw)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2], [3]])
            #expect(try await raw.waitForValues(3, timeout: Patience.step) == [[1], [2], [3]])
            raw.cancel()
        }
    }

    @Test func listenAsATypeDecodesEachNotification() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let typed = TestSubscriber<UInt8, BluetoothError>()
            labConnection(fixture.central).listen(to: sensor, as: UInt8.self).subscribe(typed)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[4], [5]])
            #expect(try await typed.waitForValues(2, timeout: Patience.step) == [4, 5])
            typed.cancel()
        }
    }

    @Test func theAsyncFormsConnectReadWriteListenAndDisconnect() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            #expect(try await peripheral.readValue(sensor) == [0])
            try await peripheral.writeValue([8], to: sensor)
            #expect(try await peripheral.readValue(sensor, as: UInt8.self) == 8)
            try await peripheral.writeValue(UInt16(0x0201), to: sensor)
            #expect(try await peripheral.readValue(sensor) == [1, 2])

            let listening = Task {
                var received: [UInt8] = []
                for try await value in peripheral.notifications(of: sensor, as: UInt8.self) {
                    received.append(value)
                    if received.count == 2 { break }
                }
                return received
            }
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[5], [6]])
            #expect(try await listening.value == [5, 6])

            try await peripheral.disconnectPeripheral()
            #expect(!peripheral.isConnected)
        }
    }
}
