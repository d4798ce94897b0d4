import Ripple
import RippleDBus
import RippleLoop

/// The GATT database of an adapter that serves GATT applications, as another adapter (the observer)
/// sees it: bluetoothd's `GattService1`, `GattCharacteristic1` and `GattDescriptor1` objects below the
/// device path, whose operations go to the applications over the bus as bluetoothd 5.66 sends them
/// (loop-confined).
///
/// - `ReadValue` calls the application's `ReadValue` with the options `device`, `link`, `mtu` (and
///   `offset` when not 0); its answer or error comes back as bluetoothd maps it to an ATT error
///   (`org.bluez.Error.Failed` with a message "0x80"…"0x9f" is that application error, else 0x80;
///   `NotSupported` 0x06, `NotAuthorized` 0x08, `InvalidValueLength` 0x0D, `InvalidOffset` 0x07,
///   `NotPermitted` the read or write refusal; any other 0x0E).
/// - `WriteValue` of a characteristic without `write-without-response` waits for the application's
///   answer; with it, bluetoothd answers at once and calls the application without expecting a reply.
/// - `StartNotify`/`StopNotify` are sessions per client; the first session of the link enables the
///   application's notifications, the last one's end disables them; each `Value` the application then
///   changes is notified to the sessions.
///
/// The objects stay when the link ends (bluetoothd's cache, sessions kept) until the applications change.
final class ForwardedGATT: PeripheralGATT {
    final class Characteristic: Sendable {
        let source: ApplicationDatabase.Characteristic
        let owner: String
        let handle: UInt16
        let descriptors: [(source: ApplicationDatabase.Descriptor, handle: UInt16)]
        nonisolated(unsafe) var object: DBusExportedObject?
        nonisolated(unsafe) var descriptorObjects: [DBusExportedObject] = []
        /// Clients with a `StartNotify` session, in order.
        nonisolated(unsafe) var sessions: [String] = []
        nonisolated(unsafe) var value: [UInt8] = []
        nonisolated(unsafe) var notifyingWaiters: [@Sendable () -> Void] = []

        init(
            source: ApplicationDatabase.Characteristic, owner: String, handle: UInt16,
            descriptors: [(ApplicationDatabase.Descriptor, UInt16)]
        ) {
            self.source = source
            self.owner = owner
            self.handle = handle
            self.descriptors = descriptors.map { (source: $0.0, handle: $0.1) }
        }
    }

    private struct Service {
        let uuid: BluetoothUUID
        let isPrimary: Bool
        let handle: UInt16
        let characteristics: [Characteristic]
    }

    unowned let role: PeripheralRoleRuntime
    unowned let observer: AdapterRuntime
    /// The device this database belongs to (set once, after both are made).
    nonisolated(unsafe) weak var device: SimulatedDevice?
    nonisolated(unsafe) private var services: [Service] = []
    nonisolated(unsafe) private var serviceObjects: [DBusExportedObject] = []
    /// The applications' generation the exported objects show; nil when nothing is exported.
    nonisolated(unsafe) private var exportedGeneration: Int?
    nonisolated(unsafe) private(set) var link: PeripheralLink?
    /// Operations forwarded to the applications and not answered yet, answered "Not connected" when the
    /// link ends.
    nonisolated(unsafe) private var pending: [Int: DBusMethodInvocation] = [:]
    nonisolated(unsafe) private var nextPending = 0
    nonisolated(unsafe) var batteryLevelNotified: (UInt8) -> Void = { _ in }

    init(role: PeripheralRoleRuntime, observer: AdapterRuntime) {
        self.role = role
        self.observer = observer
    }

    private var characteristics: [Characteristic] { services.flatMap(\.characteristics) }

