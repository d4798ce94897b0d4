import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

/// The pairing agent answers bluetoothd (the owner of `org.bluez`) alone.
@Suite(.timeLimit(.minutes(1))) struct PairingAgentAccessTests {
    @Test func aCallFromAnotherConnectionIsRefusedAndNeverReachesTheHandler() async throws {
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(Lab.peripheral)]))) { fixture in
            let asked = Mutex<[PairingRequest]>([])
            let agent = try await fixture.central.registerPairingAgent { request in
                asked.withLock { $0.append(request) }
                return .accept
            }
            let intruder = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            let device = DBusValue.objectPath(try DBusObjectPath(Lab.devicePath))
            for (member, arguments) in [
                ("RequestConfirmation", [device, .uint32(123_456)]), ("RequestAuthorization", [device]),
                ("Release", [DBusValue]()), ("Cancel", []),
            ] {
                do {
                    _ = try await intruder.call(
                        destination: fixture.central.connection.uniqueName, path: agent.path,
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
