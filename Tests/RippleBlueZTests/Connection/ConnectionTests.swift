import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct ConnectionTests {
    @Test func aKnownPeripheralConnectsWithoutAScan() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            #expect(fixture.central.knownPeripherals.map(\.address) == [Lab.address])
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            #expect(peripheral.isConnected)
            #expect(peripheral.services.map(\.uuid).contains(Lab.service))
        }
    }

    /// Addresses are ``BluetoothAddress`` values: a literal in either case names the same peripheral, and
    /// text from outside goes through the throwing initializer.
    @Test func anAddressLiteralInEitherCaseNamesThePeripheral() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            let peripheral = try await fixture.central.connectPeripheral(to: "c0:ff:ee:00:00:0a")
            #expect(peripheral.address == Lab.address)
            #expect(peripheral.address.description == "C0:FF:EE:00:00:0A")
            #expect(fixture.central.peripheral(address: "C0:FF:EE:00:00:0A") == peripheral)
            #expect(fixture.central.peripheral(address: "C0:FF:EE:00:00:0B") == nil)
            let typed = "C0:FF:EE:00:00:0A"
            #expect(fixture.central.peripheral(address: try BluetoothAddress(typed)) == peripheral)
            let short = "C0:FF:EE"
            #expect(throws: BluetoothAddress.ParseError.self) { try BluetoothAddress(short) }
        }
    }

    @Test func anUnknownAddressFailsAtOnceAsPeripheralNotFound() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: "00:11:22:33:44:55")
                Issue.record("connected to an unknown address")
            } catch {
                #expect(error.kind == .peripheralNotFound)
            }
        }
    }

    /// bluetoothd gives an LE connection up with "le-connection-abort-by-local" (the simulator after
    /// 300 ms): a transient failure, retried until the connect timeout, whose error carries it.
    @Test func aPeripheralOutOfRangeTimesOutWithBluetoothdsReason() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            try await fixture.simulator.setInRange(false, peripheral: Lab.address)
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: Lab.address, timeout: .seconds(1))
                Issue.record("connected to a peripheral out of range")
            } catch {
                #expect(error.kind == .timeout)
                #expect(error.bluezMessage == "le-connection-abort-by-local")
            }
            try await events.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(events.values.map(\.name) == ["connecting", "failed"])
        }
    }

    @Test func aConnectionThatTakesTooLongTimesOutAndIsCancelled() async throws {
        var slow = Lab.peripheral
        slow.connectionDelay = .seconds(20)
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(slow)]))) { fixture in
            let connecting = TestSubscriber(
                fixture.central.connectingPeripherals.map { $0.map(\.address) }.setFailureType(to: BluetoothError.self))
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            do throws(BluetoothError) {
                _ = try await fixture.central.connectPeripheral(to: Lab.address, timeout: .milliseconds(200))
                Issue.record("the connection did not time out")
            } catch {
                #expect(error.kind == .timeout)
            }
            try await connecting.wait(timeout: Patience.step) { $0.values == [[], [Lab.address], []] }
            #expect(try await fixture.simulator.isConnected(Lab.address) == false)
        }
    }

    /// With bluetoothd 5.83 and later, which signal `Device1.Disconnected(reason, message)`: the reason
    /// the simulator sends is the one the client reports, for each of bluetoothd's reasons.
    @Test(arguments: DisconnectReason.all)
    func aDisconnectionIsAnEventWithTheSimulatorsReasonAndLeavesTheConnectedList(reason: DisconnectReason)
        async throws
    {
        try await withFixture(CentralFixture(world: Lab.world, signalsDisconnectionReasons: true)) { fixture in
            let connected = TestSubscriber(
                fixture.central.connectedPeripherals.map { $0.map(\.address) }.setFailureType(to: BluetoothError.self))
            let peripheral = try await fixture.connect()
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            try await fixture.simulator.disconnect(peripheral: Lab.address, reason: reason)
            try await events.wait(timeout: Patience.step) { !$0.values.isEmpty }
            #expect(events.values == [.disconnected(peripheral, reason)])
            try await connected.wait(timeout: Patience.step) { $0.values == [[], [Lab.address], []] }
            #expect(!peripheral.isConnected)
        }
    }

    /// bluetoothd 5.66 (Debian 12) does not say why a link ended: a drop the central did not ask for is
    /// ``DisconnectReason/unknown``; its own ``Central/disconnect(_:timeout:)`` is ``DisconnectReason/local``.
    @Test func withoutReasonsFromBluetoothdADropIsUnknownAndTheCentralsOwnDisconnectLocal() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let peripheral = try await fixture.connect()
            try await fixture.simulator.disconnect(peripheral: Lab.address, reason: .remote)
            try await events.wait(timeout: Patience.step) { $0.values.contains { $0.name == "disconnected" } }
            let again = try await fixture.connect()
            for try await _ in fixture.central.disconnect(again).values {}
            try await events.wait(timeout: Patience.step) { $0.values.filter { $0.name == "disconnected" }.count == 2 }
            #expect(
                events.values.filter { $0.name == "disconnected" } == [
                    .disconnected(peripheral, .unknown), .disconnected(again, .local),
                ])
        }
    }

    /// An attempt the user ends — its last subscriber leaves, or `disconnect` comes first — is reported as
    /// ``BluetoothError/Kind/cancelled`` to everyone (the events and the other subscribers), never as a
    /// failure to connect.
    @Test func anAttemptTheUserEndsIsReportedAsCancelled() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            try await fixture.simulator.inject(.delay(.seconds(5)), on: .connect, of: Lab.address, times: nil)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let left = TestSubscriber(fixture.central.connect(to: Lab.address))
            try await events.wait(timeout: Patience.step) { $0.values.map(\.name) == ["connecting"] }
            left.cancel()
            try await events.wait(timeout: Patience.step) { $0.valueCount == 2 }
            let peripheral = try #require(fixture.central.peripheral(address: Lab.address))
            #expect(
                events.values.last
                    == .connectionFailed(peripheral, BluetoothError(.cancelled, "the connection attempt was cancelled"))
            )

            let ended = TestSubscriber(fixture.central.connect(to: Lab.address))
            try await events.wait(timeout: Patience.step) { $0.valueCount == 3 }
            let disconnecting = TestSubscriber(fixture.central.disconnect(peripheral))
            try await ended.wait(timeout: Patience.step) { $0.completion != nil }
            let byDisconnect = BluetoothError(.cancelled, "the connection was cancelled by disconnect")
            #expect(ended.completion == .failure(byDisconnect))
            try await events.wait(timeout: Patience.step) { $0.valueCount == 4 }
            #expect(events.values.last == .connectionFailed(peripheral, byDisconnect))
            try await disconnecting.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(disconnecting.completion == .finished)
            #expect(events.values.map(\.name) == ["connecting", "failed", "connecting", "failed"])
        }
    }

    @Test func twoSubscribersShareOneAttemptAndAnAlreadyConnectedPeripheralIsEmittedAtOnce() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let first = TestSubscriber(fixture.central.connect(to: Lab.address))
            let second = TestSubscriber(fixture.central.connect(to: Lab.address))
            try await first.wait(timeout: Patience.step) { $0.completion != nil }
            try await second.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(first.values.map(\.address) == [Lab.address])
            #expect(second.values.map(\.address) == [Lab.address])
            #expect(events.values.map(\.name) == ["connecting", "connected", "ready"])
            let again = TestSubscriber(fixture.central.connect(to: Lab.address), demand: .none)
            again.request(.max(1))
            try await again.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(again.values.map(\.address) == [Lab.address])
            #expect(again.completion == .finished)
            #expect(events.values.count == 3)
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct CentralCloseTests {
    @Test func closingTheCentralEndsEveryStreamWithBluetoothUnavailable() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: CharacteristicReference(Lab.sensor)))
            let discovery = TestSubscriber(fixture.central.startDiscovery())
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            fixture.central.close()
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            try await discovery.wait(timeout: Patience.step) { $0.completion != nil }
            // The connection events are an event stream of their own, delivered on the loop: the listener's end
            // does not wait for them (under TSan the disconnection came after it). They finish after their last.
            try await events.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(listener.completion == .failure(BluetoothError(.bluetoothUnavailable, "the central was closed")))
            #expect(discovery.completion == .failure(BluetoothError(.bluetoothUnavailable, "the central was closed")))
            #expect(
                events.values.last
                    == .disconnected(
                        peripheral,
                        DisconnectReason(
                            name: "org.bluez.Reason.Unknown", message: "the central was closed")))
        }
    }

    @Test func closingTheCentralFinishesItsStateStreamsAndConnectionEventsAfterTheirLastValues() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let central = fixture.central
            let state = TestSubscriber(central.state.setFailureType(to: BluetoothError.self))
            let scanning = TestSubscriber(central.isScanning.setFailureType(to: BluetoothError.self))
            let connected = TestSubscriber(central.connectedPeripherals.setFailureType(to: BluetoothError.self))
            let connecting = TestSubscriber(central.connectingPeripherals.setFailureType(to: BluetoothError.self))
            let events = TestSubscriber(central.connectionEvents.setFailureType(to: BluetoothError.self))
            // A slow subscriber: the end waits for its demand, after the latest value.
            let slowConnected = TestSubscriber(
                central.connectedPeripherals.setFailureType(to: BluetoothError.self), demand: .none)
            try await connected.wait(timeout: Patience.step) { $0.values == [[peripheral]] }
            central.close()
            try await state.wait(timeout: Patience.step) { $0.completion != nil }
            try await scanning.wait(timeout: Patience.step) { $0.completion != nil }
            try await connected.wait(timeout: Patience.step) { $0.completion != nil }
            try await connecting.wait(timeout: Patience.step) { $0.completion != nil }
            try await events.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(state.completion == .finished)
            #expect(scanning.completion == .finished)
            #expect(connected.values == [[peripheral], []])
            #expect(connected.completion == .finished)
            #expect(connecting.values == [[]])
            #expect(connecting.completion == .finished)
            #expect(events.values.map(\.name) == ["disconnected"])
            #expect(events.completion == .finished)
            #expect(slowConnected.values.isEmpty)
            slowConnected.request(.max(5))
            try await slowConnected.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(slowConnected.values == [[]])
            #expect(slowConnected.completion == .finished)
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct ConnectedElsewhereTests {
    @Test func aPeripheralAnotherProgramConnectedIsAvailableWithoutAScan() async throws {
        var stored = Lab.peripheral
        stored.isKnown = true
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))) { fixture in
            let other = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            let path = try DBusObjectPath(Lab.devicePath)
            _ = try await other.call(
                destination: "org.bluez", path: path, interface: "org.bluez.Device1", member: "Connect"
            )
            .values.first { _ in true }
            // Resolved or about to be: either way the central has it ready without scanning or connecting again.
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            #expect(peripheral.isConnected)
            #expect(peripheral.services.map(\.uuid).contains(Lab.service))
            #expect(try await peripheral.readValue(CharacteristicReference(Lab.sensor)) == [0])
            other.close()
        }
    }
}