    /// The services of the applications now, with handles in bluetoothd's order.
    private func build() -> [Service] {
        var handle = 1
        var built: [Service] = []
        for application in role.applications {
            for service in application.services {
                let serviceHandle = handle
                handle += 1
                var characteristics: [Characteristic] = []
                for characteristic in service.characteristics {
                    let declaration = handle
                    handle += 2
                    var descriptors: [(ApplicationDatabase.Descriptor, UInt16)] = []
                    for descriptor in characteristic.descriptors {
                        descriptors.append((descriptor, UInt16(clamping: handle)))
                        handle += 1
                    }
                    characteristics.append(
                        Characteristic(
                            source: characteristic, owner: application.owner, handle: UInt16(clamping: declaration),
                            descriptors: descriptors))
                }
                built.append(
                    Service(
                        uuid: service.uuid, isPrimary: service.isPrimary, handle: UInt16(clamping: serviceHandle),
                        characteristics: characteristics))
            }
        }
        return built
    }

    // MARK: PeripheralGATT

    var hasCachedObjects: Bool { exportedGeneration == role.generation }

    var serviceUUIDs: [BluetoothUUID] {
        role.applications.flatMap(\.services).filter(\.isPrimary).map(\.uuid)
    }

    var batteryLevel: UInt8? { nil }

    func attach(_ link: PeripheralLink) throws(SimulatorError) {
        if self.link != nil { detach() }
        if exportedGeneration != nil, exportedGeneration != role.generation { removeObjects() }
        self.link = link
        role.centralConnected(observer, gatt: self)
        if exportedGeneration != nil {
            for characteristic in characteristics where !characteristic.sessions.isEmpty {
                role.setSubscribed(
                    true, gatt: self, owner: characteristic.owner, path: characteristic.source.path)
            }
            return
        }
        services = build()
        exportedGeneration = role.generation
        do {
            try export(on: link)
        } catch {
            removeObjects()
            throw .bus(error)
        }
    }

    private func export(on link: PeripheralLink) throws(DBusError) {
        for service in services {
            let path = try link.devicePath.appending(handleComponent("service", service.handle))
            let object = try DBusExportedObject(
                path: path,
                interfaces: [
                    DBusInterface(
                        name: GATTInterface.service,
                        properties: [
                            DBusProperty(name: "UUID", initialValue: .string(service.uuid.uuidString)),
                            DBusProperty(name: "Primary", initialValue: .boolean(service.isPrimary)),
                            DBusProperty(name: "Device", initialValue: .objectPath(link.devicePath)),
                            DBusProperty(name: "Includes", initialValue: .array(.objectPath, [])),
                            DBusProperty(name: "Handle", initialValue: .uint16(service.handle)),
                        ])
                ])
            try link.connection.export(object)
            serviceObjects.append(object)
            for characteristic in service.characteristics {
                try export(
                    characteristic, at: path.appending(handleComponent("char", characteristic.handle)), service: path,
                    link: link)
            }
        }
    }

