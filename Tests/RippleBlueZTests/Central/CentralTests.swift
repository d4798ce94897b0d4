import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

private let monitorAddress: BluetoothAddress = "C0:FF:EE:00:00:01"

private func monitorWorld(rate: Double = 200, adapters: [SimulatedAdapter] = [SimulatedAdapter()]) -> SimulatedWorld {
    SimulatedWorld(adapters: adapters, peripherals: [.init(.heartRateMonitor(rate: rate))])
}

@Suite struct CentralTests {
    @Test func theStateIsPoweredOnAndTheAdapterIsListed() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            #expect(fixture.central.currentState == .poweredOn)
            #expect(fixture.central.adapters.map(\.name) == ["hci0"])
            #expect(fixture.central.adapter?.isPowered == true)
        }
    }

    @Test func theDefaultAdapterIsTheLowestNumberedPoweredOne() async throws {
        let adapters = [
            SimulatedAdapter(name: "hci2", address: "00:1A:7D:DA:71:15"),
            SimulatedAdapter(name: "hci0", address: "00:1A:7D:DA:71:13", isPowered: false),
            SimulatedAdapter(name: "hci1", address: "00:1A:7D:DA:71:14"),
        ]
        for _ in 0..<3 {
            try await withFixture(CentralFixture(world: SimulatedWorld(adapters: adapters))) { fixture in
                #expect(fixture.central.adapters.map(\.name) == ["hci0", "hci1", "hci2"])
                #expect(fixture.central.adapter?.name == "hci1")
            }
        }
    }

    @Test func anOperationOnAPoweredOffAdapterFailsAtOnce() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            let states = fixture.central.state.values
            for await state in states where state == .poweredOff { break }
            await #expect(throws: BluetoothError.poweredOff) {
                _ = try await fixture.central.startDiscovery().first().values.first { _ in true }
            }
        }
    }

    @Test func discoveryFindsTheMonitorWithItsAdvertisement() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            var found: PeripheralDiscovery?
            for try await discovery in fixture.central.startDiscovery(filter: .services([.heartRate])).first().values {
                found = discovery
            }
            #expect(found?.address == monitorAddress)
            #expect(found?.name == "Ripple HRM")
            #expect(found?.serviceUUIDs.contains(.heartRate) == true)
            #expect((-58 ... -52).contains(found?.rssi ?? 0))
        }
    }

    @Test func connectEmitsTheReadyPeripheralAndTheEventsInOrder() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            _ = try await fixture.central.startDiscovery().first().values.first { _ in true }
            let peripheral = try await fixture.central.connectPeripheral(to: monitorAddress)
            #expect(peripheral.address == monitorAddress)
            #expect(peripheral.services.map(\.uuid).contains(.heartRate))
            #expect(events.values.map(\.name) == ["connecting", "connected", "ready"])
            try await fixture.central.disconnect(peripheral).values.first { _ in true }
            try await events.wait(timeout: Patience.step) { $0.valueCount == 4 }
            #expect(events.values.last == .disconnected(peripheral, .local))
        }
    }

    @Test func connectWithoutTheConnectedSignalStillYieldsAReadyPeripheral() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            _ = try await fixture.central.startDiscovery().first().values.first { _ in true }
            try await fixture.simulator.inject(.connectWithoutConnectedSignal, on: .connect, of: "C0:FF:EE:00:00:01")
            let peripheral = try await fixture.central.connectPeripheral(to: monitorAddress)
            #expect(try await peripheral.readValue(.bodySensorLocation) == [1])
        }
    }

    @Test func readsDecodeAndTooFewBytesFailClearly() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            _ = try await fixture.central.startDiscovery().first().values.first { _ in true }
            let peripheral = try await fixture.central.connectPeripheral(to: monitorAddress)
            #expect(try await peripheral.readValue(.batteryLevel, as: UInt8.self) == 87)
            await #expect(
                throws: BluetoothError.invalidValue(
                    ValueDecodingError(
                        typeName: "UInt16", offset: 0, reason: .tooFewBytes(needed: 2, available: 1)))
            ) {
                _ = try await peripheral.readValue(.batteryLevel, as: UInt16.self)
            }
        }
    }

    @Test func twoListenersShareOneSessionAndCancellingOneLeavesTheOther() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            _ = try await fixture.central.startDiscovery().first().values.first { _ in true }
            let peripheral = try await fixture.central.connectPeripheral(to: monitorAddress)
            let first = TestSubscriber(peripheral.listen(to: .heartRateMeasurement))
            let second = TestSubscriber(peripheral.listen(to: .heartRateMeasurement))
            try await second.wait(timeout: Patience.step) { $0.valueCount >= 3 }
            first.cancel()
            let seen = second.values.count
            try await second.wait(timeout: Patience.step) { $0.valueCount >= seen + 5 }
            #expect(second.values.count >= seen + 5)
            #expect(second.completion == nil)
        }
    }
}

