import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(Patience.test)) struct ConnectionTaskTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func tasksRunBeforeReadyAndOtherOperationsWaitForThem() async throws {
        let writes = WriteLog()
        try await withFixture(CentralFixture(world: Lab.world(loggingWritesTo: writes))) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let early = Mutex<TestSubscriber<Void, BluetoothError>?>(nil)
            let sensor = self.sensor
            let central = fixture.central
            let task = central.onConnect(Lab.address) { privileged in
                // An ordinary operation asked for while the task runs waits for it.
                if let plain = central.peripheral(address: Lab.address) {
                    early.withLock { $0 = TestSubscriber(plain.write([1], to: sensor)) }
                }
                return privileged.write([0xA5], to: sensor)
            }
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            let plainWrite = try #require(early.withLock { $0 })
            try await plainWrite.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(plainWrite.completion == .finished)
            #expect(writes.values == [[0xA5], [1]])
            #expect(events.values.map(\.name) == ["connecting", "connected", "ready"])
            #expect(peripheral.isConnected)
            task.cancel()
        }
    }

    @Test func aFailingTaskFailsTheConnectionAndTakesTheLinkDown() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let task = fixture.central.onConnect(Lab.address) { _ in
                Fail(error: BluetoothError(.insufficientAuthentication, "wrong PIN")).eraseToAnyPublisher()
            }
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: Lab.address)
                Issue.record("connected although the task failed")
            } catch {
                #expect(error.kind == .connectionFailed)
                #expect(error.message == "a connection task failed: wrong PIN")
            }
            task.cancel()
            // Without the task the connection succeeds.
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            #expect(peripheral.isConnected)
        }
    }

    @Test func tasksRunAgainAfterEachReconnection() async throws {
        let writes = WriteLog()
        try await withFixture(CentralFixture(world: Lab.world(loggingWritesTo: writes))) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let sensor = self.sensor
            let task = fixture.central.onConnect(Lab.address) { privileged in privileged.write([0xA5], to: sensor) }
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            _ = try await fixture.central.connectPeripheral(
                to: Lab.address, autoReconnect: ReconnectPolicy(delays: [.zero]))
            try await fixture.simulator.disconnect(peripheral: Lab.address, reason: .remote)
            try await events.wait(timeout: Patience.step) { $0.values.contains { $0.name == "autoConnected" } }
            #expect(writes.values == [[0xA5], [0xA5]])
            task.cancel()
        }
    }
}