    private func export(
        _ characteristic: Characteristic, at path: DBusObjectPath, service: DBusObjectPath, link: PeripheralLink
    ) throws(DBusError) {
        let flags = characteristic.source.flags
        var properties: [DBusProperty] = [
            DBusProperty(name: "UUID", initialValue: .string(characteristic.source.uuid.uuidString)),
            DBusProperty(name: "Service", initialValue: .objectPath(service)),
            DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
            DBusProperty(name: "Flags", initialValue: .array(.string, flags.bluezNames.map(DBusValue.string))),
            DBusProperty(name: "Handle", initialValue: .uint16(characteristic.handle)),
            DBusProperty(name: "MTU", initialValue: .uint16(UInt16(clamping: link.mtu))),
        ]
        if flags.canNotify { properties.append(DBusProperty(name: "Notifying", initialValue: .boolean(false))) }
        let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        let object = try DBusExportedObject(
            path: path,
            interfaces: [
                DBusInterface(
                    name: GATTInterface.characteristic,
                    methods: [
                        DBusMethod(
                            name: "ReadValue", inputSignature: options,
                            outputSignature: DBusSignature(types: [.array(.byte)]), inputNames: ["options"],
                            outputNames: ["value"]
                        ) { [weak self, weak characteristic] invocation in
                            guard let self, let characteristic else { return Self.notConnected(invocation) }
                            read(characteristic, invocation)
                        },
                        DBusMethod(
                            name: "WriteValue",
                            inputSignature: DBusSignature(types: [
                                .array(.byte), .dictionary(key: .string, value: .variant),
                            ]),
                            inputNames: ["value", "options"]
                        ) { [weak self, weak characteristic] invocation in
                            guard let self, let characteristic else { return Self.notConnected(invocation) }
                            write(characteristic, invocation)
                        },
                        DBusMethod(name: "StartNotify") { [weak self, weak characteristic] invocation in
                            guard let self, let characteristic else { return Self.notConnected(invocation) }
                            startNotify(characteristic, invocation)
                        },
                        DBusMethod(name: "StopNotify") { [weak self, weak characteristic] invocation in
                            guard let self, let characteristic else { return Self.notConnected(invocation) }
                            stopNotify(characteristic, invocation)
                        },
                    ],
                    properties: properties)
            ])
        try link.connection.export(object)
        characteristic.object = object
        for descriptor in characteristic.descriptors {
            let descriptorPath = try path.appending(handleComponent("desc", descriptor.handle))
            let descriptorObject = try DBusExportedObject(
                path: descriptorPath,
                interfaces: [
                    DBusInterface(
                        name: GATTInterface.descriptor,
                        methods: [
                            DBusMethod(
                                name: "ReadValue", inputSignature: options,
                                outputSignature: DBusSignature(types: [.array(.byte)]), inputNames: ["options"],
                                outputNames: ["value"]
                            ) { [weak self] invocation in
                                guard let self else { return Self.notConnected(invocation) }
                                forwardRead(
                                    invocation, owner: characteristic.owner, path: descriptor.source.path,
                                    interface: GATTInterface.descriptor, object: nil)
                            },
                            DBusMethod(
                                name: "WriteValue",
                                inputSignature: DBusSignature(types: [
                                    .array(.byte), .dictionary(key: .string, value: .variant),
                                ]),
                                inputNames: ["value", "options"]
                            ) { [weak self] invocation in
                                guard let self else { return Self.notConnected(invocation) }
                                forwardWrite(
                                    invocation, owner: characteristic.owner, path: descriptor.source.path,
                                    interface: GATTInterface.descriptor, waitsForAnswer: true)
                            },
                        ],
                        properties: [
                            DBusProperty(name: "UUID", initialValue: .string(descriptor.source.uuid.uuidString)),
                            DBusProperty(name: "Characteristic", initialValue: .objectPath(path)),
                            DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
                            DBusProperty(name: "Handle", initialValue: .uint16(descriptor.handle)),
                        ])
                ])
            try link.connection.export(descriptorObject)
            characteristic.descriptorObjects.append(descriptorObject)
        }
    }

    func detach() {
        guard link != nil else { return }
        let waiting = pending.values
        pending.removeAll()
        for invocation in waiting { Self.notConnected(invocation) }
        for characteristic in characteristics where !characteristic.sessions.isEmpty {
            role.setSubscribed(false, gatt: self, owner: characteristic.owner, path: characteristic.source.path)
        }
        link = nil
        role.centralDisconnected(observer)
    }

    func removeObjects() {
        detach()
        guard exportedGeneration != nil, let connection = role.core?.connection else {
            exportedGeneration = nil
            return
        }
        for characteristic in characteristics {
            for object in characteristic.descriptorObjects { connection.unexport(object.path) }
            if let object = characteristic.object { connection.unexport(object.path) }
            characteristic.object = nil
            characteristic.descriptorObjects = []
            characteristic.sessions = []
        }
        for object in serviceObjects { connection.unexport(object.path) }
        serviceObjects = []
        services = []
        exportedGeneration = nil
    }

    /// The applications changed: while connected the objects are exported again at once (a Service
    /// Changed indication); while not, the next connection finds the change.
    func databaseChanged() {
        guard let link else { return }
        removeObjects()
        do {
            try attach(link)
        } catch {
            link.dropLink(.local)
        }
    }

