import Glibc
import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleTestKit
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZ

private let service = uuid(0x00)
/// `52495050-0000-4000-8000-0000000000XX`, `XX` being `last`.
private func uuid(_ last: UInt8) -> BluetoothUUID {
    BluetoothUUID(high: 0x5249_5050_0000_4000, low: 0x8000_0000_0000_0000 | UInt64(last))
}

/// Reads and notifies, from its current value.
private let sensor = uuid(0x01)
/// Reads through a handler that answers the request's offset, MTU and central.
private let handled = uuid(0x02)
/// Writes with response.
private let control = uuid(0x03)
/// Writes without response.
private let command = uuid(0x04)
/// Reads through a handler that refuses with an ATT error.
private let refusing = uuid(0x05)
/// Indicates (and reads), in a service of its own.
private let alarm = uuid(0x06)

private func services() -> [LocalService] {
    [
        LocalService(service) {
            LocalCharacteristic(
                sensor, properties: [.read, .notify], value: [1, 2, 3], descriptors: [.userDescription("Sensor")])
            LocalCharacteristic(handled, properties: [.read]) { request in
                [UInt8(request.offset), UInt8(truncatingIfNeeded: request.mtu)]
                    + Array((request.centralAddress?.description ?? "?").utf8)
            }
            LocalCharacteristic(control, properties: [.write])
            LocalCharacteristic(command, properties: [.writeWithoutResponse])
            LocalCharacteristic(refusing, properties: [.read]) { _ throws(ATTError) in
                throw .invalidAttributeValueLength
            }
        }
    ]
}

/// Records what a write stream delivers, answering each request with `answer`.
private final class RequestLog: Sendable {
    private let requests = Mutex<[WriteRequest]>([])
    private let subscription = Mutex<AnyCancellable?>(nil)

    init(
        _ stream: AnyPublisher<WriteRequest, BluetoothError>,
        answer: @escaping @Sendable (WriteRequest) -> Result<Void, ATTError>
    ) {
        let sink = stream.sink(
            receiveCompletion: { _ in },
            receiveValue: { [weak self] request in
                self?.requests.withLock { $0.append(request) }
                request.respond(answer(request))
            })
        subscription.withLock { $0 = sink }
    }

    var all: [WriteRequest] { requests.withLock { $0 } }
}

