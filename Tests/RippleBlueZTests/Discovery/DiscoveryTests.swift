import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct CentralDiscoveryTests {
    private static let world = SimulatedWorld(peripherals: [
        .init(Lab.peripheral),
        .init(.heartRateMonitor(address: "C0:FF:EE:00:00:01", rssi: -50)),
        .init(.ledButton(address: "C0:FF:EE:00:00:02", rssi: -70)),
    ])

    @Test func eachSubscriberGetsWhatItsFilterAsksForFromOneSharedSession() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture throws in
            let heartRate = TestSubscriber(fixture.central.startDiscovery(filter: .services([.heartRate])))
            let named = TestSubscriber(fixture.central.startDiscovery(filter: DiscoveryFilter(namePrefix: "Ripple L")))
            try await heartRate.wait(timeout: Patience.step) { $0.valueCount >= 1 }
            try await named.wait(timeout: Patience.step) { Set($0.values.map(\.address)).count == 2 }
            #expect(Set(heartRate.values.map(\.address)) == ["C0:FF:EE:00:00:01"])
            #expect(Set(named.values.map(\.address)) == [Lab.address, "C0:FF:EE:00:00:02"])
            #expect(try await fixture.simulator.discoveringClients().count == 1)
        }
    }

    @Test func bluetoothdsDiscoveryStartsWithTheFirstSubscriberAndStopsAfterTheLast() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture throws in
            let scanning = TestSubscriber(fixture.central.isScanning.setFailureType(to: BluetoothError.self))
            let first = TestSubscriber(fixture.central.startDiscovery())
            let second = TestSubscriber(fixture.central.startDiscovery())
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true] }
            first.cancel()
            // One subscriber is left: still scanning.
            try await second.wait(timeout: Patience.step) { $0.valueCount >= 1 }
            #expect(scanning.values == [false, true])
            second.cancel()
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            // isScanning turns false as StopDiscovery is sent; it reaches the simulator (asked on another
            // connection) within a few round trips.
            var rounds = 0
            while try await !fixture.simulator.discoveringClients().isEmpty, rounds < 1_000 {
                await fixture.settle()
                rounds += 1
            }
            #expect(try await fixture.simulator.discoveringClients().isEmpty)
        }
    }

    /// The address type the simulator gives a peripheral is the one the client reads: one vocabulary.
    @Test func aDiscoveryCarriesThePeripheralsAddressType() async throws {
        var tag = Lab.peripheral
        tag.addressType = .random
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(tag)]))) { fixture in
            let discoveries = TestSubscriber(fixture.central.startDiscovery())
            try await discoveries.wait(timeout: Patience.step) { !$0.values.isEmpty }
            #expect(discoveries.values.first?.addressType == .random)
            #expect(discoveries.values.first?.addressType == tag.addressType)
            discoveries.cancel()
        }
    }

    @Test func aLateSubscriberHearsOfPeripheralsAlreadySeen() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            // The lab peripheral's RSSI never changes: after its first advertisement, bluetoothd has nothing
            // new to say about it.
            let early = TestSubscriber(fixture.central.startDiscovery())
            try await early.wait(timeout: Patience.step) { $0.values.contains { $0.address == Lab.address } }
            let late = TestSubscriber(fixture.central.startDiscovery(filter: DiscoveryFilter(namePrefix: "Ripple Lab")))
            try await late.wait(timeout: Patience.step) { !$0.values.isEmpty }
            #expect(late.values.first?.address == Lab.address)
            #expect(late.values.first?.name == "Ripple Lab")
            #expect(late.values.first?.serviceUUIDs == [Lab.service])
        }
    }

    @Test func availablePeripheralsAreSortedByRSSIAndLeaveWhenBluetoothdForgetsThem() async throws {
        try await withFixture(CentralFixture(world: Self.world, deviceTimeout: .seconds(1))) { fixture in
            let lists = TestSubscriber(fixture.central.availablePeripherals())
            try await lists.wait(timeout: Patience.step) { $0.values.last?.count == 3 }
            #expect(lists.values.last?.map(\.address) == ["C0:FF:EE:00:00:01", Lab.address, "C0:FF:EE:00:00:02"])
            try await fixture.simulator.setInRange(false, peripheral: "C0:FF:EE:00:00:02")
            try await lists.wait(timeout: Patience.step) { $0.values.last?.count == 2 }
            #expect(lists.values.last?.map(\.address) == ["C0:FF:EE:00:00:01", Lab.address])
        }
    }

    @Test func anExpiryDropsPeripheralsNotHeardForThatLong() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let lists = TestSubscriber(fixture.central.availablePeripherals(expiry: .milliseconds(300)))
            try await lists.wait(timeout: Patience.step) { $0.values.last?.count == 3 }
            // The lab peripheral's advertisement never changes: bluetoothd reports it once, and it expires.
            // The other two keep advertising; on a loaded machine one of them may expire for a moment and
            // come back, so the test waits for the list without the lab peripheral rather than for a count.
            let others: [BluetoothAddress] = ["C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02"]
            try await lists.wait(timeout: Patience.step) { $0.values.last?.map(\.address) == others }
            #expect(lists.values.last?.map(\.address) == others)
        }
    }

    @Test func scanningPausesWhileConnectingAndResumesAfter() async throws {
        try await withFixture(CentralFixture(world: Self.world)) { fixture in
            let scanning = TestSubscriber(fixture.central.isScanning.setFailureType(to: BluetoothError.self))
            let discoveries = TestSubscriber(fixture.central.startDiscovery())
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true] }
            // Discovering may change before bluetoothd reports the device (in the shuffled order): connect
            // once it has.
            try await discoveries.wait(timeout: Patience.step) { $0.values.contains { $0.address == Lab.address } }
            _ = try await fixture.central.connectPeripheral(to: Lab.address)
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            #expect(discoveries.completion == nil)
        }
    }
}

@Suite(.timeLimit(Patience.test)) struct DiscoveryInterruptionTests {
    @Test func discoveryWaitsThroughAPowerCycleAndResumes() async throws {
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(.heartRateMonitor())]))) {
            fixture in
            let scanning = TestSubscriber(fixture.central.isScanning.setFailureType(to: BluetoothError.self))
            let discoveries = TestSubscriber(fixture.central.startDiscovery())
            try await discoveries.wait(timeout: Patience.step) { !$0.values.isEmpty }
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            let seen = discoveries.values.count
            try await fixture.simulator.setPowered(true, adapter: "hci0")
            try await scanning.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            try await discoveries.wait(timeout: Patience.step) { $0.valueCount > seen }
            #expect(discoveries.completion == nil)
            #expect(try await fixture.simulator.discoveringClients().count == 1)
        }
    }

    @Test func aDiscoveryThatDoesNotResumeFailsWhenTheAdapterGoesOff() async throws {
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(.heartRateMonitor())]))) {
            fixture in
            let discoveries = TestSubscriber(fixture.central.startDiscovery(resumesAfterInterruption: false))
            try await discoveries.wait(timeout: Patience.step) { !$0.values.isEmpty }
            try await fixture.simulator.setPowered(false, adapter: "hci0")
            try await discoveries.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(discoveries.completion == .failure(.poweredOff))
        }
    }
}
