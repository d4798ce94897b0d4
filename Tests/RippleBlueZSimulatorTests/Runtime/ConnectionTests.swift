import RippleDBus
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

/// What a client sees of a device's connection: its property changes, signals and tree changes, in order.
private func timeline(_ messages: [DBusMessage]) -> [String] {
    messages.compactMap { message in
        switch message.member {
        case "PropertiesChanged":
            guard message.path?.description == monitorPath, let change = message.propertiesChange else { return nil }
            let changed = change.changed.keys.sorted().map { "\($0)=\(change.changed[$0].map { "\($0)" } ?? "")" }
            return changed.joined(separator: ",")
        case "InterfacesAdded", "InterfacesRemoved":
            guard let path = message.body.first?.objectPath?.description, path.hasPrefix(monitorPath + "/") else {
                return nil
            }
            return "\(message.member == "InterfacesAdded" ? "+" : "-")\(path.dropFirst(monitorPath.count + 1))"
        case "Disconnected":
            return "Disconnected(\(message.body.first?.string ?? ""))"
        default:
            return nil
        }
    }
}

private func everything(_ fixture: SimulatorFixture) async throws -> SignalLog {
    let log = SignalLog(fixture.client.signals(matching: DBusMatchRule(sender: "org.bluez")))
    for try await _ in fixture.client.synchronize().values {}
    return log
}

