import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct NotificationTests {
    private let sensor = CharacteristicReference(Lab.sensor)
    private let marker = CharacteristicReference(Lab.marker)

    @Test func aListenerReceivesExactlyWhatWasSentOverTheSocket() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2, 2], [3, 3, 3]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[1], [2, 2], [3, 3, 3]])
            #expect(fixture.simulator.statistics.snapshot.socketNotifications == 3)
            #expect(fixture.simulator.statistics.snapshot.signalNotifications == 0)
            #expect(listener.completion == nil)
        }
    }

    @Test func theBusTransportUsesStartNotify() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2], [3]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[1], [2], [3]])
            #expect(fixture.simulator.statistics.snapshot.signalNotifications == 3)
            #expect(fixture.simulator.statistics.snapshot.socketNotifications == 0)
        }
    }

    /// bluetoothd 5.66 keeps a `StartNotify` session when the link ends (and would have the peripheral
    /// notify again on every later link): a listener that ends with its link ends that session too.
    @Test func aBusListenerEndedByItsLinkReleasesTheSessionBluetoothdKeeps() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let path = try DBusObjectPath(Lab.devicePath + "/service0001/char0002")
            let connection = fixture.central.connection
            let changes = TestSubscriber(
                connection.propertiesChanged(path: path, interface: "org.bluez.GattCharacteristic1")
                    .compactMap { $0.changed["Notifying"] }
                    .mapError { BluetoothError($0, during: "watching Notifying") })
            for try await _ in connection.synchronize().values {}
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: .bus))
            // The session exists once bluetoothd has answered StartNotify (Notifying = true just before the
            // answer, which may come after the simulator starts notifying, in the shuffled order; a link that
            // drops before it fails StartNotify and leaves no session).
            try await changes.wait(timeout: Patience.step) { $0.values.contains(.boolean(true)) }
            try await fixture.simulator.disconnect(peripheral: Lab.address, reason: .remote)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(listener.failure()?.kind == .notConnected)
            try await changes.wait(timeout: Patience.step) { $0.values.contains(.boolean(false)) }
            #expect(changes.values == [.boolean(true), .boolean(false)])
        }
    }

    @Test func aRefusedSocketFallsBackToStartNotify() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await fixture.simulator.inject(
                .fail(.notPermitted("Notify acquired")), on: .acquireNotify(Lab.sensor), of: Lab.address)
            let listener = TestSubscriber(peripheral.listen(to: sensor))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[4], [5]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[4], [5]])
            #expect(fixture.simulator.statistics.snapshot.signalNotifications == 2)
        }
    }

    /// bluetoothd answers `AcquireNotify` (and `StartNotify`) NotPermitted "Notify acquired" until it has
    /// seen the hang-up of the socket a process closed and signalled `NotifyAcquired = false`: a listener
    /// that comes right after the last one left (a `for await` loop ended by `break`, then a `sink`) waits
    /// for that signal instead of being refused, in every order.
    @Test func aListenerRightAfterTheLastOneLeftIsNotRefused() async throws {
        let ticker: BluetoothUUID = "5249504c-1ab0-4000-8000-0000000000f1"
        var peripheral = Lab.peripheral
        peripheral.services[0].characteristics.append(
            SimulatedCharacteristic(
                uuid: ticker, flags: [.notify],
                notificationSource: NotificationSource(rate: 200, payload: .numbered(size: 4))))
        try await withFixture(CentralFixture(world: SimulatedWorld(peripherals: [.init(peripheral)]))) { fixture in
            let connected = try await fixture.connect()
            for round in 1...10 {
                let listener = TestSubscriber(connected.listen(to: CharacteristicReference(ticker)))
                try await listener.wait(timeout: Patience.step) { $0.valueCount > 0 || $0.completion != nil }
                #expect(listener.completion == nil, "round \(round): \(String(describing: listener.failure()))")
                listener.cancel()
            }
            let trace = try await fixture.simulator.signalTrace()
            #expect(trace.filter { $0.hasPrefix("error AcquireNotify") || $0.hasPrefix("error StartNotify") } == [])
        }
    }

    @Test func anIndicationOnlyCharacteristicIsHeardOnTheBus() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: CharacteristicReference(Lab.indicator)))
            try await fixture.simulator.waitUntilNotifying(
                peripheral: Lab.address, characteristic: Lab.indicator)
            try await fixture.notify(Lab.indicator, [[9], [8]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(listener.values == [[9], [8]])
            #expect(fixture.simulator.statistics.snapshot.signalNotifications == 2)
        }
    }

    @Test(arguments: [NotificationTransport.automatic, .bus])
    func twoListenersOneCancelsTheOtherKeepsReceiving(transport: NotificationTransport) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let first = TestSubscriber(peripheral.listen(to: sensor, transport: transport))
            let second = TestSubscriber(peripheral.listen(to: sensor, transport: transport))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 2 }
            try await second.wait(timeout: Patience.step) { $0.valueCount == 2 }
            first.cancel()
            try await fixture.notify(Lab.sensor, [[3], [4]])
            try await second.wait(timeout: Patience.step) { $0.valueCount == 4 }
            #expect(first.values == [[1], [2]])
            #expect(second.values == [[1], [2], [3], [4]])
            #expect(second.completion == nil)
        }
    }

    @Test(arguments: [NotificationTransport.automatic, .bus])
    func aReadDuringNotificationsCausesNoDuplicate(transport: NotificationTransport) async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: sensor, transport: transport))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(try await peripheral.readValue(sensor) == [2])
            #expect(try await peripheral.readValue(sensor) == [2])
            try await fixture.notify(Lab.sensor, [[3]])
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[1], [2], [3]])
        }
    }

    @Test func aDisconnectMidReadFailsTheReadAsNotConnectedAndEndsTheListeners() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let overSocket = TestSubscriber(peripheral.listen(to: sensor))
            let overBus = TestSubscriber(peripheral.listen(to: marker, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
            try await fixture.simulator.inject(.disconnect(.remote), on: .read(Lab.sensor), of: Lab.address)
            await #expect(throws: BluetoothError.self) { _ = try await peripheral.readValue(sensor) }
            do throws(BluetoothError) {
                _ = try await peripheral.readValue(sensor)
                Issue.record("a read after the disconnection succeeded")
            } catch {
                #expect(error.kind == .notConnected)
            }
            try await overSocket.wait(timeout: Patience.step) { $0.completion != nil }
            try await overBus.wait(timeout: Patience.step) { $0.completion != nil }
            for completion in [overSocket.completion, overBus.completion] {
                guard case .failure(let error)? = completion else {
                    Issue.record("a listener did not fail: \(String(describing: completion))")
                    continue
                }
                #expect(error.kind == .notConnected)
            }
        }
    }

    @Test func aReadInterruptedByTheLinkFailsWithNotConnected() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            try await fixture.simulator.inject(.disconnect(.remote), on: .read(Lab.sensor), of: Lab.address)
            do throws(BluetoothError) {
                _ = try await peripheral.readValue(sensor)
                Issue.record("the read succeeded")
            } catch {
                #expect(error.kind == .notConnected)
                #expect(error.bluezName == "org.bluez.Error.Failed")
                #expect(error.bluezMessage == "Not connected")
            }
        }
    }

    /// The slow listener's notifications and then a marker on another characteristic, all on the bus:
    /// when the marker's listener has it, the slow listener has had every notification before it.
    private func flood(
        _ fixture: CentralFixture, _ peripheral: Peripheral, into slow: NotificationBuffering, count: Int,
        statistics: NotificationStatistics = NotificationStatistics()
    ) async throws -> (TestSubscriber<[UInt8], BluetoothError>, NotificationStatistics) {
        let listener = TestSubscriber(
            peripheral.listen(to: sensor, buffering: slow, transport: .bus, statistics: statistics), demand: .none)
        let markers = TestSubscriber(peripheral.listen(to: marker, transport: .bus))
        try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
        try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
        try await fixture.notify(Lab.sensor, (1...count).map { [UInt8($0)] })
        try await fixture.notify(Lab.marker, [[0xFF]])
        try await markers.wait(timeout: Patience.step) { $0.valueCount == 1 }
        return (listener, statistics)
    }

    @Test func aSlowSubscriberUnderDropOldestSeesTheLatestAndTheCountIsExact() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let (listener, statistics) = try await flood(
                fixture, peripheral, into: .init(capacity: 3, policy: .dropOldest), count: 10)
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            #expect(drops.values == [7])
            #expect(statistics.received == 10)
            #expect(statistics.dropped == 7)
            #expect(statistics.delivered == 0)
            listener.request(.max(5))
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[8], [9], [10]])
            #expect(statistics.delivered == 3)
            #expect(listener.completion == nil)
            drops.cancel()
        }
    }

    @Test func aSlowSubscriberUnderDropNewestSeesTheFirstAndTheCountIsExact() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            let (listener, _) = try await flood(
                fixture, peripheral, into: .init(capacity: 3, policy: .dropNewest), count: 10, statistics: statistics)
            #expect(drops.values == [0, 1, 2, 3, 4, 5, 6, 7])
            #expect(statistics.received == 10)
            #expect(statistics.dropped == 7)
            listener.request(.max(5))
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(listener.values == [[1], [2], [3]])
            #expect(listener.completion == nil)
            drops.cancel()
        }
    }

    @Test func aSlowSubscriberUnderFailStreamFailsAtOnceWithoutDemand() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let (listener, statistics) = try await flood(
                fixture, peripheral, into: .init(capacity: 3, policy: .failStream), count: 10)
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = listener.failure() else {
                return
            }
            #expect(error.kind == .bufferOverflow)
            #expect(listener.values.isEmpty)
            // The fourth overflowed: it and the three waiting are dropped; the rest never reached the listener.
            #expect(statistics.received == 4)
            #expect(statistics.dropped == 4)
            #expect(statistics.delivered == 0)
        }
    }

    @Test func tenThousandNotificationsArriveInOrderOverTheSocket() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let listener = TestSubscriber(
                peripheral.listen(to: CharacteristicReference(Lab.stream), statistics: statistics))
            try await listener.wait(timeout: Patience.step) { $0.valueCount == 10_000 }
            let sequence = listener.values.map { value -> UInt32 in
                var reader = ByteReader(value, typeName: "numbered notification")
                return (try? reader.read(UInt32.self)) ?? .max
            }
            #expect(sequence == Array(0..<10_000))
            #expect(statistics.dropped == 0)
            #expect(fixture.simulator.statistics.snapshot.socketNotifications == 10_000)
        }
    }

    @Test func listenToAllTagsEachNotificationWithItsCharacteristic() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let all = TestSubscriber(peripheral.listenToAll([sensor, marker], transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
            try await fixture.notify(Lab.sensor, [[1]])
            try await fixture.notify(Lab.marker, [[2]])
            try await fixture.notify(Lab.sensor, [[3]])
            try await all.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(
                all.values.map(\.characteristic) == [Lab.sensor, Lab.marker, Lab.sensor])
            #expect(all.values.map(\.value) == [[1], [2], [3]])
        }
    }

    @Test func connectableListenStartsOnConnectAndFeedsEverySubscriber() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let shared = peripheral.connectableListen(to: sensor)
            let first = TestSubscriber(shared)
            let second = TestSubscriber(shared.map { $0.count })
            let connection = shared.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2, 2]])
            try await first.wait(timeout: Patience.step) { $0.valueCount == 2 }
            try await second.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(first.values == [[1], [2, 2]])
            #expect(second.values == [1, 2])
            // Cancelling the connection stops the listener; the subscribers stay until cancelled, as in Combine.
            connection.cancel()
            first.cancel()
            second.cancel()
        }
    }

    @Test func writeAndListenWritesOnceSubscribedAndEmitsTheReply() async throws {
        let world = SimulatedWorld(peripherals: [.init(.ledButton(address: "C0:FF:EE:00:00:0B"))])
        try await withFixture(CentralFixture(world: world)) { fixture in
            let peripheral = try await fixture.connect("C0:FF:EE:00:00:0B")
            let controlPoint = CharacteristicReference(BluetoothUUID("5249504c-0003-4c45-4442-7574746f6e00"))
            let led = CharacteristicReference(BluetoothUUID("5249504c-0001-4c45-4442-7574746f6e00"))
            let reply = try await peripheral.writeAndListen(
                [LEDButtonCommand.setLED.rawValue, 1], to: controlPoint, reply: controlPoint
            )
            .values.first { _ in true }
            #expect(reply == [LEDButtonCommand.responseCode, LEDButtonCommand.setLED.rawValue, 0x01])
            #expect(try await peripheral.readValue(led) == [1])
        }
    }

    @Test func notificationsAsAnAsyncSequenceDecodeAndStopWhenTheLoopEnds() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let task = Task {
                var received: [UInt16] = []
                for try await value in peripheral.notifications(of: sensor, as: UInt16.self) {
                    received.append(value)
                    if received.count == 2 { break }
                }
                return received
            }
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1, 0], [0, 1]])
            #expect(try await task.value == [1, 256])
        }
    }

    @Test func aNotificationThatIsNotTheTypeEndsTheTypedStreamClearly() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let listener = TestSubscriber(peripheral.listen(to: sensor, as: UInt16.self))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1, 0], [7]])
            try await listener.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(listener.values == [1])
            #expect(
                listener.completion
                    == .failure(
                        .invalidValue(
                            ValueDecodingError(
                                typeName: "UInt16", offset: 0, reason: .tooFewBytes(needed: 2, available: 1)))))
        }
    }

    @Test func connectableListenKeepsEveryNotificationForASlowSubscriber() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let shared = peripheral.connectableListen(
                to: sensor, buffering: .init(capacity: 8, policy: .failStream), statistics: statistics)
            let fast = TestSubscriber(shared)
            let slow = TestSubscriber(shared, demand: .none)
            let connection = shared.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2], [3]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 3 }
            // The slow subscriber's wait in its buffer.
            #expect(slow.values.isEmpty)
            slow.request(.max(1))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [[1]])
            slow.request(.max(2))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(slow.values == [[1], [2], [3]])
            #expect(fast.values == [[1], [2], [3]])
            #expect(statistics.received == 6)
            #expect(statistics.dropped == 0)
            #expect(statistics.delivered == 6)
            // Cancelling the connection stops the listener; the subscribers stay until cancelled, as in Combine.
            connection.cancel()
            fast.cancel()
            slow.cancel()
        }
    }

    @Test func connectableListenCountsASlowSubscribersDropsExactly() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let shared = peripheral.connectableListen(
                to: sensor, buffering: .init(capacity: 1, policy: .dropOldest), statistics: statistics)
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            let fast = TestSubscriber(shared)
            let slow = TestSubscriber(shared, demand: .none)
            let connection = shared.connect()
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.notify(Lab.sensor, [[1], [2], [3]])
            try await fast.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(slow.values.isEmpty)
            // Each notification reaches the fast subscriber, then the slow one's buffer: the drop count (a
            // state stream) tells when the last one got there.
            try await drops.wait(timeout: Patience.step) { $0.values.last == 2 }
            slow.request(.max(5))
            try await slow.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(slow.values == [[3]])
            #expect(fast.values == [[1], [2], [3]])
            #expect(drops.values == [0, 1, 2])
            #expect(statistics.received == 6)
            #expect(statistics.delivered == 4)
            // Cancelling the connection stops the listener; the subscribers stay until cancelled, as in Combine.
            connection.cancel()
            fast.cancel()
            slow.cancel()
            drops.cancel()
        }
    }

    @Test func anAwaitingLoopOverNotificationsSeesEveryOneThatArrivedMeanwhile() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let loop = GatedConsumer(
                peripheral.notifications(
                    of: sensor, buffering: .init(capacity: 16, policy: .failStream), transport: .bus,
                    statistics: statistics))
            await loop.waitUntilSubscribed()
            let markers = TestSubscriber(peripheral.listen(to: marker, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
            try await fixture.notify(Lab.sensor, [[1]])
            #expect(await loop.next() == [1])
            // The loop's body is awaiting: these arrive meanwhile, then the marker after them.
            try await fixture.notify(Lab.sensor, [[2], [3], [4]])
            try await fixture.notify(Lab.marker, [[0xFF]])
            try await markers.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(statistics.received == 4)
            #expect(statistics.delivered == 1)
            var seen: [[UInt8]] = [[1]]
            for _ in 0..<3 {
                loop.open()
                seen.append(await loop.next() ?? [])
            }
            #expect(seen == [[1], [2], [3], [4]])
            #expect(statistics.dropped == 0)
            #expect(statistics.delivered == 4)
            await loop.stop()
        }
    }

    @Test func anAwaitingLoopOverTypedNotificationsCountsTheDropsOfItsPolicy() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let loop = GatedConsumer(
                peripheral.notifications(
                    of: sensor, as: UInt8.self, buffering: .init(capacity: 2, policy: .dropOldest), transport: .bus,
                    statistics: statistics))
            await loop.waitUntilSubscribed()
            let markers = TestSubscriber(peripheral.listen(to: marker, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
            try await fixture.notify(Lab.sensor, [[1]])
            #expect(await loop.next() == 1)
            try await fixture.notify(Lab.sensor, [[2], [3], [4], [5]])
            try await fixture.notify(Lab.marker, [[0xFF]])
            try await markers.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(statistics.dropped == 2)
            loop.open()
            #expect(await loop.next() == 4)
            loop.open()
            #expect(await loop.next() == 5)
            #expect(statistics.received == 5)
            #expect(statistics.delivered == 3)
            await loop.stop()
        }
    }

    @Test func listenToAllCountsEachListenersDropsInOneStatistics() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let statistics = NotificationStatistics()
            let all = TestSubscriber(
                peripheral.listenToAll(
                    [sensor], buffering: .init(capacity: 2, policy: .dropNewest), transport: .bus,
                    statistics: statistics),
                demand: .none)
            let markers = TestSubscriber(peripheral.listen(to: marker, transport: .bus))
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.sensor)
            try await fixture.simulator.waitUntilNotifying(peripheral: Lab.address, characteristic: Lab.marker)
            try await fixture.notify(Lab.sensor, [[1], [2], [3], [4], [5]])
            try await fixture.notify(Lab.marker, [[0xFF]])
            try await markers.wait(timeout: Patience.step) { $0.valueCount == 1 }
            // The merge holds the first (delivered by the listener), the buffer the next two; two are dropped.
            #expect(statistics.received == 5)
            #expect(statistics.delivered == 1)
            #expect(statistics.dropped == 2)
            for count in 1...3 {
                all.request(.max(1))
                try await all.wait(timeout: Patience.step) { $0.valueCount == count }
            }
            #expect(all.values.map(\.value) == [[1], [2], [3]])
            #expect(statistics.delivered == 3)
        }
    }
}
