import RippleBlueZ
import RippleBlueZSimulator
import RippleTestSupport
import Testing

/// The pairing agent answers bluetoothd (the owner of `org.bluez`) alone.
@Suite(.timeLimit(Patience.test)) struct PairingAgentAccessTests {
    @Test func aCallFromAnotherConnectionIsRefusedAndNeverReachesTheHandler() async throws {
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(Lab.peripheral)]))) { fixture in
            try await expectTheAgentRefusesAnotherConnection(
                owner: fixture.central.connection, bus: fixture.bus, loop: fixture.thread.loop, device: Lab.devicePath
            ) { handler in
                try await fixture.central.registerPairingAgent(handler: handler)
            }
        }
    }
}
