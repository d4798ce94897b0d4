import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// Listening set up before connecting, in LittleBlueTooth's `connectableListenPublisher` shape: the
/// channel and its subscribers first, the connection after.
@Suite(.timeLimit(Patience.test)) struct ConnectableListenTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func subscribersMadeBeforeTheConnectionReceiveOnceThePeripheralIsReady() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let channel = fixture.central.connectableListen(to: sensor, of: Lab.address, as: UInt8.self)
            let first = TestSubscriber(channel)
            let second = TestSubscriber(channel.map { $0 * 2 })
            let armed = channel.connect()
            let peripheral = try await fixture.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 2 }
            try await second.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(first.values == [1, 2])
            #expect(second.values == [2, 4])
            // The link ends and a new one starts: the channel listens again, its subscribers see no end.
            try await peripheral.disconnectPeripheral()
            _ = try await fixture.central.connectPeripheral(to: Lab.address)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[3]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(first.values == [1, 2, 3])
            #expect(first.completion == nil)
            armed.cancel()
            first.cancel()
            second.cancel()
        }
    }

    @Test func aChannelArmedWhileThePeripheralIsConnectedListensAtOnce() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.connect()
            let channel = fixture.central.connectableListen(to: sensor, of: Lab.address)
            let listener = TestSubscriber(channel)
            let armed = channel.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[7, 7]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(listener.values == [[7, 7]])
            armed.cancel()
            listener.cancel()
        }
    }
}