    func notify(_ characteristic: BluetoothUUID, value: [UInt8]) throws(SimulatorError) {
        guard let node = characteristics.first(where: { $0.source.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        deliver(value, to: node)
    }

    func whenNotifying(_ characteristic: BluetoothUUID, _ action: @escaping @Sendable () -> Void) throws(SimulatorError)
    {
        guard let node = characteristics.first(where: { $0.source.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        if node.sessions.isEmpty { node.notifyingWaiters.append(action) } else { action() }
    }

    func replace(with services: [SimulatedService], rediscovery: Duration?) throws(SimulatorError) {
        throw .invalidWorld("the database of an adapter serving GATT applications is theirs: it cannot be replaced")
    }

    func clientVanished(_ uniqueName: String) {
        for characteristic in characteristics where characteristic.sessions.contains(uniqueName) {
            endSession(of: uniqueName, on: characteristic)
        }
    }

    func value(of attribute: BluetoothUUID) -> [UInt8]? {
        characteristics.first { $0.source.uuid == attribute }?.value
    }

    // MARK: Operations

    private func read(_ characteristic: Characteristic, _ invocation: DBusMethodInvocation) {
        guard characteristic.source.flags.contains(.read) else { return fail(invocation, .attError(0x02)) }
        forwardRead(
            invocation, owner: characteristic.owner, path: characteristic.source.path,
            interface: GATTInterface.characteristic, object: characteristic)
    }

    private func forwardRead(
        _ invocation: DBusMethodInvocation, owner: String, path: DBusObjectPath, interface: String,
        object characteristic: Characteristic?
    ) {
        guard let link else { return Self.notConnected(invocation) }
        let options: GATTOptions
        do { options = try GATTOptions(invocation.call.arguments.first) } catch { return fail(invocation, error) }
        let key = remember(invocation)
        role.forward(
            to: owner, path: path, interface: interface, member: "ReadValue",
            arguments: [role.options(for: observer, mtu: link.mtu, offset: options.offset)]
        ) { [weak self] result in
            guard let self, pending.removeValue(forKey: key) != nil else { return }
            switch result {
            case .success(let values):
                guard let bytes = values.first?.bytes else { return fail(invocation, .attError(0x06)) }
                if let characteristic, let object = characteristic.object {
                    characteristic.value = bytes
                    emitValueChanged(object, interface: GATTInterface.characteristic, value: bytes)
                }
                _ = invocation.reply([.bytes(bytes)])
            case .failure(let error):
                fail(invocation, .attError(Self.attCode(of: error, refusal: 0x02)))
            }
        }
    }

    private func write(_ characteristic: Characteristic, _ invocation: DBusMethodInvocation) {
        let flags = characteristic.source.flags
        let options: GATTOptions
        do {
            options = try GATTOptions(invocation.call.arguments.count > 1 ? invocation.call.arguments[1] : nil)
        } catch { return fail(invocation, error) }
        let command = options.type == "command" || (options.type == nil && !flags.contains(.write))
        if command {
            guard flags.contains(.writeWithoutResponse) else { return fail(invocation, .notSupported) }
        } else {
            guard flags.contains(.write) else { return fail(invocation, .attError(0x03)) }
        }
        forwardWrite(
            invocation, owner: characteristic.owner, path: characteristic.source.path,
            interface: GATTInterface.characteristic, waitsForAnswer: !flags.contains(.writeWithoutResponse))
    }

    /// Forwards a write; bluetoothd 5.66 waits for the application's answer only for a characteristic
    /// without `write-without-response` (and for descriptors), else answers at once.
    private func forwardWrite(
        _ invocation: DBusMethodInvocation, owner: String, path: DBusObjectPath, interface: String,
        waitsForAnswer: Bool
    ) {
        guard let link else { return Self.notConnected(invocation) }
        let arguments = invocation.call.arguments
        guard let bytes = arguments.first?.bytes else { return fail(invocation, .invalidArguments) }
        let options: GATTOptions
        do { options = try GATTOptions(arguments.count > 1 ? arguments[1] : nil) } catch {
            return fail(invocation, error)
        }
        let forwarded: [DBusValue] = [
            .bytes(bytes), role.options(for: observer, mtu: link.mtu, offset: options.offset),
        ]
        guard waitsForAnswer else {
            _ = invocation.reply()
            role.send(to: owner, path: path, interface: interface, member: "WriteValue", arguments: forwarded)
            return
        }
        let key = remember(invocation)
        role.forward(to: owner, path: path, interface: interface, member: "WriteValue", arguments: forwarded) {
            [weak self] result in
            guard let self, pending.removeValue(forKey: key) != nil else { return }
            switch result {
            case .success: _ = invocation.reply()
            case .failure(let error): fail(invocation, .attError(Self.attCode(of: error, refusal: 0x03)))
            }
        }
    }

    private func startNotify(_ characteristic: Characteristic, _ invocation: DBusMethodInvocation) {
        guard characteristic.source.flags.canNotify else { return fail(invocation, .notSupported) }
        let client = invocation.call.sender ?? ""
        guard !characteristic.sessions.contains(client) else {
            _ = invocation.reply()
            return
        }
        characteristic.sessions.append(client)
        if characteristic.sessions.count == 1 {
            if link != nil {
                role.setSubscribed(true, gatt: self, owner: characteristic.owner, path: characteristic.source.path)
            }
            _ = try? characteristic.object?.setProperty(
                "Notifying", of: GATTInterface.characteristic, to: .boolean(true))
            let waiters = characteristic.notifyingWaiters
            characteristic.notifyingWaiters = []
            for waiter in waiters { waiter() }
        }
        _ = invocation.reply()
    }

    private func stopNotify(_ characteristic: Characteristic, _ invocation: DBusMethodInvocation) {
        let client = invocation.call.sender ?? ""
        guard characteristic.sessions.contains(client) else {
            return fail(invocation, .failed("No notify session started"))
        }
        endSession(of: client, on: characteristic)
        _ = invocation.reply()
    }

    private func endSession(of client: String, on characteristic: Characteristic) {
        characteristic.sessions.removeAll { $0 == client }
        guard characteristic.sessions.isEmpty else { return }
        if link != nil {
            role.setSubscribed(false, gatt: self, owner: characteristic.owner, path: characteristic.source.path)
        }
        _ = try? characteristic.object?.setProperty("Notifying", of: GATTInterface.characteristic, to: .boolean(false))
    }

    /// The application changed the `Value` of its characteristic at `path`: a notification to this link.
    func applicationNotified(path: DBusObjectPath, value: [UInt8]) {
        guard let node = characteristics.first(where: { $0.source.path == path }) else { return }
        deliver(value, to: node)
    }

    private func deliver(_ value: [UInt8], to characteristic: Characteristic) {
        characteristic.value = value
        guard let link, !characteristic.sessions.isEmpty, let object = characteristic.object else { return }
        emitValueChanged(object, interface: GATTInterface.characteristic, value: value)
        link.statistics.recordSignalNotifications(1)
    }

    // MARK: Helpers

    private func remember(_ invocation: DBusMethodInvocation) -> Int {
        let key = nextPending
        nextPending += 1
        pending[key] = invocation
        return key
    }

    /// The ATT error bluetoothd 5.66 answers for an application's D-Bus error (`refusal`: the read or
    /// write "not permitted" code).
    static func attCode(of error: DBusError, refusal: UInt8) -> UInt8 {
        guard case .remote(let name, let message) = error else { return 0x0E }
        switch name {
        case "org.bluez.Error.Failed":
            // bluetoothd reads the message as a number (strtol): 0x80…0x9f is that application error,
            // another number is "unlikely", no number at all is 0x80.
            let hex = message.hasPrefix("0x") || message.hasPrefix("0X")
            guard let code = hex ? Int(message.dropFirst(2), radix: 16) : Int(message) else { return 0x80 }
            return (0x80...0x9F).contains(code) ? UInt8(code) : 0x0E
        case "org.bluez.Error.NotSupported": return 0x06
        case "org.bluez.Error.NotAuthorized": return 0x08
        case "org.bluez.Error.InvalidValueLength": return 0x0D
        case "org.bluez.Error.InvalidOffset": return 0x07
        case "org.bluez.Error.InProgress": return 0xFE
        case "org.bluez.Error.NotPermitted": return refusal
        default: return 0x0E
        }
    }

    static func notConnected(_ invocation: DBusMethodInvocation) {
        _ = invocation.fail(BlueZError.failed("Not connected").dbusError)
    }

    private func fail(_ invocation: DBusMethodInvocation, _ error: BlueZError) {
        _ = invocation.fail(error.dbusError)
    }
}
