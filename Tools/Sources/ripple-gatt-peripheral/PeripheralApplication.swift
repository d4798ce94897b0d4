import Ripple
import RippleDBus
import RippleLoop
import RippleSimulatorServing
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How the stream characteristic notifies.
struct StreamSettings: Sendable {
    /// Notifications per second.
    var rate: Double
    /// Notifications per subscription (0: no end).
    var count: Int
    /// Payload size in bytes (at least 12).
    var size: Int
}

/// The peripheral's GATT application and advertisement as exported D-Bus objects, and their registration
/// with bluetoothd.
final class PeripheralApplication: Sendable {
    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    static let streamService = "52495054-0000-4000-8000-0000000000b0"
    static let streamCharacteristic = "52495054-0000-4000-8000-0000000000b1"
    static let echoCharacteristic = "52495054-0000-4000-8000-0000000000b3"

    let connection: DBusConnection
    let adapterPath: DBusObjectPath
    let root: DBusObjectPath
    let advertisementPath: DBusObjectPath
    private let characteristics: [NotifyingCharacteristic]
    /// The re-advertising timer and the watch on bluetoothd's bus name.
    private let subscriptions = Mutex<[AnyCancellable]>([])
    /// Whether the application is registered with the running bluetoothd: until it is again after a
    /// restart, the timer does not advertise (a central would connect and find none of its services).
    private let registered = Atomic<Bool>(false)

    /// Builds and exports the objects (nothing is registered with bluetoothd yet).
    init(connection: DBusConnection, adapter: String, name: String, stream: StreamSettings) throws(DBusError) {
        self.connection = connection
        adapterPath = try DBusObjectPath("/org/bluez/\(adapter)")
        root = try DBusObjectPath("/org/ripple/peripheral")
        advertisementPath = try DBusObjectPath("/org/ripple/peripheral/advertisement0")
        let loop = connection.loop
        // Heart Rate Measurement: flags 0 (8-bit value), 60…90 bpm, four a second.
        let measurement = NotifyingCharacteristic(loop: loop, interval: .milliseconds(250), count: nil) { sequence in
            [0x00, UInt8(60 + sequence % 31)]
        }
        let perTick = max(1, Int((stream.rate / 1000).rounded(.up)))
        let streamInterval = Duration.nanoseconds(Int64(1e9 / stream.rate) * Int64(perTick))
        let size = stream.size
        let numbered = NotifyingCharacteristic(
            loop: loop, interval: streamInterval, perTick: perTick, count: stream.count == 0 ? nil : stream.count
        ) { sequence in
            Self.timestampedPayload(sequence: UInt32(truncatingIfNeeded: sequence), size: size)
        }
        characteristics = [measurement, numbered]

        var objects: [DBusExportedObject] = []
        func service(_ index: Int, uuid: String) throws(DBusError) -> DBusObjectPath {
            let path = try DBusObjectPath("\(root.rawValue)/service\(index)")
            objects.append(
                try DBusExportedObject(
                    path: path,
                    interfaces: [
                        DBusInterface(
                            name: Self.gattService,
                            properties: [
                                DBusProperty(name: "UUID", initialValue: .string(uuid)),
                                DBusProperty(name: "Primary", initialValue: .boolean(true)),
                            ])
                    ]))
            return path
        }
        func characteristic(
            _ service: DBusObjectPath, _ index: Int, uuid: String, flags: [String], value: [UInt8],
            notifier: NotifyingCharacteristic? = nil
        ) throws(DBusError) {
            let path = try DBusObjectPath("\(service.rawValue)/char\(index)")
            let object = try DBusExportedObject(
                path: path,
                interfaces: [
                    Self.characteristicInterface(
                        uuid: uuid, service: service, flags: flags, value: value, notifier: notifier)
                ])
            notifier?.attach(object)
            objects.append(object)
        }
        let heartRateService = try service(0, uuid: "0000180d-0000-1000-8000-00805f9b34fb")
        try characteristic(
            heartRateService, 0, uuid: "00002a37-0000-1000-8000-00805f9b34fb", flags: ["notify"], value: [0x00, 60],
            notifier: measurement)
        try characteristic(
            heartRateService, 1, uuid: "00002a38-0000-1000-8000-00805f9b34fb", flags: ["read"], value: [0x01])
        try characteristic(
            heartRateService, 2, uuid: "00002a39-0000-1000-8000-00805f9b34fb", flags: ["write"], value: [])
        let batteryService = try service(1, uuid: "0000180f-0000-1000-8000-00805f9b34fb")
        try characteristic(
            batteryService, 0, uuid: "00002a19-0000-1000-8000-00805f9b34fb", flags: ["read"], value: [87])
        let stream = try service(2, uuid: Self.streamService)
        try characteristic(stream, 0, uuid: Self.streamCharacteristic, flags: ["notify"], value: [], notifier: numbered)
        try characteristic(
            stream, 1, uuid: Self.echoCharacteristic, flags: ["read", "write", "write-without-response"], value: [0])

        let advertisement = try DBusExportedObject(
            path: advertisementPath,
            interfaces: [
                DBusInterface(
                    name: Self.advertisementInterface,
                    methods: [DBusMethod(name: "Release") { _ throws(DBusError) in [] }],
                    properties: [
                        DBusProperty(name: "Type", initialValue: .string("peripheral")),
                        DBusProperty(name: "LocalName", initialValue: .string(name)),
                        DBusProperty(
                            name: "ServiceUUIDs",
                            initialValue: .array(
                                .string,
                                [
                                    .string("0000180d-0000-1000-8000-00805f9b34fb"), .string(Self.streamService),
                                ])),
                    ])
            ])
        try connection.exportObjectManager(at: root)
        for object in objects { try connection.export(object) }
        try connection.export(advertisement)
    }

