import Ripple
import RippleBlueZ
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

/// The peripheral side's pairing agent: registered through the ``PeripheralManager``'s connection, one per
/// connection, answering bluetoothd alone.
@Suite(.timeLimit(.minutes(1))) struct PeripheralPairingAgentTests {
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
            let asked = Mutex<[PairingRequest]>([])
            let agent = try await fixture.manager.registerPairingAgent { request in
                asked.withLock { $0.append(request) }
                return .accept
            }
            let intruder = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            let device = DBusValue.objectPath(try DBusObjectPath("/org/bluez/hci1/dev_00_1A_7D_DA_71_13"))
            for (member, arguments) in [
                ("RequestConfirmation", [device, .uint32(123_456)]), ("RequestAuthorization", [device]),
            ] {
                do {
                    _ = try await intruder.call(
                        destination: fixture.manager.connection.uniqueName, path: agent.path,
                        interface: "org.bluez.Agent1", member: member, arguments: arguments
                    ).values.first { _ in true }
                    Issue.record("\(member) from another connection was answered")
                } catch let DBusError.remote(name, _) {
                    #expect(name == "org.freedesktop.DBus.Error.AccessDenied")
                }
            }
            #expect(asked.withLock { $0 }.isEmpty)
            intruder.close()
            agent.unregister()
        }
    }
}