@Suite struct ConnectionTests {
    @Test func connectThenDisconnectInBluetoothdsOrder() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            let log = try await everything(fixture)
            _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
            // bluetoothd answers Connect() once the link is up (Connected=true came before the answer), and
            // discovers the services after.
            #expect(timeline(log.messages).first == "Connected=true")
            await log.wait { timeline($0).contains("ServicesResolved=true") }
            _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
            let messages = await log.wait { timeline($0).last == "Connected=false" }
            #expect(
                timeline(messages) == [
                    // UUIDs already held 0x180D (advertised), so it does not change. The GATT objects stay
                    // (bluetoothd 5.66's attribute cache), and there is no Disconnected signal (5.83 and later).
                    "Connected=true", "+service0001", "+service0001/char0002", "ServicesResolved=true",
                    "ServicesResolved=false", "Connected=false",
                ])
        }
    }

    /// bluetoothd 5.83 and later also say why a link ended, before `Connected` turns false.
    @Test func aNewerBluetoothdSignalsTheDisconnectionReason() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor(known: true))]), configuration: Self.signallingReasons
            )
        ) { fixture in
            let log = try await everything(fixture)
            try await fixture.connectAndResolve(monitorPath)
            _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
            let messages = await log.wait { timeline($0).last == "Connected=false" }
            #expect(
                Array(timeline(messages).suffix(3)) == [
                    "ServicesResolved=false", "Disconnected(org.bluez.Reason.Local)", "Connected=false",
                ])
        }
    }

    static let signallingReasons = BlueZSimulator.Configuration(
        connectTimeout: .milliseconds(200), signalsDisconnectionReasons: true)

    @Test func thePeripheralDisconnectingIsReportedWithItsReason() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor(known: true))]), configuration: Self.signallingReasons
            )
        ) { fixture in
            let log = try await everything(fixture)
            _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
            try await fixture.simulator.disconnect(peripheral: monitorAddress, reason: .remote)
            let messages = await log.wait { timeline($0).last == "Connected=false" }
            let disconnected = messages.first { $0.member == "Disconnected" }
            #expect(
                disconnected?.body == [
                    .string("org.bluez.Reason.Remote"), .string("Connection terminated by remote user"),
                ])
            #expect(try await fixture.simulator.isConnected(monitorAddress) == false)
        }
    }

    @Test func goingOutOfRangeDropsTheLinkAndConnectingThenFails() async throws {
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor(known: true))]), configuration: Self.signallingReasons
            )
        ) { fixture in
            let log = try await everything(fixture)
            _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
            try await fixture.simulator.setInRange(false, peripheral: monitorAddress)
            let messages = await log.wait { timeline($0).last == "Connected=false" }
            #expect(messages.first { $0.member == "Disconnected" }?.body.first == .string("org.bluez.Reason.Timeout"))
            #expect(
                try await fixture.error(monitorPath, deviceInterface, "Connect")
                    == .failed("le-connection-abort-by-local"))
        }
    }

    @Test func connectWithoutTheConnectedSignalStillResolvesServices() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            let log = try await everything(fixture)
            try await fixture.simulator.inject(.connectWithoutConnectedSignal, on: .connect, of: monitorAddress)
            try await fixture.connectAndResolve(monitorPath)
            #expect(try await fixture.property(monitorPath, deviceInterface, "Connected") == .boolean(false))
            #expect(try await fixture.property(monitorPath, deviceInterface, "ServicesResolved") == .boolean(true))
            #expect(!timeline(log.messages).contains("Connected=true"))
            #expect(
                try await fixture.call(
                    monitorPath + "/service0001/char0002", "org.bluez.GattCharacteristic1", "ReadValue",
                    [.stringVariantDictionary([:])]) == [.bytes([1])])
        }
    }

    @Test func connectFaultsAnswerAsInjected() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            let refused = BlueZError.failed("le-connection-abort-by-remote")
            try await fixture.simulator.inject(.fail(refused), on: .connect, of: monitorAddress)
            #expect(try await fixture.error(monitorPath, deviceInterface, "Connect") == refused)
            try await fixture.simulator.inject(.delay(.milliseconds(300)), on: .connect, of: monitorAddress)
            // The first Connect leaves before the second (through the client's loop, in order).
            let first = try fixture.send(monitorPath, deviceInterface, "Connect")
            #expect(try await fixture.error(monitorPath, deviceInterface, "Connect") == .inProgress)
            #expect(try await first.reply() == [])
            #expect(try await fixture.error(monitorPath, deviceInterface, "Connect") == nil)  // already connected
        }
    }

    @Test func poweredOffRefusesConnections() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            #expect(try await fixture.property(monitorPath, deviceInterface, "Connected") == .boolean(false))
            #expect(try await fixture.error(monitorPath, deviceInterface, "Connect") == .notReady)
        }
    }

    @Test func pairingMakesTheDevicePairedAndBonded() async throws {
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(monitor(known: true))]))) {
            fixture in
            _ = try await fixture.call(monitorPath, deviceInterface, "Pair")
            #expect(try await fixture.property(monitorPath, deviceInterface, "Paired") == .boolean(true))
            #expect(try await fixture.property(monitorPath, deviceInterface, "Bonded") == .boolean(true))
            #expect(try await fixture.error(monitorPath, deviceInterface, "Pair") == .alreadyExists)
        }
    }

    /// bluetoothd 5.66's `cancel_pairing`: `DoesNotExist` with no pairing under way; otherwise the agent
    /// asked gets `Cancel()`, `Pair()` fails with `AuthenticationCanceled`, and the device stays unpaired.
    @Test func cancelPairingCancelsTheAgentsQuestionAndThePair() async throws {
        var confirming = monitor(known: true)
        confirming.pairingMethod = .confirmPasskey(123_456)
        try await withFixture(SimulatorFixture(world: SimulatedWorld(peripherals: [.init(confirming)]))) { fixture in
            #expect(try await fixture.error(monitorPath, deviceInterface, "CancelPairing") == .doesNotExist)
            let agent = try SilentAgent(on: fixture.client)
            _ = try await fixture.call(
                "/org/bluez", "org.bluez.AgentManager1", "RegisterAgent",
                [.objectPath(agent.path), .string("KeyboardDisplay")])
            let pair = try fixture.send(monitorPath, deviceInterface, "Pair")
            var calls = agent.calls.makeAsyncIterator()
            #expect(await calls.next() == "RequestConfirmation")

            #expect(try await fixture.call(monitorPath, deviceInterface, "CancelPairing") == [])
            #expect(await calls.next() == "Cancel")
            do {
                _ = try await pair.reply()
                Issue.record("the cancelled Pair() succeeded")
            } catch {
                #expect(
                    error as? DBusError
                        == .remote(name: "org.bluez.Error.AuthenticationCanceled", message: "Authentication Canceled"))
            }
            #expect(try await fixture.property(monitorPath, deviceInterface, "Paired") == .boolean(false))
            #expect(try await fixture.error(monitorPath, deviceInterface, "CancelPairing") == .doesNotExist)
            #expect(try await fixture.simulator.withDevice(monitorAddress) { $0.cancelPairingCalls } == 3)
            // The question's late answer is dropped.
            agent.answerAll()
            #expect(try await fixture.property(monitorPath, deviceInterface, "Paired") == .boolean(false))
        }
    }

    @Test func aRestartReleasesTheNameAndComesBackWithAFreshTree() async throws {
        let stranger = SimulatedPeripheral(
            address: "C0:FF:EE:00:00:03", name: "Stranger", advertisingInterval: .milliseconds(10))
        try await withFixture(
            SimulatorFixture(
                world: SimulatedWorld(peripherals: [.init(monitor(known: true)), .init(stranger)]))
        ) { fixture in
            let owners = SignalLog(
                fixture.client.signals(
                    matching: DBusMatchRule(
                        sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                        arguments: [0: "org.bluez"])))
            for try await _ in fixture.client.synchronize().values {}
            let added = try await fixture.signals("org.freedesktop.DBus.ObjectManager", "InterfacesAdded")
            _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
            await added.wait {
                $0.contains { $0.body.first?.objectPath?.description == "/org/bluez/hci0/dev_C0_FF_EE_00_00_03" }
            }
            _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
            try await fixture.simulator.restart()
            let changes = await owners.wait(for: 2)
            #expect(changes.map { $0.body[2] == .string("") } == [true, false])  // released, then taken back
            let tree = try await fixture.managedObjects()
            #expect(Set(tree.keys) == ["/org/bluez", hci0, monitorPath])
            #expect(tree[monitorPath]?[deviceInterface]?["Connected"] == .boolean(false))
            #expect(tree[hci0]?[adapterInterface]?["Discovering"] == .boolean(false))
        }
    }
}

/// An `org.bluez.Agent1` on a test client that holds its questions unanswered until ``answerAll()``, and
/// reports each call's member in ``calls``.
private final class SilentAgent: Sendable {
    let path: DBusObjectPath
    let calls: AsyncStream<String>
    private let held = LockedBox<[DBusMethodInvocation]>([])

    init(on connection: DBusConnection) throws {
        path = try DBusObjectPath("/test/agent")
        let (calls, called) = AsyncStream<String>.makeStream()
        self.calls = calls
        let held = self.held
        let question = DBusMethod(
            name: "RequestConfirmation", inputSignature: DBusSignature(types: [.objectPath, .uint32])
        ) { invocation in
            held.withLock { $0.append(invocation) }
            called.yield(invocation.call.member)
        }
        let cancel = DBusMethod(name: "Cancel") { call in
            called.yield(call.member)
            return []
        }
        try connection.export(
            DBusExportedObject(
                path: path, interfaces: [DBusInterface(name: "org.bluez.Agent1", methods: [question, cancel])]))
    }

    /// Answers the questions held (accepting them) and lets them go (an invocation holds the exported
    /// object, whose methods hold this agent's box).
    func answerAll() {
        let questions = held.withLock { held in
            defer { held = [] }
            return held
        }
        for invocation in questions { _ = invocation.reply() }
    }
}