    /// `GattCharacteristic1` with a stored `Value`: reads answer it, writes replace it, and
    /// `StartNotify`/`StopNotify` drive `notifier` (its values go out as `Value` changes).
    private static func characteristicInterface(
        uuid: String, service: DBusObjectPath, flags: [String], value: [UInt8], notifier: NotifyingCharacteristic?
    ) -> DBusInterface {
        let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        var properties = [
            DBusProperty(name: "UUID", initialValue: .string(uuid)),
            DBusProperty(name: "Service", initialValue: .objectPath(service)),
            DBusProperty(name: "Flags", initialValue: .array(.string, flags.map(DBusValue.string))),
            DBusProperty(name: "Value", initialValue: .bytes(value)),
        ]
        if notifier != nil { properties.append(DBusProperty(name: "Notifying", initialValue: .boolean(false))) }
        return DBusInterface(
            name: gattCharacteristic,
            methods: [
                DBusMethod(
                    name: "ReadValue", inputSignature: options, outputSignature: DBusSignature(types: [.array(.byte)])
                ) {
                    call throws(DBusError) in
                    [call.object.property("Value", of: gattCharacteristic) ?? .bytes([])]
                },
                DBusMethod(
                    name: "WriteValue",
                    inputSignature: DBusSignature(types: [.array(.byte), .dictionary(key: .string, value: .variant)])
                ) { call throws(DBusError) in
                    guard let bytes = call.message.body.first?.bytes else {
                        throw .remote(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments")
                    }
                    try call.object.setProperty("Value", of: gattCharacteristic, to: .bytes(bytes))
                    return []
                },
                DBusMethod(name: "StartNotify") { call throws(DBusError) in
                    notifier?.start()
                    return []
                },
                DBusMethod(name: "StopNotify") { call throws(DBusError) in
                    notifier?.stop()
                    return []
                },
            ],
            properties: properties)
    }

    /// `size` bytes: `sequence` (little-endian `UInt32`), the `CLOCK_MONOTONIC` time in nanoseconds
    /// (little-endian `UInt64`), then `0xA5` — the simulator's `timestamped` layout.
    static func timestampedPayload(sequence: UInt32, size: Int) -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        var bytes = [UInt8](repeating: 0xA5, count: max(size, 12))
        for index in 0..<4 { bytes[index] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(index))) }
        for index in 0..<8 { bytes[4 + index] = UInt8(truncatingIfNeeded: nanoseconds >> (8 * UInt64(index))) }
        return bytes
    }

    /// Registers the application and the advertisement with bluetoothd, and registers the advertisement
    /// again every `seconds` (0: never). A bluetoothd that restarts forgets both: when `org.bluez` has a new
    /// owner, every notifier stops and both are registered again.
    func register(readvertisingEvery seconds: Double) async throws(DBusError) {
        try await registerWithBluetoothd()
        let application = self
        let restarts = connection.nameOwner(of: "org.bluez").dropFirst().sink(
            receiveCompletion: { _ in },
            receiveValue: { owner in
                application.registered.store(false, ordering: .sequentiallyConsistent)
                for characteristic in application.characteristics { characteristic.stop() }
                guard owner != nil else { return }
                Task { await application.registerAfterRestart() }
            })
        let timer =
            seconds > 0
            ? AnyCancellable(
                connection.loop.every(.milliseconds(Int64(seconds * 1000))) {
                    Task { await application.readvertise() }
                })
            : nil
        subscriptions.withLock { $0 = [restarts] + (timer.map { [$0] } ?? []) }
    }

    /// Registers with a bluetoothd that has just started: its adapter objects come a moment after its
    /// name, so an attempt that finds no adapter is made again every 250 ms, for up to 30 seconds.
    private func registerAfterRestart() async {
        var lastError: DBusError?
        for _ in 0..<120 {
            do {
                try await registerWithBluetoothd()
                Output.line("bluetoothd restarted: registered again")
                return
            } catch {
                lastError = error
                guard case .remote(let name, _) = error, name == "org.freedesktop.DBus.Error.UnknownObject" else {
                    break
                }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        Output.error("bluetoothd restarted, registering again failed: \(lastError.map { "\($0)" } ?? "?")")
    }

    /// `RegisterApplication` and `RegisterAdvertisement` on the adapter.
    private func registerWithBluetoothd() async throws(DBusError) {
        let empty = DBusValue.dictionary(key: .string, value: .variant, [])
        do {
            _ = try await call("org.bluez.GattManager1", "RegisterApplication", [.objectPath(root), empty])
        } catch let error where error.remoteName == "org.bluez.Error.AlreadyExists" {
            // Registered by an earlier attempt whose advertisement failed.
        }
        try await registerAdvertisement()
        registered.store(true, ordering: .sequentiallyConsistent)
    }

    private func registerAdvertisement() async throws(DBusError) {
        let empty = DBusValue.dictionary(key: .string, value: .variant, [])
        _ = try await call(
            "org.bluez.LEAdvertisingManager1", "RegisterAdvertisement", [.objectPath(advertisementPath), empty])
    }

    /// Stops advertising and registers again (a failure is reported, and the next round tries again).
    private func readvertise() async {
        guard registered.load(ordering: .sequentiallyConsistent) else { return }
        _ = try? await call(
            "org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", [.objectPath(advertisementPath)])
        try? await registerAdvertisement()
    }

    /// Unregisters the advertisement and the application; stops every notifier.
    func unregister() async {
        registered.store(false, ordering: .sequentiallyConsistent)
        let cancelled = subscriptions.withLock { subscriptions in
            defer { subscriptions = [] }
            return subscriptions
        }
        for subscription in cancelled { subscription.cancel() }
        for characteristic in characteristics { characteristic.stop() }
        _ = try? await call(
            "org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", [.objectPath(advertisementPath)])
        _ = try? await call("org.bluez.GattManager1", "UnregisterApplication", [.objectPath(root)])
        connection.close()
    }

    private func call(_ interface: String, _ member: String, _ arguments: [DBusValue]) async throws(DBusError)
        -> DBusMessage
    {
        let publisher = connection.call(
            destination: "org.bluez", path: adapterPath, interface: interface, member: member, arguments: arguments)
        do {
            for try await reply in publisher.values { return reply }
        } catch let error as DBusError {
            throw error
        } catch {
            throw .disconnected
        }
        throw .disconnected
    }
}
