import Ripple
import RippleDBus
import RippleLoop
import RippleTestSupport
import Testing

@testable import RippleBlueZSimulator

/// The simulated bluetoothd in the shuffled order: each order the rules table of the "Signal ordering"
/// article names, shown to happen for some seeds and not for others (or for every seed, where bluetoothd
/// fixes it), and a seed that gives the same trace again. The client only waits for what it needs, so that
/// what happens depends on the seed alone.
@Suite struct ShuffledOrderTests {
    private static let seeds: ClosedRange<UInt64> = 1...16
    private static let device = "hci0/dev_C0_FF_EE_00_00_01"
    private static let stream = BluetoothUUID(0xAAA1)
    private static let echo = BluetoothUUID(0xAAA2)

    /// The monitor with a characteristic that notifies `count` numbered values as fast as it can, and one
    /// that answers a write with a notification of the written bytes.
    private static func world(known: Bool = true, streaming count: Int = 3) -> SimulatedWorld {
        var peripheral = monitor(known: known)
        peripheral.services.append(
            SimulatedService(
                uuid: 0xAAA0,
                characteristics: [
                    SimulatedCharacteristic(
                        uuid: stream, flags: [.notify], notificationSource: NotificationSource(count: count)),
                    SimulatedCharacteristic(
                        uuid: echo, flags: [.write, .notify],
                        onWrite: { request in GATTWriteResponse(notifications: [SimulatedNotification(request.value)]) }
                    ),
                ]))
        return SimulatedWorld(peripherals: [.init(peripheral)])
    }

    private static func fixture(_ seed: UInt64, world: SimulatedWorld = world()) async throws -> SimulatorFixture {
        try await SimulatorFixture(
            world: world,
            configuration: .init(
                deviceTimeout: .seconds(30), connectTimeout: .milliseconds(200), signalOrder: .shuffled(seed: seed)))
    }

    /// What the simulator sent, once nothing is held or due any more.
    private static func trace(_ fixture: SimulatorFixture) async throws -> [String] {
        var quiet = 0
        for _ in 0..<256 where quiet < 3 {
            quiet = try await fixture.simulator.withCore { $0.outbox?.isSettled ?? true } ? quiet + 1 : 0
        }
        return try await fixture.simulator.signalTrace()
    }

    /// Connects (sending `Connect()` and then only waiting) until `ServicesResolved` is true.
    private static func connect(_ fixture: SimulatorFixture) async throws {
        let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
        _ = try await fixture.call(monitorPath, deviceInterface, "Connect")
        await changes.wait { messages in
            messages.contains { $0.propertiesChange?.changed["ServicesResolved"] == .boolean(true) }
        }
    }

    /// `StartNotify()` on the streaming characteristic, then waits for its three values.
    private static func listenToTheStream(_ fixture: SimulatorFixture) async throws {
        let path = monitorPath + "/service0004/char0005"
        let values = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
        _ = try await fixture.call(path, "org.bluez.GattCharacteristic1", "StartNotify")
        await values.wait {
            $0.filter { $0.path?.description == path && $0.propertiesChange?.changed["Value"] != nil }.count == 3
        }
    }

    private static func index(_ trace: [String], _ match: (String) -> Bool) -> Int {
        trace.firstIndex(where: match) ?? Int.max
    }