@Suite(.timeLimit(Patience.test)) struct PeripheralManagerTests {
    @Test func aRippleCentralReadsWritesAndListensToARipplePeripheral() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let (registration, advertising) = try await fixture.serve(
                Advertisement(localName: "Ripple", serviceUUIDs: [service]))
            #expect(registration.values.last == .registered)
            #expect(advertising.values.last == .advertising)
            let peripheral = try await fixture.connect()
            #expect(peripheral.services.map(\.uuid) == [service])

            // Reads: from the current value, and through a handler that sees the offset, the MTU and the central.
            #expect(try await peripheral.readValue(CharacteristicReference(sensor)) == [1, 2, 3])
            try fixture.manager.setValue([4, 5], for: CharacteristicReference(sensor))
            #expect(try await peripheral.readValue(CharacteristicReference(sensor)) == [4, 5])
            #expect(
                try await peripheral.readValue(CharacteristicReference(handled))
                    == [0, 247] + Array(PeripheralFixture.centralAddress.description.utf8))
            let description = try await peripheral.read(
                descriptor: .characteristicUserDescription, of: CharacteristicReference(sensor), as: String.self
            ).values.first { _ in true }
            #expect(description == "Sensor")

            // Writes with and without response reach the app with the central and what it wants.
            let controls = RequestLog(fixture.manager.writes(to: CharacteristicReference(control))) { _ in .success(())
            }
            let commands = RequestLog(fixture.manager.writes(to: CharacteristicReference(command))) { _ in .success(())
            }
            try await peripheral.writeValue([7], to: CharacteristicReference(control))
            #expect(controls.all.map(\.value) == [[7]])
            #expect(controls.all.map(\.wantsResponse) == [true])
            #expect(controls.all.map(\.centralAddress) == [PeripheralFixture.centralAddress])
            try await peripheral.writeValue([8], to: CharacteristicReference(command), type: .withoutResponse)
            // One link, in order: a read after the command finds it taken.
            _ = try await peripheral.readValue(CharacteristicReference(sensor))
            #expect(commands.all.map(\.value) == [[8]])
            #expect(commands.all.map(\.wantsResponse) == [false])
            #expect(commands.all.first?.mtu == 247)

            // Notifications: the subscribed state follows the central; every send reaches it, repeats too.
            let subscribed = TestSubscriber(fixture.manager.isSubscribed(CharacteristicReference(sensor)))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false] }
            let notifications = TestSubscriber(peripheral.listen(to: CharacteristicReference(sensor), transport: .bus))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true] }
            try fixture.manager.send([9], on: CharacteristicReference(sensor))
            try fixture.manager.send([9], on: CharacteristicReference(sensor))
            try fixture.manager.send(UInt16(0x0A0B), on: CharacteristicReference(sensor))
            try await notifications.wait(timeout: Patience.step) { $0.valueCount == 3 }
            #expect(notifications.values == [[9], [9], [0x0B, 0x0A]])
            notifications.cancel()
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            #expect(fixture.manager.value(of: CharacteristicReference(sensor)) == [0x0B, 0x0A])
            withExtendedLifetime((controls, commands)) {}
        }
    }

    @Test func aRippleCentralListensToAnIndicatingCharacteristicOfARipplePeripheral() async throws {
        let indicating = [
            LocalService(service) { LocalCharacteristic(alarm, properties: [.read, .indicate], value: [0]) }
        ]
        try await withFixture(PeripheralFixture(services: indicating)) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(alarm)
            let seen = try #require(peripheral.services.first?.characteristics.first)
            #expect(seen.properties == [.read, .indicate])
            let subscribed = TestSubscriber(fixture.manager.isSubscribed(reference))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false] }
            // The automatic transport: bluetoothd offers no socket for indications, so the central starts a
            // notify session on the bus, and the manager sends each value as a `Value` change.
            let indications = TestSubscriber(peripheral.listen(to: reference))
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true] }
            for value in 1...20 { #expect(try fixture.manager.send([UInt8(value)], on: reference)) }
            try fixture.manager.send([20], on: reference)
            try await indications.wait(timeout: Patience.step) { $0.valueCount == 21 }
            #expect(indications.values == (1...20).map { [UInt8($0)] } + [[20]])
            let statistics = try #require(fixture.manager.notificationStatistics(of: reference))
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [21, 21, 0])
            #expect(try await peripheral.readValue(reference) == [20])
            indications.cancel()
            try await subscribed.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            #expect(indications.completion == nil)
            withExtendedLifetime(served) {}
        }
    }

    @Test func attErrorsReachTheCentralAsTheMatchingBluetoothError() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let answers: [ATTError] = [.application(0x81), .insufficientAuthorization, .requestNotSupported]
            let index = Atomic<Int>(0)
            let controls = RequestLog(fixture.manager.writes(to: CharacteristicReference(control))) { _ in
                .failure(answers[index.wrappingAdd(1, ordering: .relaxed).oldValue])
            }
            var kinds: [BluetoothError.Kind] = []
            for _ in answers {
                do throws(BluetoothError) {
                    try await peripheral.writeValue([1], to: CharacteristicReference(control))
                    Issue.record("the write succeeded")
                } catch {
                    kinds.append(error.kind)
                }
            }
            #expect(kinds == [.attError(0x81), .insufficientAuthorization, .notSupported])
            do throws(BluetoothError) {
                _ = try await peripheral.readValue(CharacteristicReference(refusing))
                Issue.record("the read succeeded")
            } catch {
                #expect(error.kind == .invalidArgument)
                #expect(error.bluezName == "org.bluez.Error.InvalidArguments")
            }
            // A characteristic that cannot be written: bluetoothd refuses before asking the app.
            do throws(BluetoothError) {
                try await peripheral.writeValue([1], to: CharacteristicReference(sensor))
                Issue.record("the write succeeded")
            } catch {
                #expect(error.kind == .notPermitted)
            }
            withExtendedLifetime((controls, served)) {}
        }
    }

    @Test func writesWithoutASubscriberAreStoredAndReadBack() async throws {
        try await withFixture(
            PeripheralFixture(services: [
                LocalService(service) { LocalCharacteristic(control, properties: [.read, .write], value: [0]) }
            ])
        ) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            try await peripheral.writeValue([5, 6], to: CharacteristicReference(control))
            #expect(try await peripheral.readValue(CharacteristicReference(control)) == [5, 6])
            #expect(fixture.manager.value(of: CharacteristicReference(control)) == [5, 6])
            withExtendedLifetime(served) {}
        }
    }

    @Test func aFullWriteBufferAnswersTheCentralWithAnATTError() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let first = try await fixture.connect()
            let other = try await fixture.anotherCentral()
            let second = try await fixture.connect(from: other)
            let statistics = EventStatistics()
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            defer { drops.cancel() }
            // One request fits; the subscriber asks for none yet. Both centrals write at once: the request
            // that comes first waits in the buffer, the other is answered with an ATT error at once.
            let requests = TestSubscriber(
                fixture.manager.writes(to: CharacteristicReference(control), capacity: 1, statistics: statistics),
                demand: .none)
            let writes = [(first, [UInt8(1)]), (second, [2])].map { central, value in
                Task { () async -> BluetoothError? in
                    do throws(BluetoothError) {
                        try await central.writeValue(value, to: CharacteristicReference(control))
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            try await drops.wait(timeout: Patience.step) { $0.values.last == 1 }
            requests.request(.max(1))
            try await requests.wait(timeout: Patience.step) { $0.valueCount == 1 }
            requests.values.first?.respond()
            let outcomes = [await writes[0].value, await writes[1].value]
            let accepted = try #require(outcomes.firstIndex { $0 == nil })
            #expect(outcomes[1 - accepted]?.kind == .attError(0x0E))
            #expect(requests.values.map(\.value) == [[UInt8(accepted + 1)]])
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [2, 1, 1])
            other.close()
            withExtendedLifetime(served) {}
        }
    }

    @Test func aWriteWithoutResponseThatFindsTheBufferFullIsCountedAsDropped() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(command)
            let statistics = EventStatistics()
            let drops = TestSubscriber(statistics.drops.setFailureType(to: BluetoothError.self))
            defer { drops.cancel() }
            // One request fits and the subscriber asks for none yet: the first command waits in the buffer,
            // the second finds it full. bluetoothd answered the central at once, so no error reaches it.
            let requests = TestSubscriber(
                fixture.manager.writes(to: reference, capacity: 1, statistics: statistics), demand: .none)
            try await peripheral.writeValue([1], to: reference, type: .withoutResponse)
            try await peripheral.writeValue([2], to: reference, type: .withoutResponse)
            try await drops.wait(timeout: Patience.step) { $0.values.last == 1 }
            #expect(drops.values == [0, 1])
            requests.request(.max(1))
            try await requests.wait(timeout: Patience.step) { $0.valueCount == 1 }
            #expect(requests.values.map(\.value) == [[1]])
            #expect(requests.values.map(\.wantsResponse) == [false])
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [2, 1, 1])
            // With demand again, the next command is delivered.
            requests.request(.max(1))
            try await peripheral.writeValue([3], to: reference, type: .withoutResponse)
            try await requests.wait(timeout: Patience.step) { $0.valueCount == 2 }
            #expect(requests.values.map(\.value) == [[1], [3]])
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [3, 2, 1])
            #expect(drops.values == [0, 1])
            #expect(requests.completion == nil)
            withExtendedLifetime(served) {}
        }
    }

    @Test func theWriteStreamsFinishWhenTheManagerCloses() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let before = TestSubscriber(fixture.manager.writes(to: CharacteristicReference(control)), demand: .none)
            fixture.manager.close()
            try await before.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(before.completion == .finished)
            #expect(before.values.isEmpty)
            let after = TestSubscriber(fixture.manager.writes(to: CharacteristicReference(control)))
            try await after.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(after.completion == .finished)
            withExtendedLifetime(served) {}
        }
    }

    /// Whether the characteristic `sensor` of the peripheral, as `adapter` sees it, has notifications on: its
    /// `Notifying` changes from now on (bluetoothd sets it before answering `StartNotify`).
    private func notifying(_ fixture: PeripheralFixture, on adapter: String) async throws
        -> TestSubscriber<DBusValue, BluetoothError>
    {
        let path = try DBusObjectPath("/org/bluez/\(adapter)/dev_00_1A_7D_DA_71_14/service0001/char0002")
        let connection = fixture.manager.connection
        let changes = TestSubscriber(
            connection.propertiesChanged(path: path, interface: "org.bluez.GattCharacteristic1")
                .compactMap { $0.changed["Notifying"] }
                .mapError { BluetoothError($0, during: "watching Notifying") })
        for try await _ in connection.synchronize().values {}
        return changes
    }

    @Test(arguments: [NotificationTransport.automatic, .bus])
    func twoCentralsListenAndOneLeavingKeepsTheOther(path: NotificationTransport) async throws {
        try await withFixture(PeripheralFixture(services: services(), notificationTransport: path)) { fixture in
            let served = try await fixture.serve()
            let first = try await fixture.connect()
            let other = try await fixture.anotherCentral()
            let second = try await fixture.connect(from: other)
            let subscribed = TestSubscriber(fixture.manager.isSubscribed(CharacteristicReference(sensor)))
            let notifyingOnFirst = try await notifying(fixture, on: "hci0")
            let notifyingOnSecond = try await notifying(fixture, on: "hci2")
            defer {
                notifyingOnFirst.cancel()
                notifyingOnSecond.cancel()
            }
            let one = TestSubscriber(first.listen(to: CharacteristicReference(sensor), transport: .bus))
            let two = TestSubscriber(second.listen(to: CharacteristicReference(sensor), transport: .bus))
            try await subscribed.wait(timeout: Patience.step) { $0.values.last == true }
            try await notifyingOnFirst.wait(timeout: Patience.step) { $0.values.contains(.boolean(true)) }
            try await notifyingOnSecond.wait(timeout: Patience.step) { $0.values.contains(.boolean(true)) }
            try fixture.manager.send([1], on: CharacteristicReference(sensor))
            try await one.wait(timeout: Patience.step) { $0.values == [[1]] }
            try await two.wait(timeout: Patience.step) { $0.values == [[1]] }
            one.cancel()
            try fixture.manager.send([2], on: CharacteristicReference(sensor))
            try await two.wait(timeout: Patience.step) { $0.values == [[1], [2]] }
            #expect(one.values == [[1]])
            #expect(subscribed.values.last == true)
            two.cancel()
            try await subscribed.wait(timeout: Patience.step) { $0.values.last == false }
            let statistics = try #require(fixture.manager.notificationStatistics(of: CharacteristicReference(sensor)))
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [2, 2, 0])
            other.close()
            withExtendedLifetime(served) {}
        }
    }

    @Test func aFullSocketDropsOneNotificationAndIsReadyAgainOnceBluetoothdReads() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(sensor)
            let ready = TestSubscriber(fixture.manager.isReadyToSend(reference))
            try await ready.wait(timeout: Patience.step) { $0.values == [false] }
            let notifications = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true] }
            // On the peripheral's loop thread, which sees no room come meanwhile: sends until the socket is full.
            let manager = fixture.manager
            let limit = 100_000
            let sent = try await fixture.peripheralThread.loop.perform { () throws(BluetoothError) -> Int in
                var sent = 0
                while sent < limit, try manager.send(UInt32(sent), on: reference) { sent += 1 }
                return sent
            }
            #expect(sent > 0 && sent < limit)
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            #expect(try manager.send(UInt32(sent), on: reference))
            try await notifications.wait(timeout: Patience.step) { $0.valueCount == sent + 1 }
            #expect(notifications.values == (0...sent).map { UInt32($0).bluetoothBytes })
            let statistics = try #require(manager.notificationStatistics(of: reference))
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [sent + 2, sent + 1, 1])
            notifications.cancel()
            try await ready.wait(timeout: Patience.step) { $0.values.last == false }
            withExtendedLifetime(served) {}
        }
    }

    /// On the bus path, libdbus keeps what the bus has not read: past the manager's limit a notification is
    /// dropped (counted) and the characteristic is not ready, until the queue has drained to half the limit.
    /// The bus is a dbus-daemon stopped for a while (SIGSTOP): it reads nothing, the socket fills, then
    /// libdbus's queue passes the limit.
    @Test func aBusThatReadsNothingDropsPastTheLimitAndIsReadyAgainOnceItReads() async throws {
        let limited = try await PeripheralFixture(
            services: services(), notificationTransport: .bus, busQueueLimit: 4096)
        try await withFixture(limited) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(sensor)
            let ready = TestSubscriber(fixture.manager.isReadyToSend(reference))
            try await ready.wait(timeout: Patience.step) { $0.values == [false] }
            let notifications = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true] }
            let manager = fixture.manager
            let connection = manager.connection
            let daemon = fixture.bus.processID
            #expect(kill(daemon, SIGSTOP) == 0)
            var stopped = true
            defer { if stopped { kill(daemon, SIGCONT) } }
            // On the peripheral's loop thread: sends until the queue is past the limit (the first drop),
            // then once more (dropped too: nothing was read meanwhile).
            let limit = 100_000
            let (sent, queued, again) = try await fixture.peripheralThread.loop.perform {
                () throws(BluetoothError) -> (Int, Int, Bool) in
                var sent = 0
                while sent < limit, try manager.send(UInt32(sent), on: reference) { sent += 1 }
                let queued = connection.outgoingByteCount
                return (sent, queued, try manager.send(UInt32(sent), on: reference))
            }
            #expect(sent > 0 && sent < limit)
            #expect(queued >= 4096)
            #expect(!again)
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            let held = try #require(manager.notificationStatistics(of: reference))
            #expect([held.received, held.delivered, held.dropped] == [sent + 2, sent, 2])
            #expect(kill(daemon, SIGCONT) == 0)
            stopped = false
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true, false, true] }
            #expect(connection.outgoingByteCount <= 2048)
            #expect(try manager.send(UInt32(sent), on: reference))
            try await notifications.wait(timeout: Patience.step) { $0.valueCount == sent + 1 }
            #expect(notifications.values == (0...sent).map { UInt32($0).bluetoothBytes })
            let statistics = try #require(manager.notificationStatistics(of: reference))
            #expect([statistics.received, statistics.delivered, statistics.dropped] == [sent + 3, sent + 1, 2])
            notifications.cancel()
            try await ready.wait(timeout: Patience.step) { $0.values.last == false }
            withExtendedLifetime(served) {}
        }
    }

    /// An attribute holds at most 512 bytes: a longer value from the app is a typed error, at once.
    @Test func aValueLongerThanAnAttributeHoldsIsRefused() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let reference = CharacteristicReference(sensor)
            let manager = fixture.manager
            try manager.setValue(Array(repeating: 9, count: 512), for: reference)
            #expect(manager.value(of: reference) == Array(repeating: 9, count: 512))
            #expect(throws: BluetoothError.valueTooLong(513, during: "setting the value of \(reference)")) {
                try manager.setValue(Array(repeating: 0, count: 513), for: reference)
            }
            #expect(manager.value(of: reference) == Array(repeating: 9, count: 512))
            #expect(throws: BluetoothError.valueTooLong(70_000, during: "notifying \(reference)")) {
                try manager.send(Array(repeating: 0, count: 70_000), on: reference)
            }
            #expect(manager.notificationStatistics(of: reference)?.received == 0)
            let tooLong = [
                LocalService(service) {
                    LocalCharacteristic(sensor, properties: [.read], value: Array(repeating: 0, count: 600))
                }
            ]
            #expect(throws: BluetoothError.valueTooLong(600, during: "serving \(sensor)")) {
                _ = try PeripheralManager(bus: fixture.bus.bus, adapter: "hci1", services: tooLong)
            }
            let longDescriptor = [
                LocalService(service) {
                    LocalCharacteristic(
                        sensor, properties: [.read], descriptors: [.userDescription(String(repeating: "x", count: 513))]
                    )
                }
            ]
            #expect(throws: BluetoothError.valueTooLong(513, during: "serving 2901 of \(sensor)")) {
                _ = try PeripheralManager(bus: fixture.bus.bus, adapter: "hci1", services: longDescriptor)
            }
        }
    }

    @Test func onTheBusPathReadinessFollowsTheListeners() async throws {
        try await withFixture(PeripheralFixture(services: services(), notificationTransport: .bus)) { fixture in
            let served = try await fixture.serve()
            let peripheral = try await fixture.connect()
            let reference = CharacteristicReference(sensor)
            let ready = TestSubscriber(fixture.manager.isReadyToSend(reference))
            let notifications = TestSubscriber(peripheral.listen(to: reference, transport: .bus))
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true] }
            notifications.cancel()
            try await ready.wait(timeout: Patience.step) { $0.values == [false, true, false] }
            let unknown = TestSubscriber(fixture.manager.isReadyToSend(CharacteristicReference(uuid(0x7F))))
            #expect(unknown.failure()?.kind == .attributeNotFound)
            withExtendedLifetime(served) {}
        }
    }

    @Test func aCallFromAnotherConnectionIsRefused() async throws {
        try await withFixture(PeripheralFixture(services: services())) { fixture in
            let served = try await fixture.serve()
            let writes = RequestLog(fixture.manager.writes(to: CharacteristicReference(control))) { _ in .success(()) }
            let intruder = try DBusConnection(bus: fixture.bus.bus, loop: fixture.thread.loop)
            let root = fixture.manager.core.root.rawValue
            for (path, member, arguments) in [
                ("\(root)/service0/char2", "WriteValue", [DBusValue.bytes([1]), .stringVariantDictionary([:])]),
                ("\(root)/service0/char0", "ReadValue", [.stringVariantDictionary([:])]),
                ("\(root)/service0/char0", "StartNotify", []),
            ] {
                do {
                    _ = try await intruder.call(
                        destination: fixture.manager.connection.uniqueName, path: DBusObjectPath(path),
                        interface: "org.bluez.GattCharacteristic1", member: member, arguments: arguments
                    ).values.first { _ in true }
                    Issue.record("\(member) from another connection was answered")
                } catch let DBusError.remote(name, _) {
                    #expect(name == "org.freedesktop.DBus.Error.AccessDenied")
                }
            }
            #expect(writes.all.isEmpty)
            #expect(fixture.manager.core.characteristics[0].subscribed.value == false)
            intruder.close()
            withExtendedLifetime(served) {}
        }
    }
}
