import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

/// The discovery streams under a consumer that asks for one value at a time, while the five peripherals
/// of ``AsyncScanTests/world`` (each reported once) arrive: discovery is an *event* stream (a buffer per
/// subscriber, exact drop counts or a failure), `availablePeripherals` and `isScanning` are *state*
/// streams (the value now, then the latest).
@Suite(.timeLimit(Patience.test)) struct DiscoverySlowConsumerTests {
    /// The addresses a sink on discovery saw, once it has seen all five.
    private static func allFive(_ fast: TestSubscriber<PeripheralDiscovery, BluetoothError>) async throws
        -> [BluetoothAddress]
    {
        try await fast.wait(timeout: Patience.step) {
            AsyncScanTests.addresses.isSubset(of: Set($0.values.map(\.address)))
        }
        return fast.values.map(\.address)
    }

    @Test func aSlowDiscoverySubscriberGetsEveryDiscoveryWithinItsBuffer() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world)) { fixture in
            let statistics = EventStatistics()
            let slow = TestSubscriber(
                fixture.central.startDiscovery(buffering: .default, statistics: statistics), demand: .none)
            let fast = TestSubscriber(fixture.central.startDiscovery())
            let seen = try await Self.allFive(fast)
            await fixture.settle()
            #expect(statistics.received == seen.count)
            #expect(statistics.delivered == 0)
            for count in 1...seen.count {
                slow.request(.max(1))
                try await slow.wait(timeout: Patience.step) { $0.valueCount == count }
            }
            #expect(slow.values.map(\.address) == seen)
            #expect(statistics.delivered == seen.count)
            #expect(statistics.dropped == 0)
            #expect(slow.completion == nil)
        }
    }

    @Test func aSlowDiscoverySubscriberUnderDropOldestGetsTheLatestAndTheCount() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world)) { fixture in
            let statistics = EventStatistics()
            let slow = TestSubscriber(
                fixture.central.startDiscovery(
                    buffering: EventBuffering(capacity: 2, policy: .dropOldest), statistics: statistics),
                demand: .none)
            let fast = TestSubscriber(fixture.central.startDiscovery())
            let seen = try await Self.allFive(fast)
            await fixture.settle()
            #expect(statistics.received == seen.count)
            #expect(statistics.dropped == seen.count - 2)
            slow.request(.max(10))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            await fixture.settle()
            #expect(slow.values.map(\.address) == Array(seen.suffix(2)))
            #expect(statistics.delivered == 2)
            #expect(slow.completion == nil)
        }
    }

    @Test func aSlowDiscoverySubscriberUnderFailStreamFailsWithTheCount() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world)) { fixture in
            let statistics = EventStatistics()
            let slow = TestSubscriber(
                fixture.central.startDiscovery(
                    buffering: EventBuffering(capacity: 2, policy: .failStream), statistics: statistics),
                demand: .none)
            let fast = TestSubscriber(fixture.central.startDiscovery())
            _ = try await Self.allFive(fast)
            try await slow.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(slow.failure()?.kind == .bufferOverflow)
            #expect(slow.values.isEmpty)
            // The third overflowed: it and the two waiting are dropped, and the stream ended there.
            #expect(statistics.received == 3)
            #expect(statistics.dropped == 3)
            #expect(statistics.delivered == 0)
            // The other subscriber goes on: its discovery is its own.
            #expect(fast.completion == nil)
        }
    }

    @Test func aSlowAvailablePeripheralsSubscriberGetsTheLatestListOnly() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world, deviceTimeout: .seconds(1))) { fixture in
            let slow = TestSubscriber(fixture.central.availablePeripherals(), demand: .none)
            let fast = TestSubscriber(fixture.central.startDiscovery())
            _ = try await Self.allFive(fast)
            await fixture.settle()
            #expect(slow.values.isEmpty)
            // Five changes while it asked for nothing: it gets the list now, strongest first.
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values.map { $0.map(\.address) } == [AsyncScanTests.ordered])
            // Nothing changed since: its demand waits for the next change.
            slow.request(.max(1))
            await fixture.settle()
            #expect(slow.values.count == 1)
            try await fixture.simulator.setInRange(false, peripheral: "C0:FF:EE:00:05:03")
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values.last?.map(\.address) == AsyncScanTests.ordered.filter { $0 != "C0:FF:EE:00:05:03" })
            #expect(slow.completion == nil)
        }
    }

    /// A subscriber that comes while bluetoothd already has advertisements of peripherals its filter
    /// passes (another discovery heard them) gets exactly those, strongest first, as its first value, then
    /// the list after each change its own session sees.
    @Test func aLateAvailablePeripheralsSubscriberGetsThePeripheralsKnownFirstThenTheUpdates() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world)) { fixture in
            let fast = TestSubscriber(fixture.central.startDiscovery())
            _ = try await Self.allFive(fast)
            await fixture.settle()
            // Scan 1, 2 and 3 advertise at -41, -42 and -43 dBm; Scan 4 and 5 below -43.
            let late = TestSubscriber(fixture.central.availablePeripherals(filter: DiscoveryFilter(minimumRSSI: -43)))
            try await late.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(late.values.map { $0.map(\.address) } == [Array(AsyncScanTests.ordered.prefix(3))])
            // Scan 5 changes outside the filter: no list. Scan 4 comes into it: the list with it, strongest first.
            try await fixture.simulator.updateAdvertisement(of: AsyncScanTests.ordered[4]) { $0.rssi = -50 }
            try await fixture.simulator.updateAdvertisement(of: AsyncScanTests.ordered[3]) { $0.rssi = -40 }
            try await late.wait(timeout: Patience.step) { $0.valueCount == 2 }
            await fixture.settle()
            #expect(
                late.values.map { $0.map(\.address) } == [
                    Array(AsyncScanTests.ordered.prefix(3)),
                    [AsyncScanTests.ordered[3]] + Array(AsyncScanTests.ordered.prefix(3)),
                ])
            #expect(late.completion == nil)
            late.cancel()
            fast.cancel()
        }
    }

    @Test func aSlowIsScanningSubscriberGetsTheValueNowThenTheLatest() async throws {
        try await withFixture(CentralFixture(world: AsyncScanTests.world)) { fixture in
            let central = fixture.central
            let slow = TestSubscriber(central.isScanning.setFailureType(to: BluetoothError.self), demand: .none)
            let watcher = TestSubscriber(central.isScanning.setFailureType(to: BluetoothError.self))
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [false])
            let first = TestSubscriber(central.startDiscovery())
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true] }
            first.cancel()
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            let second = TestSubscriber(central.startDiscovery())
            try await watcher.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            await fixture.settle()
            // Three changes while it asked for nothing: it gets the value now.
            #expect(slow.values == [false])
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(slow.values == [false, true])
            second.cancel()
            try await watcher.wait(timeout: Patience.step) { $0.values.last == false }
            await fixture.settle()
            #expect(slow.values == [false, true])
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(slow.values == [false, true, false])
        }
    }
}

extension AsyncScanTests {
    /// The five addresses strongest first (their RSSI falls from -41 to -45).
    static let ordered = (1...5).map { BluetoothAddress(rawValue: 0xC0FF_EE00_0500 + UInt64($0)) }
}