    /// bluez issue 1489: `UUIDs` and `ServicesResolved` in one signal, before or after the GATT objects'
    /// `InterfacesAdded`; `Connected` always before the answer to `Connect()`.
    @Test func servicesResolvedComesBeforeOrAfterTheGATTObjects() async throws {
        var outcomes: Set<String> = []
        for seed in Self.seeds {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await Self.connect(fixture)
                let trace = try await Self.trace(fixture)
                let resolved = Self.index(trace) {
                    $0.hasPrefix(Self.device + " Device1") && $0.contains("ServicesResolved=true")
                }
                let objects = Self.index(trace) { $0.hasPrefix("+" + Self.device + "/service") }
                #expect(resolved != Int.max && objects != Int.max)
                #expect(trace[resolved].contains("UUIDs="))
                #expect(
                    Self.index(trace) { $0.contains("Connected=true") } < Self.index(trace) { $0 == "reply Connect" })
                outcomes.insert(resolved < objects ? "resolved first" : "objects first")
            }
        }
        #expect(outcomes == ["resolved first", "objects first"])
    }

    /// Children are announced after their parents, whatever the seed.
    @Test func aGATTObjectIsNeverAnnouncedBeforeItsParent() async throws {
        for seed in Self.seeds {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await Self.connect(fixture)
                let added = try await Self.trace(fixture).filter { $0.hasPrefix("+") }.map {
                    $0.split(separator: " ")[0]
                }
                for (position, path) in added.enumerated() {
                    let parent = path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
                    if parent.count > ("+" + Self.device).count {
                        #expect(added[..<position].contains { $0 == parent })
                    }
                }
            }
        }
    }

    @Test func theSameSeedGivesTheSameTrace() async throws {
        var traces: [[String]] = []
        for seed: UInt64 in [5, 5, 6, 7, 8, 9] {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await Self.connect(fixture)
                try await Self.listenToTheStream(fixture)
                _ = try await fixture.call(monitorPath, deviceInterface, "Disconnect")
                traces.append(try await Self.trace(fixture))
            }
        }
        #expect(traces[0] == traces[1])
        #expect(Set(traces.dropFirst()).count > 1)
    }

    /// The peripheral's first notification may come before the answer to its CCC write: the value goes
    /// out before `Notifying` and the answer to `StartNotify()`, which always come together.
    @Test func startNotifyIsAnsweredBeforeOrAfterTheFirstValue() async throws {
        var outcomes: Set<String> = []
        for seed in Self.seeds {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await Self.connect(fixture)
                try await Self.listenToTheStream(fixture)
                let trace = try await Self.trace(fixture)
                let reply = Self.index(trace) { $0 == "reply StartNotify" }
                let notifying = Self.index(trace) { $0.contains("Notifying=true") }
                let value = Self.index(trace) { $0.contains("Value=") }
                #expect(notifying < reply && notifying != Int.max)
                #expect(!trace[(notifying + 1)..<reply].contains { $0.contains("Value=") })
                outcomes.insert(value < reply ? "value first" : "answer first")
            }
        }
        #expect(outcomes == ["value first", "answer first"])
    }

    /// A peripheral may send the notifications that answer a write before its write response.
    @Test func aWritesNotificationMayComeBeforeItsAnswer() async throws {
        var outcomes: Set<String> = []
        for seed in Self.seeds {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await Self.connect(fixture)
                let path = monitorPath + "/service0004/char0008"
                _ = try await fixture.call(path, "org.bluez.GattCharacteristic1", "StartNotify")
                _ = try await fixture.call(
                    path, "org.bluez.GattCharacteristic1", "WriteValue", [.bytes([42]), .stringVariantDictionary([:])])
                let trace = try await Self.trace(fixture)
                let reply = Self.index(trace) { $0 == "reply WriteValue" }
                let value = Self.index(trace) { $0.contains("Value=bytes [2a]") }
                #expect(reply != Int.max && value != Int.max)
                outcomes.insert(value < reply ? "notification first" : "answer first")
            }
        }
        #expect(outcomes == ["notification first", "answer first"])
    }

    /// bluetoothd 5.66's device_free drops a pending `Connect()` unanswered when its device is removed.
    @Test func aDeviceRemovedWhileConnectingLeavesConnectUnanswered() async throws {
        var peripheral = monitor(known: true)
        peripheral.connectionDelay = .seconds(30)
        try await withFixture(Self.fixture(1, world: SimulatedWorld(peripherals: [.init(peripheral)]))) { fixture in
            let connecting = try fixture.send(monitorPath, deviceInterface, "Connect")
            _ = try await fixture.call(
                hci0, adapterInterface, "RemoveDevice", [.objectPath(try DBusObjectPath(monitorPath))])
            _ = try await fixture.call(
                hci0, "org.freedesktop.DBus.Properties", "Get", [.string(adapterInterface), .string("Powered")])
            let trace = try await Self.trace(fixture)
            #expect(trace.suffix(3) == ["-\(Self.device) [Device1]", "reply RemoveDevice", "reply Get"])
            #expect(!trace.contains { $0.hasSuffix(" Connect") || $0.contains("error Connect") })
            #expect(!connecting.isResolved)
        }
    }

    /// The `connectWithoutConnectedSignal` fault keeps `Connected = true` unsent in the shuffled order too.
    @Test func connectedTrueIsNeverSentUnderItsFault() async throws {
        for seed: UInt64 in 1...4 {
            try await withFixture(Self.fixture(seed)) { fixture in
                try await fixture.simulator.inject(.connectWithoutConnectedSignal, on: .connect, of: monitorAddress)
                try await Self.connect(fixture)
                let trace = try await Self.trace(fixture)
                #expect(trace.contains("reply Connect"))
                #expect(!trace.contains { $0.contains("Connected=true") })
            }
        }
    }

    /// bluetoothd answers `StartDiscovery()` and `StopDiscovery()` once the controller has switched, and
    /// only then changes `Discovering`.
    @Test func discoveryIsAnsweredBeforeDiscoveringChanges() async throws {
        for seed: UInt64 in 1...4 {
            try await withFixture(Self.fixture(seed)) { fixture in
                let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
                _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
                await changes.wait { $0.contains { $0.propertiesChange?.changed["Discovering"] == .boolean(true) } }
                _ = try await fixture.call(hci0, adapterInterface, "StopDiscovery")
                await changes.wait { $0.contains { $0.propertiesChange?.changed["Discovering"] == .boolean(false) } }
                let trace = try await Self.trace(fixture)
                let started = Self.index(trace) { $0 == "reply StartDiscovery" }
                let on = Self.index(trace) { $0.contains("Discovering=true") }
                let stopped = Self.index(trace) { $0 == "reply StopDiscovery" }
                let off = Self.index(trace) { $0.contains("Discovering=false") }
                #expect(started < on && on < stopped && stopped < off && off != Int.max)
            }
        }
    }

    /// A device another client's discovery saw shortly before is already in the tree: a scanning client
    /// sees its `PropertiesChanged` and no `InterfacesAdded`.
    @Test func aScanningClientMaySeeADevicesChangesWithoutItsInterfacesAdded() async throws {
        var outcomes: Set<String> = []
        for seed in Self.seeds {
            try await withFixture(Self.fixture(seed, world: Self.world(known: false))) { fixture in
                let known = try await fixture.managedObjects()[monitorPath] != nil
                let log = SignalLog(fixture.client.signals(matching: DBusMatchRule(sender: "org.bluez")))
                for try await _ in fixture.client.synchronize().values {}
                _ = try await fixture.call(hci0, adapterInterface, "StartDiscovery")
                await log.wait { messages in
                    messages.contains {
                        $0.body.first?.objectPath?.description == monitorPath
                            || ($0.path?.description == monitorPath && $0.propertiesChange?.changed["RSSI"] != nil)
                    }
                }
                let trace = try await Self.trace(fixture)
                let scanning = trace.drop { $0 != "reply StartDiscovery" }
                #expect(scanning.contains("+\(Self.device) [Device1]") == !known)
                outcomes.insert(known ? "already in the tree" : "announced")
            }
        }
        #expect(outcomes == ["already in the tree", "announced"])
    }

    /// A Service Changed in the middle of a stream: every value of the old characteristic goes before its
    /// removal, the new objects come after the old ones went (parents first), and a session on the new
    /// characteristic streams again.
    @Test func aServiceChangedInTheMiddleOfAStreamRemovesThenAddsTheObjects() async throws {
        for seed: UInt64 in 1...6 {
            try await withFixture(Self.fixture(seed, world: Self.world(streaming: 1_000))) { fixture in
                try await Self.connect(fixture)
                let path = monitorPath + "/service0004/char0005"
                let values = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
                _ = try await fixture.call(path, "org.bluez.GattCharacteristic1", "StartNotify")
                await values.wait {
                    $0.contains { $0.path?.description == path && $0.propertiesChange?.changed["Value"] != nil }
                }
                var services = try #require(
                    try await fixture.simulator.withCore { $0.device(monitorAddress)?.peripheral.services })
                services.insert(SimulatedService(uuid: 0xBBB0, characteristics: []), at: 0)
                try await fixture.simulator.changeServices(of: monitorAddress, to: services)
                let trace = try await Self.trace(fixture)
                let removal = Self.index(trace) { $0.hasPrefix("-\(Self.device)/service0004/char0005 ") }
                let lastValue =
                    trace.lastIndex { $0.hasPrefix("\(Self.device)/service0004/char0005 ") && $0.contains("Value=") }
                    ?? Int.max
                let firstAdded =
                    Self.index(Array(trace[(removal == Int.max ? 0 : removal)...])) { $0.hasPrefix("+") }
                    + (removal == Int.max ? 0 : removal)
                #expect(lastValue < removal && removal < firstAdded && firstAdded != Int.max)
                let moved = monitorPath + "/service0005/char0006"
                let again = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
                _ = try await fixture.call(moved, "org.bluez.GattCharacteristic1", "StartNotify")
                await again.wait {
                    $0.contains { $0.path?.description == moved && $0.propertiesChange?.changed["Value"] != nil }
                }
            }
        }
    }
}
