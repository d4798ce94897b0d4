import Foundation
import Ripple
import RippleBlueZ
import RippleDBus
import Testing

/// Whether the tests run inside `Scripts/bluez-guest` (which sets `RIPPLE_BLUEZ_GUEST=1`).
enum BlueZGuest {
    static var isHere: Bool { ProcessInfo.processInfo.environment["RIPPLE_BLUEZ_GUEST"] == "1" }
}

/// The central against real bluetoothd: run inside `Scripts/bluez-guest` (User-Mode Linux, two virtual
/// controllers, bluetoothd 5.66), with `ripple-gatt-peripheral` serving on hci1 and the central on hci0.
/// Skipped anywhere else (`RIPPLE_BLUEZ_GUEST` is unset).
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: BlueZGuest.isHere, "needs Scripts/bluez-guest"))
struct RealBlueZTests {
    static let streamService = BluetoothUUID(high: 0x5249_5054_0000_4000, low: 0x8000_0000_0000_00B0)
    static let stream = CharacteristicReference(BluetoothUUID(high: 0x5249_5054_0000_4000, low: 0x8000_0000_0000_00B1))
    static let echo = CharacteristicReference(BluetoothUUID(high: 0x5249_5054_0000_4000, low: 0x8000_0000_0000_00B3))

    /// A central on hci0 of the guest's system bus, ready.
    static func central() async throws -> Central {
        let central = try Central(bus: .system, adapter: "hci0")
        try await central.waitUntilReady()
        return central
    }

    /// The guest's peripheral, as discovered by `central`.
    static func discover(_ central: Central) async throws -> PeripheralDiscovery {
        let found = central.startDiscovery(filter: .services([streamService])).first()
            .timeout(.seconds(20), scheduler: central.loop) { BluetoothError(.timeout, "the peripheral was not seen") }
        for try await discovery in found.values { return discovery }
        throw BluetoothError(.peripheralNotFound, "discovery ended without the peripheral")
    }

    /// The guest's peripheral, discovered and connected.
    static func connected(_ central: Central) async throws -> Peripheral {
        let discovery = try await discover(central)
        return try await central.connect(address: discovery.address)
    }

    /// The sequence numbers of `count` notifications of the stream characteristic.
    static func sequenceNumbers(of peripheral: Peripheral, count: Int, transport: NotificationTransport) async throws -> [UInt32] {
        // collect(count) emits at the count-th value; prefix(count) would (as in Combine) finish only when
        // one more value came, and the peripheral sends exactly `count`.
        let values = peripheral.listen(to: stream, transport: transport).collect(count).first()
        var collected: [[UInt8]] = []
        for try await batch in values.values { collected = batch }
        return collected.map { bytes in
            bytes.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
    }

    @Test func theCentralSeesBothAdaptersPoweredAndUsesHci0() async throws {
        let central = try await Self.central()
        defer { central.close() }
        #expect(central.currentState == .poweredOn)
        #expect(central.adapters.map(\.name) == ["hci0", "hci1"])
        #expect(central.adapters.filter { !$0.isPowered }.isEmpty)
        #expect(central.adapter?.name == "hci0")
    }

    @Test func discoveryFindsThePeripheralWithItsNameAndServices() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let discovery = try await Self.discover(central)
        #expect(discovery.name == "Ripple Guest")
        #expect(discovery.serviceUUIDs.contains(.heartRate))
        #expect(discovery.serviceUUIDs.contains(Self.streamService))
    }

