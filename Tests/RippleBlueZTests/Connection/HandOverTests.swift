import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct HandOverTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func aHandedOverPeripheralIsLeftToTheOtherToolAndTakenBack() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }

            let handOver = try await peripheral.handOver()
            #expect(handOver.devicePath == peripheral.path)
            let sensorPath = try #require(handOver.attributePaths[Lab.sensor]?.first)
            // The other tool subscribes on its own connection: bluetoothd would refuse it while the central
            // held the notification socket.
            let tool = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            _ = try await tool.call(
                destination: "org.bluez", path: sensorPath, interface: "org.bluez.GattCharacteristic1",
                member: "StartNotify"
            ).values.first { _ in true }
            // The central's operations wait meanwhile.
            let waitingRead = TestSubscriber(peripheral.read(sensor))
            _ = try await tool.call(
                destination: "org.bluez", path: sensorPath, interface: "org.bluez.GattCharacteristic1",
                member: "StopNotify"
            ).values.first { _ in true }
            #expect(waitingRead.completion == nil)
            tool.close()

            handOver.takeBack()
            try await waitingRead.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(waitingRead.completion == .finished)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[1], [2]])
            #expect(listener.completion == nil)
        }
    }

    @Test func aPeripheralIsHandedOverOnceAndOnlyWhenConnected() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let handOver = try await peripheral.handOver()
            await #expect(throws: BluetoothError.self) { _ = try await peripheral.handOver() }
            handOver.takeBack()
            try await peripheral.disconnectPeripheral()
            do throws(BluetoothError) {
                _ = try await peripheral.handOver()
                Issue.record("a disconnected peripheral was handed over")
            } catch {
                #expect(error.kind == .notConnected)
            }
        }
    }
}
