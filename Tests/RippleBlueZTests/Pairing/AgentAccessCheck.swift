import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleLoop
import Synchronization
import Testing

/// Checks that a pairing agent answers bluetoothd (the owner of `org.bluez`) alone: registers an agent
/// whose handler records each request, calls each of its `org.bluez.Agent1` methods from a connection of
/// its own, and expects every call refused with `AccessDenied` and no request reaching the handler.
///
/// - Parameters:
///   - owner: the connection the agent is registered on (the central's or the peripheral manager's).
///   - bus: the test's bus, for the intruding connection.
///   - loop: the loop the intruding connection runs on.
///   - device: the device object path the intruder names in its requests.
///   - register: registers the agent with the given handler.
/// - Throws: what `register` or the intruder's connection throws.
func expectTheAgentRefusesAnotherConnection(
    owner: DBusConnection, bus: SimulatedBus, loop: EventLoop, device: String,
    register: (@escaping PairingHandler) async throws -> PairingAgent
) async throws {
    let asked = Mutex<[PairingRequest]>([])
    let agent = try await register { request in
        asked.withLock { $0.append(request) }
        return .accept
    }
    let intruder = try DBusConnection(bus: bus.bus, loop: loop)
    let devicePath = DBusValue.objectPath(try DBusObjectPath(device))
    for (member, arguments) in [
        ("RequestConfirmation", [devicePath, .uint32(123_456)]), ("RequestAuthorization", [devicePath]),
        ("Release", [DBusValue]()), ("Cancel", []),
    ] {
        do {
            _ = try await intruder.call(
                destination: owner.uniqueName, path: agent.path, interface: "org.bluez.Agent1", member: member,
                arguments: arguments
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
