import RippleDBus
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

private let characteristic = monitorPath + "/service0001/char0002"  // 0x2A38, read
private let options = DBusValue.stringVariantDictionary([:])

/// Each fault the simulator offers, as a plain D-Bus client sees it.
@Suite struct FaultTests {
    private func connected(
        _ configuration: BlueZSimulator.Configuration = .init(connectTimeout: .milliseconds(200))
    ) async throws -> SimulatorFixture {
        let fixture = try await SimulatorFixture(
            world: SimulatedWorld(peripherals: [.init(monitor(known: true))]), configuration: configuration)
        try await fixture.connectAndResolve(monitorPath)
        return fixture
    }

    @Test func anOperationAnsweredWithAChosenErrorOnceThenNormally() async throws {
        try await withFixture(connected()) { fixture in
            try await fixture.simulator.inject(.fail(.notAuthorized), on: .read(0x2A38), of: monitorAddress)
            #expect(
                try await fixture.error(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options])
                    == .notAuthorized)
            #expect(
                try await fixture.call(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options]) == [
                    .bytes([1])
                ])
        }
    }

    @Test func anErrorAfterADelayAndFaultsEveryTimeUntilCleared() async throws {
        try await withFixture(connected()) { fixture in
            let busy = BlueZError.failed("Operation failed with ATT error: 0x0e")
            try await fixture.simulator.inject(
                .failAfter(.milliseconds(20), busy), on: .read(0x2A38), of: monitorAddress, times: nil)
            #expect(
                try await fixture.error(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options]) == busy
            )
            #expect(
                try await fixture.error(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options]) == busy
            )
            try await fixture.simulator.clearFaults(of: monitorAddress)
            #expect(
                try await fixture.error(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options]) == nil)
            await #expect(throws: SimulatorError.invalidWorld("a fault must apply at least once (times: 0)")) {
                try await fixture.simulator.inject(.fail(.notSupported), on: .pair, of: monitorAddress, times: 0)
            }
            await #expect(throws: SimulatorError.unknownPeripheral("C0:FF:EE:00:00:99")) {
                try await fixture.simulator.inject(.fail(.notSupported), on: .pair, of: "C0:FF:EE:00:00:99")
            }
        }
    }

    @Test func aDelayedAnswerKeepsTheOperationOutstanding() async throws {
        try await withFixture(connected()) { fixture in
            try await fixture.simulator.inject(.delay(.milliseconds(30)), on: .read(0x2A38), of: monitorAddress)
            async let first = fixture.call(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options])
            async let joined = fixture.call(characteristic, "org.bluez.GattCharacteristic1", "ReadValue", [options])
            // bluetoothd answers a read made while one with the same offset is outstanding with the same result.
            #expect(try await first == [.bytes([1])])
            #expect(try await joined == [.bytes([1])])
        }
    }

    @Test func aDisconnectAtAGivenMoment() async throws {
        try await withFixture(connected(.init(connectTimeout: .milliseconds(200), signalsDisconnectionReasons: true))) {
            fixture in
            let disconnected = try await fixture.signals(deviceInterface, "Disconnected")
            let scheduled = ContinuousClock.now
            try await fixture.simulator.disconnect(
                peripheral: monitorAddress, after: .milliseconds(20), reason: .timeout)
            let signal = await disconnected.wait(for: 1)
            // Not before the moment asked for (a lower bound only: a loaded machine may be later).
            #expect(ContinuousClock.now - scheduled >= .milliseconds(20))
            #expect(signal.first?.body == [.string("org.bluez.Reason.Timeout"), .string("Connection timeout")])
            #expect(try await fixture.property(monitorPath, deviceInterface, "Connected") == .boolean(false))
        }
    }

    @Test func aPeripheralThatIsGoneCannotBeConnectedOrPaired() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            try await fixture.simulator.setInRange(false, peripheral: monitorAddress)
            #expect(
                try await fixture.error(monitorPath, deviceInterface, "Connect")
                    == .failed("le-connection-abort-by-local"))
            #expect(try await fixture.error(monitorPath, deviceInterface, "Pair") == .failed("Page Timeout"))
            try await fixture.simulator.setInRange(true, peripheral: monitorAddress)
            #expect(try await fixture.error(monitorPath, deviceInterface, "Connect") == nil)
        }
    }
}