    @Test func connectingGivesTheWholeGATTTree() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        let services = Dictionary(peripheral.services.map { ($0.uuid, $0.characteristics) }, uniquingKeysWith: { $1 })
        #expect(services[.heartRate]?.map(\.uuid) == [.heartRateMeasurement, .bodySensorLocation, .heartRateControlPoint])
        #expect(services[.heartRate]?.first?.flags == ["notify"])
        #expect(services[BluetoothUUID(0x180F)]?.map(\.uuid) == [.batteryLevel])
        #expect(services[Self.streamService]?.map(\.uuid) == [Self.stream.uuid, Self.echo.uuid])
        try await peripheral.disconnect()
    }

    @Test func readsAndWritesWithAndWithoutResponse() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        #expect(try await peripheral.readValue(.bodySensorLocation) == [0x01])
        #expect(try await peripheral.readValue(.batteryLevel, as: BatteryLevel.self).percent == 87)
        try await peripheral.writeValue([0x12, 0x34], to: Self.echo, type: .withResponse)
        #expect(try await peripheral.readValue(Self.echo) == [0x12, 0x34])
        try await peripheral.writeValue([0x56], to: Self.echo, type: .withoutResponse)
        // A command has no answer: the read that follows it on the same link sees it.
        #expect(try await peripheral.readValue(Self.echo) == [0x56])
        try await peripheral.disconnect()
    }

    @Test(arguments: [NotificationTransport.bus, .automatic])
    func aThousandNotificationsArriveInOrderAtFiveHundredPerSecond(transport: NotificationTransport) async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        let sequence = try await Self.sequenceNumbers(of: peripheral, count: 1_000, transport: transport)
        #expect(sequence == Array(0..<1_000))
        try await peripheral.disconnect()
    }

    @Test func twoSubscribersOfOneCharacteristicShareItsNotifications() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        // Two listeners of one characteristic share one bluetoothd session: both see the same stream,
        // each from when it joined, every number in order.
        async let first = Self.sequenceNumbers(of: peripheral, count: 200, transport: .automatic)
        async let second = Self.sequenceNumbers(of: peripheral, count: 200, transport: .automatic)
        let (a, b) = try await (first, second)
        for numbers in [a, b] {
            #expect(numbers.count == 200)
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 })
        }
        #expect(Set(a).intersection(b).count >= 100)
        try await peripheral.disconnect()
    }

    @Test func disconnectingEndsTheListenersAndIsAnEvent() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        let events = central.connectionEvents.compactMap { event -> String? in
            if case .disconnected = event { return "disconnected" }
            return nil
        }.first()
        async let disconnected = Self.firstString(events)
        let listening = peripheral.listen(to: .heartRateMeasurement)
        async let ending = Self.completion(of: listening)
        try await Task.sleep(for: .milliseconds(500))
        try await peripheral.disconnect()
        #expect(await disconnected == "disconnected")
        #expect(await ending?.kind == .notConnected)
        #expect(!peripheral.isConnected)
    }

    @Test func aDisconnectionFromThePeripheralSideIsAnEventAndEndsTheListeners() async throws {
        let central = try await Self.central()
        defer { central.close() }
        let peripheral = try await Self.connected(central)
        let centralAddress = try #require(central.adapters.first { $0.name == "hci0" }?.address)
        let events = central.connectionEvents.compactMap { event -> String? in
            if case let .disconnected(_, reason) = event { return "\(reason)" }
            return nil
        }.first()
        async let disconnected = Self.firstString(events)
        let listening = peripheral.listen(to: .heartRateMeasurement)
        async let ending = Self.completion(of: listening)
        try await Task.sleep(for: .milliseconds(500))
        // The peripheral's side of the link is bluetoothd's device object for the central under hci1.
        let remote = try DBusObjectPath("/org/bluez/hci1/dev_" + centralAddress.replacingOccurrences(of: ":", with: "_"))
        for try await _ in central.connection.call(
            destination: "org.bluez", path: remote, interface: "org.bluez.Device1", member: "Disconnect"
        ).values { break }
        #expect(await disconnected != nil)
        #expect(await ending?.kind == .notConnected)
        #expect(!peripheral.isConnected)
    }

    static func firstString<P: Publisher>(_ publisher: P) async -> String? where P.Output == String, P.Failure == Never {
        for await value in publisher.values { return value }
        return nil
    }

    static func completion<P: Publisher>(of publisher: P) async -> BluetoothError? where P.Failure == BluetoothError {
        do {
            for try await _ in publisher.values {}
        } catch let error as BluetoothError {
            return error
        } catch {}
        return nil
    }
}
