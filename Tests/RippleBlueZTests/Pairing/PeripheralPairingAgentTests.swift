import Ripple
import RippleBlueZ
import RippleTestSupport
import Testing

/// The peripheral side's pairing agent: registered through the ``PeripheralManager``'s connection, one per
/// connection, answering bluetoothd alone.
@Suite(.timeLimit(Patience.test)) struct PeripheralPairingAgentTests {
    static let services = [
        LocalService(.battery) { LocalCharacteristic(.batteryLevel, properties: [.read, .encryptRead], value: [90]) }
    ]

    @Test func aSecondAgentOnTheSameConnectionFailsWithAlreadyExists() async throws {
        try await withFixture(PeripheralFixture(services: Self.services)) { fixture in
            let agent = try await fixture.manager.registerPairingAgent(capability: .noInputNoOutput) { _ in .accept }
            do throws(BluetoothError) {
                _ = try await fixture.manager.registerPairingAgent { _ in .accept }
                Issue.record("a second agent was registered on the same connection")
            } catch {
                #expect(error.bluezName == "org.bluez.Error.AlreadyExists")
            }
            agent.unregister()
            // Unregistered, the connection may register again.
            let again = try await fixture.manager.registerPairingAgent { _ in .accept }
            again.unregister()
        }
    }

    @Test func aCallFromAnotherConnectionIsRefusedAndNeverReachesTheHandler() async throws {
        try await withFixture(PeripheralFixture(services: Self.services)) { fixture in
            try await expectTheAgentRefusesAnotherConnection(
                owner: fixture.manager.connection, bus: fixture.bus, loop: fixture.thread.loop,
                device: "/org/bluez/hci1/" + PeripheralFixture.centralAddress.bluezPathComponent
            ) { handler in
                try await fixture.manager.registerPairingAgent(handler: handler)
            }
        }
    }
}