extension CentralTests {
    @Test func theScanConnectListenPipelineDeliversTypedMeasurements() async throws {
        try await withFixture(CentralFixture(world: monitorWorld())) { fixture in
            let measurements = TestSubscriber(
                fixture.central.startDiscovery(filter: .services([.heartRate]))
                    .first()
                    .connect(on: fixture.central)
                    .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
                    .prefix(3))
            try await measurements.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(measurements.completion == .finished)
            #expect(measurements.values.count == 3)
            #expect(measurements.values.allSatisfy { (40...200).contains($0.beatsPerMinute) })
        }
    }
}

extension ConnectionEvent {
    var name: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .ready: "ready"
        case .connectionFailed: "failed"
        case .disconnected: "disconnected"
        case .autoConnected: "autoConnected"
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct CentralAccessTests {
    @Test func aBusThatRefusesThisProcessGivesNotAuthorized() async throws {
        try await withFixture(CentralFixture(world: monitorWorld(), waitUntilReady: false, refusingClients: true)) {
            fixture in
            await #expect(throws: BluetoothError.self) { try await fixture.central.waitUntilReady() }
            #expect(fixture.central.currentState == .unauthorized)
            do {
                _ = try await fixture.central.startDiscovery().values.first { _ in true }
                Issue.record("discovery started on a bus that refuses this process")
            } catch {
                #expect((error as? BluetoothError)?.kind == .unauthorized)
            }
        }
    }
}

/// `waitUntilReady` waits out the states bluetoothd passes through while it comes up (here: the adapter
/// powered off, then powered on, as bluetoothd does at start), within its patience.
@Suite(.timeLimit(Patience.test)) struct CentralReadinessTests {
    private static let offWorld = monitorWorld(adapters: [SimulatedAdapter(isPowered: false)])

    @Test func anAdapterPoweredOnWithinThePatienceEndsTheWaitWithoutAnError() async throws {
        try await withFixture(CentralFixture(world: Self.offWorld, waitUntilReady: false)) { fixture in
            let states = TestSubscriber(fixture.central.state.setFailureType(to: BluetoothError.self))
            try await states.wait(timeout: Patience.step) { $0.values.last == .poweredOff }
            let central = fixture.central
            let (started, starting) = AsyncStream<Void>.makeStream()
            let waiting = Task { () async -> BluetoothError? in
                starting.yield()
                do throws(BluetoothError) {
                    try await central.waitUntilReady(patience: .seconds(60))
                    return nil
                } catch {
                    return error
                }
            }
            // The wait has begun on the powered-off state; the power-on's signal comes a bus round trip later.
            for await _ in started { break }
            try await fixture.simulator.setPowered(true, adapter: "hci0")
            let failure = await waiting.value
            #expect(failure == nil)
            #expect(fixture.central.currentState == .poweredOn)
            states.cancel()
        }
    }

    @Test func aStateThatOutlastsThePatienceIsThrown() async throws {
        try await withFixture(CentralFixture(world: Self.offWorld, waitUntilReady: false)) { fixture in
            await #expect(throws: BluetoothError.poweredOff) {
                try await fixture.central.waitUntilReady(patience: .milliseconds(50))
            }
            await #expect(throws: BluetoothError.poweredOff) {
                try await fixture.central.waitUntilReady(patience: .zero)
            }
        }
    }
}
