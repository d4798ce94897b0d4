import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@testable import RippleBlueZ

private let service = BluetoothUUID(uuidString: "52495050-0000-4000-8000-000000000000") ?? BluetoothUUID(0)
private let level = BluetoothUUID(uuidString: "52495050-0000-4000-8000-000000000001") ?? BluetoothUUID(0)

private func services() -> [LocalService] {
    [LocalService(service) { LocalCharacteristic(level, properties: [.read, .notify], value: [42]) }]
}

extension PeripheralFixture {
    /// Returns once the manager's loop has handled what was scheduled onto it before (a delivery a request
    /// asked for, a request from another thread).
    func settlePeripheral() async {
        await peripheralThread.loop.perform {}
        await peripheralThread.loop.perform {}
    }
}

/// The peripheral manager's *state* streams under a subscriber that asks for one value at a time while
/// the state keeps changing: each gives the state now at the first demand, then at each demand the latest
/// state if it differs from the one last given (coalesced: the states passed meanwhile are skipped), and
/// a demand that finds nothing new waits for the next change. The last value delivered is never stale.
@Suite(.timeLimit(Patience.test)) struct PeripheralSlowConsumerTests {
    private let central = PeripheralFixture.centralAddress

    enum ListenerState: String, CaseIterable, Sendable {
        case isSubscribed
        case isReadyToSend
    }

    /// `isSubscribed` and `isReadyToSend` (which follows the listeners on the bus path), while the central
    /// listens and stops listening.
    @Test(arguments: ListenerState.allCases)
    func aSlowListenerStateSubscriberGetsTheStateNowThenTheLatest(stream: ListenerState) async throws {
        try await withFixture(PeripheralFixture(services: services(), notificationTransport: .bus)) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(level)
            let states =
                switch stream {
                case .isSubscribed: fixture.manager.isSubscribed(reference)
                case .isReadyToSend: fixture.manager.isReadyToSend(reference)
                }
            let watcher = TestSubscriber(states)
            let slow = TestSubscriber(states, demand: .none)
            try await watcher.wait(timeout: Patience.step) { $0.values == [false] }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [false])
            // The central listens, then stops, while it asks for nothing: when it asks, the state is the one
            // it has, so nothing is delivered.
            var listener = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true] }
            listener.cancel()
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            slow.request(.max(1))
            await fixture.settlePeripheral()
            #expect(slow.values == [false])
            // Its demand waits: the next change comes at once.
            listener = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [false, true])
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            // Off, on, off while it asks for nothing: it gets the latest, once.
            listener.cancel()
            try await watcher.wait(timeout: Patience.step) { $0.values.count == 5 }
            listener = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await watcher.wait(timeout: Patience.step) { $0.values.count == 6 }
            listener.cancel()
            try await watcher.wait(timeout: Patience.step) { $0.values.count == 7 }
            #expect(watcher.values == [false, true, false, true, false, true, false])
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            await fixture.settlePeripheral()
            #expect(slow.values == [false, true, false])
            #expect(slow.completion == nil)
            watcher.cancel()
            slow.cancel()
            withExtendedLifetime(served) {}
        }
    }

    /// `register()`, shared by its subscribers, across bluetoothd restarts.
    @Test func aSlowRegistrationSubscriberGetsTheStateNowThenTheLatest() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let watcher = TestSubscriber(fixture.manager.register())
            try await watcher.wait(timeout: Patience.step) { $0.values.last == .registered }
            // It joins the registration under way: its first value is the state now, not the ones before.
            let slow = TestSubscriber(fixture.manager.register(), demand: .none)
            await fixture.settlePeripheral()
            #expect(slow.values.isEmpty)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [.registered])
            // bluetoothd restarts while it asks for nothing: registered again when it asks, nothing new.
            await fixture.simulator.stop()
            try await watcher.wait(timeout: Patience.step) { $0.values.last == .waitingForBluetoothd }
            try await fixture.simulator.start()
            try await watcher.wait(timeout: Patience.step) { $0.values.last == .registered }
            slow.request(.max(1))
            await fixture.settlePeripheral()
            #expect(slow.values == [.registered])
            // Its demand waits: the next change comes at once; then the latest, the states between skipped.
            await fixture.simulator.stop()
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [.registered, .waitingForBluetoothd])
            try await fixture.simulator.start()
            try await watcher.wait(timeout: Patience.step) { $0.values.last == .registered }
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            await fixture.settlePeripheral()
            #expect(slow.values == [.registered, .waitingForBluetoothd, .registered])
            #expect(slow.completion == nil)
            watcher.cancel()
            slow.cancel()
        }
    }

    /// `advertise(_:)`, one advertisement per subscriber, across bluetoothd restarts. bluetoothd answers
    /// `RegisterAdvertisement` before it signals the new `ActiveInstances`, both to the manager's
    /// connection: once that connection has the signal, the manager has the answer.
    @Test func aSlowAdvertisingSubscriberGetsTheStateNowThenTheLatest() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let connection = fixture.manager.connection
            let registrations = TestSubscriber(
                connection.propertiesChanged(
                    path: try DBusObjectPath("/org/bluez/hci1"), interface: "org.bluez.LEAdvertisingManager1"
                ).filter { $0.changed["ActiveInstances"]?.unwrappingVariants == .byte(1) }
                    .mapError { BluetoothError($0, during: "following ActiveInstances") })
            let owners = TestSubscriber(
                connection.nameOwner(of: "org.bluez").mapError { BluetoothError($0, during: "following bluetoothd") })
            _ = try await connection.synchronize().values.first { _ in true }
            let slow = TestSubscriber(fixture.manager.advertise(Advertisement(localName: "Slow")), demand: .none)
            try await registrations.wait(timeout: Patience.step) { $0.valueCount == 1 }
            await fixture.settlePeripheral()
            #expect(slow.values.isEmpty)
            // Its first demand gets the state now, not the ones before.
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [.advertising])
            // bluetoothd restarts while it asks for nothing: advertising again when it asks, nothing new.
            await fixture.simulator.stop()
            try await owners.wait(timeout: Patience.step) { $0.values.last == .some(nil) }
            try await fixture.simulator.start()
            try await registrations.wait(timeout: Patience.step) { $0.valueCount == 2 }
            slow.request(.max(1))
            await fixture.settlePeripheral()
            #expect(slow.values == [.advertising])
            // Its demand waits: the next change comes at once; then the latest, the states between skipped.
            await fixture.simulator.stop()
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [.advertising, .waitingForBluetoothd])
            try await fixture.simulator.start()
            try await registrations.wait(timeout: Patience.step) { $0.valueCount == 3 }
            await fixture.settlePeripheral()
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            await fixture.settlePeripheral()
            #expect(slow.values == [.advertising, .waitingForBluetoothd, .advertising])
            #expect(slow.completion == nil)
            slow.cancel()
            registrations.cancel()
            owners.cancel()
        }
    }

    /// `connectedCentrals`, while the central connects and disconnects.
    @Test func aSlowConnectedCentralsSubscriberGetsTheListNowThenTheLatest() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let watcher = TestSubscriber(fixture.manager.connectedCentrals.map { $0.map(\.address) })
            try await watcher.wait(timeout: Patience.step) { $0.values == [[]] }
            let peripheral = try await fixture.connect()
            try await watcher.wait(timeout: Patience.step) { $0.values == [[], [central]] }
            // A subscriber that comes while the central is connected gets that list first, not an empty one.
            let slow = TestSubscriber(fixture.manager.connectedCentrals.map { $0.map(\.address) }, demand: .none)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            await fixture.settlePeripheral()
            #expect(slow.values == [[central]])
            // Disconnected and connected again while it asks for nothing: when it asks, nothing new.
            try await peripheral.disconnectPeripheral()
            try await watcher.wait(timeout: Patience.step) { $0.values == [[], [central], []] }
            let again = try await fixture.central.connectPeripheral(to: PeripheralFixture.peripheralAddress)
            try await watcher.wait(timeout: Patience.step) { $0.values == [[], [central], [], [central]] }
            slow.request(.max(1))
            await fixture.settlePeripheral()
            #expect(slow.values == [[central]])
            // Its demand waits: the next change comes at once.
            try await again.disconnectPeripheral()
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [[central], []])
            #expect(slow.completion == nil)
            watcher.cancel()
            slow.cancel()
            withExtendedLifetime(served) {}
        }
    }
}
