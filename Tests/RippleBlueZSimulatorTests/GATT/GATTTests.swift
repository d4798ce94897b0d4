import RippleDBus
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleBlueZSimulator

#if canImport(Glibc)
import Glibc
#endif

private let service = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01/service0001"
private let level = service + "/char0002"  // 0xAAA1: read, write, write-without-response, notify
private let stream = service + "/char0006"  // 0xAAA2: notify, 10,000 numbered notifications
private let writeOnly = service + "/char0009"  // 0xAAA3: write
private let failing = service + "/char000b"  // 0xAAA4: read, answered ATT error 0x80
private let characteristicInterface = "org.bluez.GattCharacteristic1"
private let descriptorInterface = "org.bluez.GattDescriptor1"
private let noOptions = DBusValue.stringVariantDictionary([:])

private func gattWorld() -> SimulatedWorld {
    var peripheral = monitor(known: true)
    peripheral.services = [
        SimulatedService(
            uuid: 0xAAA0,
            characteristics: [
                SimulatedCharacteristic(
                    uuid: 0xAAA1, flags: [.read, .write, .writeWithoutResponse, .notify], value: [1, 2, 3],
                    descriptors: [.userDescription("Level")]),
                SimulatedCharacteristic(
                    uuid: 0xAAA2, flags: [.notify],
                    notificationSource: NotificationSource(count: 10_000, payload: .numbered(size: 20))),
                SimulatedCharacteristic(uuid: 0xAAA3, flags: [.write], value: [9]),
                SimulatedCharacteristic(
                    uuid: 0xAAA4, flags: [.read], onRead: { _ throws(BlueZError) in throw .attError(0x80) }),
            ])
    ]
    return SimulatedWorld(peripherals: [.init(peripheral)])
}

private func connected() async throws -> SimulatorFixture {
    let fixture = try await SimulatorFixture(world: gattWorld())
    try await fixture.connectAndResolve(monitorPath)
    return fixture
}

/// Receives one packet from `fd` (waiting at most 10 s).
private func receive(_ fd: Int32) -> [UInt8]? {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, 10_000) == 1 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 600)
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    return count >= 0 ? Array(buffer.prefix(count)) : nil
}

/// The index of the first number that is not its own index, or nil when all are (0, 1, 2, …).
private func firstOutOfOrder(_ numbers: [UInt32]) -> Int? {
    numbers.indices.first { numbers[$0] != UInt32($0) }
}

private func sequenceNumber(_ bytes: [UInt8]) -> UInt32 {
    bytes.count < 4
        ? UInt32.max : UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
}

