import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

/// The central's state agrees with its completed operations at the instant they complete: when
/// `connect` emits, the peripheral is connected and listed; when `disconnect` emits, it is neither.
@Suite(.timeLimit(Patience.test)) struct ConnectionConsistencyTests {
    /// What the central shows of `peripheral` now: whether it is connected, and the connected list.
    private static func snapshot(_ central: Central, _ peripheral: Peripheral) -> Snapshot {
        let listed = Mutex<[BluetoothAddress]?>(nil)
        let cancellable = central.connectedPeripherals.sink { list in listed.withLock { $0 = list.map(\.address) } }
        cancellable.cancel()
        return Snapshot(isConnected: peripheral.isConnected, connected: listed.withLock { $0 } ?? ["00:00:00:00:00:00"])
    }

    /// The connected list's current value, as a new subscriber gets it first.
    private static func connected(_ central: Central) async -> [BluetoothAddress]? {
        for await list in central.connectedPeripherals.values { return list.map(\.address) }
        return nil
    }

    struct Snapshot: Sendable, Equatable {
        var isConnected: Bool
        var connected: [BluetoothAddress]
    }

    @Test func connectAndDisconnectAgreeWithTheStateWhenTheyComplete() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            _ = try await fixture.central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true
            }
            let central = fixture.central
            for _ in 0..<10 {
                // Seen from the completion itself, on the loop thread…
                let seen = Mutex<[Snapshot]>([])
                let connecting = TestSubscriber(
                    central.connect(to: Lab.address).handleEvents(receiveOutput: { peripheral in
                        seen.withLock { $0.append(Self.snapshot(central, peripheral)) }
                    }))
                try await connecting.wait(timeout: Patience.step) { $0.completion != nil }
                let peripheral = try #require(connecting.values.first)
                let disconnecting = TestSubscriber(
                    peripheral.disconnect().handleEvents(receiveOutput: { _ in
                        seen.withLock { $0.append(Self.snapshot(central, peripheral)) }
                    }))
                try await disconnecting.wait(timeout: Patience.step) { $0.completion != nil }
                #expect(disconnecting.completion == .finished)
                #expect(
                    seen.withLock { $0 } == [
                        Snapshot(isConnected: true, connected: [Lab.address]),
                        Snapshot(isConnected: false, connected: []),
                    ])
                // …and from the task that awaited it (the list's current value comes on the loop thread).
                let again = try await central.connectPeripheral(to: Lab.address)
                #expect(again.isConnected)
                #expect(await Self.connected(central) == [Lab.address])
                try await again.disconnectPeripheral()
                #expect(!again.isConnected)
                #expect(await Self.connected(central) == [])
            }
        }
    }

    /// Real bluetoothd (the guest's RealBlueZTests) showed a task woken by the `disconnected` event still
    /// finding `isConnected` true: the state now changes before the event goes out.
    @Test func aDisconnectionFromThePeripheralFindsTheStateChangedWhenTheEventArrives() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let central = fixture.central
            _ = try await central.startDiscovery().first { $0.address == Lab.address }.values.first { _ in true }
            let peripheral = try await central.connectPeripheral(to: Lab.address)
            let seen = Mutex<[Snapshot]>([])
            let events = TestSubscriber(
                central.connectionEvents.handleEvents(receiveOutput: { event in
                    if case .disconnected = event { seen.withLock { $0.append(Self.snapshot(central, peripheral)) } }
                }).setFailureType(to: BluetoothError.self))
            try await fixture.simulator.disconnect(peripheral: Lab.address, reason: .remote)
            try await events.wait(timeout: Patience.step) { _ in !seen.withLock { $0 }.isEmpty }
            #expect(seen.withLock { $0 } == [Snapshot(isConnected: false, connected: [])])
            events.cancel()
        }
    }
}
