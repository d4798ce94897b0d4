import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct ReconnectionTests {
    private let sensor = CharacteristicReference(Lab.sensor)
    private let lab: BluetoothAddress = Lab.address

    private func connected(_ fixture: CentralFixture, policy: ReconnectPolicy) async throws -> Peripheral {
        _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true }
        return try await fixture.central.connectPeripheral(to: Lab.address, autoReconnect: policy)
    }

    @Test(arguments: [NotificationTransport.automatic, .bus])
    func aStreamSurvivesTwentyDropsWithOnlyTheGaps(transport: NotificationTransport) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await connected(fixture, policy: ReconnectPolicy(delays: [.milliseconds(20)]))
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: transport))
            var expected: [[UInt8]] = []
            for round in 0..<20 {
                try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
                let values = (0..<5).map { [UInt8(round), UInt8($0)] }
                try await fixture.notify(Lab.sensor, values)
                expected += values
                let count = expected.count
                try await listener.wait(timeout: Patience.step) { $0.valueCount == count }
                // Out of range, the link drops and the reconnection attempts fail until it is back.
                try await fixture.simulator.setInRange(false, peripheral: lab)
                try await fixture.simulator.disconnect(peripheral: lab, reason: .remote)
                try await events.wait(timeout: Patience.step) { record in
                    record.values.filter { $0.name == "disconnected" }.count == round + 1
                }
                // Sent while the link is down: lost, the only gap the subscriber sees.
                try await fixture.notify(Lab.sensor, [[0xEE, UInt8(round)]])
                try await fixture.simulator.setInRange(true, peripheral: lab)
                try await events.wait(timeout: Patience.step) { record in
                    record.values.filter { $0.name == "autoConnected" }.count == round + 1
                }
            }
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[0xAA]])
            expected.append([0xAA])
            let total = expected.count
            try await listener.wait(timeout: Patience.step) { $0.valueCount == total }
            #expect(listener.values == expected)
            #expect(listener.completion == nil)
            let names = events.values.map(\.name)
            #expect(names.filter { $0 == "disconnected" }.count == 20)
            #expect(names.filter { $0 == "autoConnected" }.count == 20)
            #expect(names.first == "disconnected")
            #expect(names.last == "autoConnected")
        }
    }

    /// bluetoothd 5.66 keeps a `StartNotify` session across the link's end and answers the same client's
    /// `StartNotify` "In Progress" until it has enabled that session on the new link: the listener takes
    /// the answer as its session and goes on.
    @Test func aStartNotifyAnsweredInProgressAfterAReconnectionIsTheKeptSession() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await connected(fixture, policy: ReconnectPolicy(delays: [.milliseconds(20)]))
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }
            try await fixture.simulator.inject(.fail(.inProgress), on: .startNotify(Lab.sensor), of: lab)
            try await fixture.simulator.disconnect(peripheral: lab, reason: .remote)
            try await events.wait(timeout: Patience.step) { $0.values.contains { $0.name == "autoConnected" } }
            // A read after the re-armed StartNotify: its answer comes after StartNotify's on the connection.
            _ = try await peripheral.readValue(CharacteristicReference(Lab.indicator))
            try await fixture.notify(Lab.sensor, [[2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[1], [2]])
            #expect(listener.completion == nil)
        }
    }

    @Test func anExplicitDisconnectEndsThePolicyAndTheListeners() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await connected(fixture, policy: .always)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await peripheral.disconnectPeripheral()
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = listener.failure() else {
                return
            }
            #expect(error.kind == .notConnected)
            #expect(events.values.map(\.name) == ["disconnected"])
            #expect(try await fixture.simulator.isConnected(lab) == false)
        }
    }

    /// With bluetoothd 5.83 and later, which signal the reason (5.66's drops are all `unknown`).
    @Test func thePolicyDecidesFromTheReason() async throws {
        try await withFixture(CentralFixture(world: Lab.world, signalsDisconnectionReasons: true)) { fixture in
            let policy = ReconnectPolicy(
                delays: [.zero], shouldReconnect: { reason in reason.name != "org.bluez.Reason.Authentication" })
            let peripheral = try await connected(fixture, policy: policy)
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.simulator.disconnect(peripheral: lab, reason: .authentication)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = listener.failure() else {
                return
            }
            #expect(error.kind == .notConnected)
            #expect(error.bluezName == "org.bluez.Reason.Authentication")
        }
    }

    @Test func aPolicyGivesUpWhenItsHandlerSaysSo() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let policy = ReconnectPolicy(delays: [.zero], shouldRetry: { $0.kind != .connectionFailed })
            let peripheral = try await connected(fixture, policy: policy)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.simulator.setInRange(false, peripheral: lab)
            try await fixture.simulator.disconnect(peripheral: lab, reason: .timeout)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(listener.failure()?.kind == .connectionFailed)
            #expect(events.values.filter { $0.name == "failed" }.count == 1)
        }
    }

    @Test func aPolicyGivesUpAfterItsAttemptsAndTheListenersEnd() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let policy = ReconnectPolicy(delays: [.zero, .milliseconds(20)], maximumAttempts: 3)
            let peripheral = try await connected(fixture, policy: policy)
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.simulator.setInRange(false, peripheral: lab)
            try await fixture.simulator.disconnect(peripheral: lab, reason: .timeout)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = listener.failure() else {
                return
            }
            #expect(error.kind == .connectionFailed)
            #expect(error.message.hasPrefix("gave up reconnecting"))
            #expect(events.values.filter { $0.name == "failed" }.count == 3)
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct BluetoothdRestartTests {
    private let sensor = CharacteristicReference(Lab.sensor)
    private let lab: BluetoothAddress = Lab.address

    private func fixtureWithStoredLab() async throws -> CentralFixture {
        var stored = Lab.peripheral
        stored.isKnown = true
        return try await CentralFixture(world: SimulatedWorld(peripherals: [.init(stored)]))
    }

    @Test func aStreamResumesAfterBluetoothdRestarts() async throws {
        try await withFixture(fixtureWithStoredLab()) { fixture in
            let states = TestSubscriber(fixture.central.state.setFailureType(to: BluetoothError.self))
            let peripheral = try await fixture.central.connectPeripheral(
                to: Lab.address, autoReconnect: ReconnectPolicy(delays: [.zero]))
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            try await fixture.simulator.restart(downtime: .milliseconds(100))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[3]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[1], [2], [3]])
            #expect(listener.completion == nil)
            // While the tree is taken down and rebuilt the state may pass through "no adapter" too.
            #expect(states.values.first == .poweredOn)
            #expect(states.values.contains(.bluetoothUnavailable))
            #expect(states.values.last == .poweredOn)
        }
    }

    @Test func aStreamResumesAfterTheAdapterIsPoweredOffAndOn() async throws {
        try await withFixture(fixtureWithStoredLab()) { fixture in
            let peripheral = try await fixture.central.connectPeripheral(
                to: Lab.address, autoReconnect: ReconnectPolicy(delays: [.zero]))
            let events = TestSubscriber(fixture.central.connectionEvents.setFailureType(to: BluetoothError.self))
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 1 }
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            try await events.wait(timeout: Patience.step) { $0.values.contains { $0.name == "disconnected" } }
            try await fixture.simulator.setPowered(true, adapter: "hci0")
            // bluetoothd keeps the StartNotify session while the link is down, so the simulator reports it
            // as notifying at once; a notification before the reconnection would go nowhere (no link), as it
            // would from a real peripheral. Notify once the central is back.
            try await events.wait(timeout: Patience.step) { $0.values.contains { $0.name == "autoConnected" } }
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[1], [2]])
            #expect(listener.completion == nil)
            #expect(events.values.map(\.name).last == "autoConnected")
        }
    }

    @Test func withoutAPolicyBluetoothdGoingEndsTheListeners() async throws {
        try await withFixture(fixtureWithStoredLab()) { fixture in
            let peripheral = try await fixture.central.connectPeripheral(to: Lab.address)
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: lab, characteristic: Lab.sensor)
            try await fixture.simulator.restart(downtime: .milliseconds(50))
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = listener.failure() else {
                return
            }
            #expect([.bluetoothUnavailable, .notConnected].contains(error.kind))
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct InFlightOperationTests {
    @Test func anOperationInFlightWhenBluetoothdRestartsFailsClearly() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await fixture.simulator.inject(.delay(.seconds(5)), on: .read(Lab.sensor), of: Lab.address)
            let read = TestSubscriber(peripheral.read(CharacteristicReference(Lab.sensor)))
            try await fixture.simulator.restart(downtime: .milliseconds(20))
            try await read.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = read.failure() else {
                return
            }
            #expect([.notConnected, .bluetoothUnavailable].contains(error.kind))
        }
    }

    @Test func bluetoothdLeavingTheBusWithACallUnansweredIsUnavailable() {
        let error = BluetoothError(
            .remote(
                name: "org.freedesktop.DBus.Error.NoReply",
                message: "Message recipient disconnected from message bus without replying"),
            during: "reading 2A37")
        #expect(error.kind == .bluetoothUnavailable)
    }
}