@Suite(.timeLimit(.minutes(1))) struct GATTTests {
    @Test func theObjectsHaveBluetoothdsPathsHandlesAndProperties() async throws {
        try await withFixture(connected()) { fixture in
            let tree = try await fixture.managedObjects()
            #expect(
                tree.keys.filter { $0.hasPrefix(service) }.sorted() == [
                    service, level, level + "/desc0004", level + "/desc0005", stream, stream + "/desc0008", writeOnly,
                    failing,
                ])
            let properties = try #require(tree[level]?[characteristicInterface])
            #expect(properties["UUID"] == .string("0000aaa1-0000-1000-8000-00805f9b34fb"))
            #expect(
                properties["Flags"]
                    == .array(.string, ["read", "write-without-response", "write", "notify"].map(DBusValue.string)))
            #expect(properties["Handle"] == .uint16(2))
            #expect(properties["MTU"] == .uint16(247))
            #expect(properties["Notifying"] == .boolean(false))
            #expect(properties["NotifyAcquired"] == .boolean(false))
            #expect(properties["WriteAcquired"] == .boolean(false))
            #expect(properties["Value"] == nil)  // nothing read or notified yet
            #expect(tree[writeOnly]?[characteristicInterface]?["Notifying"] == nil)
            #expect(
                tree[level + "/desc0004"]?[descriptorInterface]?["UUID"]
                    == .string("00002902-0000-1000-8000-00805f9b34fb"))
            #expect(tree[service]?["org.bluez.GattService1"]?["Device"] == .objectPath(try DBusObjectPath(monitorPath)))
        }
    }

    @Test func readsAnswerWithTheValueSignalItAndFailAsBluetoothdDoes() async throws {
        try await withFixture(connected()) { fixture in
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            #expect(
                try await fixture.call(level, characteristicInterface, "ReadValue", [noOptions]) == [.bytes([1, 2, 3])])
            #expect(
                try await fixture.call(level, characteristicInterface, "ReadValue", [noOptions]) == [.bytes([1, 2, 3])])
            // Every read is signalled as a change of Value, even when it did not change (clients see it as a
            // notification when they listen).
            let values = await changes.wait(for: 2).compactMap { $0.propertiesChange?.changed["Value"] }
            #expect(values == [.bytes([1, 2, 3]), .bytes([1, 2, 3])])
            #expect(
                try await fixture.call(
                    level, characteristicInterface, "ReadValue",
                    [.stringVariantDictionary(["offset": .uint16(1)])]) == [.bytes([2, 3])])
            #expect(
                try await fixture.error(
                    level, characteristicInterface, "ReadValue",
                    [.stringVariantDictionary(["offset": .uint16(9)])]) == .invalidArguments("Invalid offset"))
            #expect(
                try await fixture.error(
                    level, characteristicInterface, "ReadValue",
                    [.stringVariantDictionary(["offset": .string("1")])]) == .invalidArguments)
            #expect(
                try await fixture.error(writeOnly, characteristicInterface, "ReadValue", [noOptions])
                    == .notPermitted("Read not permitted"))
            #expect(
                try await fixture.error(failing, characteristicInterface, "ReadValue", [noOptions])
                    == .failed("Operation failed with ATT error: 0x80"))
        }
    }

    @Test func writesStoreAndOneAtATime() async throws {
        try await withFixture(connected()) { fixture in
            _ = try await fixture.call(level, characteristicInterface, "WriteValue", [.bytes([7]), noOptions])
            #expect(try await fixture.simulator.value(of: 0xAAA1, peripheral: monitorAddress) == [7])
            _ = try await fixture.call(
                level, characteristicInterface, "WriteValue",
                [.bytes([8, 9]), .stringVariantDictionary(["type": .string("command")])])
            #expect(try await fixture.simulator.value(of: 0xAAA1, peripheral: monitorAddress) == [8, 9])
            // A Write Command to a characteristic without write-without-response is sent, and ignored by it.
            _ = try await fixture.call(
                writeOnly, characteristicInterface, "WriteValue",
                [.bytes([1]), .stringVariantDictionary(["type": .string("command")])])
            #expect(try await fixture.simulator.value(of: 0xAAA3, peripheral: monitorAddress) == [9])
            #expect(
                try await fixture.error(
                    level, characteristicInterface, "WriteValue",
                    [.bytes([1]), .stringVariantDictionary(["type": .string("sideways")])]) == .notSupported)
            try await fixture.simulator.inject(.delay(.milliseconds(300)), on: .write(0xAAA1), of: monitorAddress)
            // The first write is sent before the second (both leave through the client's loop in order), takes
            // the delay, and is still outstanding when the second arrives.
            let slow = try fixture.send(level, characteristicInterface, "WriteValue", [.bytes([5]), noOptions])
            #expect(
                try await fixture.error(level, characteristicInterface, "WriteValue", [.bytes([6]), noOptions])
                    == .inProgress)
            #expect(try await slow.reply() == [])
            #expect(try await fixture.simulator.value(of: 0xAAA1, peripheral: monitorAddress) == [5])
        }
    }

    @Test func theConfigurationDescriptorRefusesWritesAndShowsTheSessions() async throws {
        try await withFixture(connected()) { fixture in
            let cccd = level + "/desc0004"
            #expect(
                try await fixture.error(cccd, descriptorInterface, "WriteValue", [.bytes([1, 0]), noOptions])
                    == .notPermitted("Write not permitted"))
            #expect(try await fixture.call(cccd, descriptorInterface, "ReadValue", [noOptions]) == [.bytes([0, 0])])
            _ = try await fixture.call(level, characteristicInterface, "StartNotify")
            #expect(try await fixture.call(cccd, descriptorInterface, "ReadValue", [noOptions]) == [.bytes([1, 0])])
            #expect(
                try await fixture.call(level + "/desc0005", descriptorInterface, "ReadValue", [noOptions])
                    == [.bytes(Array("Level".utf8))])
        }
    }

    @Test func notifySessionsArePerClient() async throws {
        try await withFixture(connected()) { fixture in
            let other = try fixture.connectAnotherClient()
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            _ = try await fixture.call(level, characteristicInterface, "StartNotify")
            _ = try await fixture.call(level, characteristicInterface, "StartNotify", on: other)
            // The same client again: no error.
            _ = try await fixture.call(level, characteristicInterface, "StartNotify")
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: [5])
            _ = try await fixture.call(level, characteristicInterface, "StopNotify")
            #expect(
                try await fixture.error(level, characteristicInterface, "StopNotify")
                    == .failed("No notify session started"))
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: [6])
            other.close()  // the last session ends with its client
            let messages = await changes.wait {
                $0.contains { $0.propertiesChange?.changed["Notifying"] == .boolean(false) }
            }
            #expect(
                messages.compactMap { $0.propertiesChange?.changed["Notifying"] } == [.boolean(true), .boolean(false)])
            #expect(messages.compactMap { $0.propertiesChange?.changed["Value"] } == [.bytes([5]), .bytes([6])])
        }
    }

    @Test func acquireNotifyIsExclusiveAndReleasedWhenTheClientCloses() async throws {
        try await withFixture(connected()) { fixture in
            _ = try await fixture.call(level, characteristicInterface, "StartNotify")
            #expect(
                try await fixture.error(level, characteristicInterface, "AcquireNotify", [noOptions]) == .inProgress)
            _ = try await fixture.call(level, characteristicInterface, "StopNotify")
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            let reply = try await fixture.call(level, characteristicInterface, "AcquireNotify", [noOptions])
            #expect(reply.last == .uint16(247))
            let fd = try #require(reply.first?.unixFD?.take())
            #expect(
                try await fixture.error(level, characteristicInterface, "StartNotify")
                    == .notPermitted("Notify acquired"))
            #expect(
                try await fixture.error(level, characteristicInterface, "AcquireNotify", [noOptions])
                    == .notPermitted("Notify acquired"))
            #expect(try await fixture.property(level, characteristicInterface, "NotifyAcquired") == .boolean(true))
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: [4, 2])
            #expect(receive(fd) == [4, 2])
            close(fd)
            let messages = await changes.wait {
                $0.contains { $0.propertiesChange?.changed["NotifyAcquired"] == .boolean(false) }
            }
            // bluetoothd 5.66 signals an acquired socket by NotifyAcquired alone; Notifying stays as it was.
            #expect(
                messages.compactMap { $0.propertiesChange?.changed["NotifyAcquired"] } == [
                    .boolean(true), .boolean(false),
                ])
            #expect(messages.allSatisfy { $0.propertiesChange?.changed["Notifying"] == nil })
            #expect(try await fixture.error(level, characteristicInterface, "StartNotify") == nil)
        }
    }

    /// An ATT notification holds at most MTU − 3 bytes: a longer value arrives cut, over the signal and over an
    /// acquired socket alike, as bluetoothd passes on what the peripheral could send; the peripheral keeps the
    /// whole value.
    @Test func aNotificationLongerThanTheMTUAllowsArrivesCutToMTUMinusThree() async throws {
        try await withFixture(connected()) { fixture in
            let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            _ = try await fixture.call(level, characteristicInterface, "StartNotify")
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: long)
            let messages = await changes.wait { $0.contains { $0.propertiesChange?.changed["Value"] != nil } }
            #expect(messages.compactMap { $0.propertiesChange?.changed["Value"] } == [.bytes(Array(long.prefix(244)))])
            #expect(try await fixture.simulator.value(of: 0xAAA1, peripheral: monitorAddress) == long)
            _ = try await fixture.call(level, characteristicInterface, "StopNotify")

            let reply = try await fixture.call(level, characteristicInterface, "AcquireNotify", [noOptions])
            #expect(reply.last == .uint16(247))
            let fd = try #require(reply.first?.unixFD?.take())
            defer { close(fd) }
            try await fixture.simulator.notify(peripheral: monitorAddress, characteristic: 0xAAA1, value: long)
            #expect(receive(fd) == Array(long.prefix(244)))
        }
    }

    @Test func tenThousandNotificationsArriveInOrderOverBothPaths() async throws {
        try await withFixture(connected()) { fixture in
            let changes = try await fixture.signals("org.freedesktop.DBus.Properties", "PropertiesChanged")
            _ = try await fixture.call(stream, characteristicInterface, "StartNotify")
            // Notifying=true, then the 10,000 values (a count: checking each message as it comes would cost
            // the test quadratic time).
            let signalled = await changes.wait(for: 10_001).compactMap { $0.propertiesChange?.changed["Value"]?.bytes }
            #expect(signalled.count == 10_000)
            #expect(firstOutOfOrder(signalled.map(sequenceNumber)) == nil)
            #expect(signalled.allSatisfy { $0.count == 20 })
            _ = try await fixture.call(stream, characteristicInterface, "StopNotify")

            let reply = try await fixture.call(stream, characteristicInterface, "AcquireNotify", [noOptions])
            let fd = try #require(reply.first?.unixFD?.take())
            var received: [UInt32] = []
            while received.count < 10_000, let packet = receive(fd) {
                received.append(sequenceNumber(packet))
            }
            close(fd)
            #expect(received.count == 10_000)
            #expect(firstOutOfOrder(received) == nil)
            let statistics = fixture.simulator.statistics.snapshot
            #expect(statistics.signalNotifications == 10_000)
            #expect(statistics.socketNotifications == 10_000)
            #expect(statistics.emitterCPUNanoseconds > 0)
        }
    }

    @Test func acquireWriteDeliversPacketsAsWriteCommands() async throws {
        try await withFixture(connected()) { fixture in
            let reply = try await fixture.call(level, characteristicInterface, "AcquireWrite", [noOptions])
            let fd = try #require(reply.first?.unixFD?.take())
            #expect(
                try await fixture.error(level, characteristicInterface, "WriteValue", [.bytes([1]), noOptions])
                    == .notPermitted("Write acquired"))
            #expect(
                try await fixture.error(writeOnly, characteristicInterface, "AcquireWrite", [noOptions])
                    == .notSupported)
            let packet: [UInt8] = [8, 8]
            _ = packet.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            while try await fixture.simulator.value(of: 0xAAA1, peripheral: monitorAddress) != packet {
                await Task.yield()
            }
            close(fd)
        }
    }

    @Test func aLinkDroppedMidReadFailsTheReadAsNotConnected() async throws {
        try await withFixture(connected()) { fixture in
            try await fixture.simulator.inject(.disconnect(.remote), on: .read(0xAAA1), of: monitorAddress)
            #expect(
                try await fixture.error(level, characteristicInterface, "ReadValue", [noOptions])
                    == .failed("Not connected"))
            #expect(try await fixture.property(monitorPath, deviceInterface, "Connected") == .boolean(false))
            #expect(try await fixture.managedObjects()[level] != nil, "the object stays, cached")
        }
    }
}
