import Ripple
import RippleDBus
import RippleLoop

/// The peripheral role of one simulated adapter, as bluetoothd serves it: `GattManager1` (the GATT
/// applications registered on the adapter) and `LEAdvertisingManager1` (its advertisements), and the
/// adapter as the other simulated adapters see it — a peripheral at the adapter's address, in range while
/// it advertises, whose GATT database forwards every operation to the applications over the bus
/// (loop-confined).
///
/// Applications and advertisements belong to the connection that registered them: they go when it
/// leaves the bus or when bluetoothd stops. While the adapter is powered off nothing advertises and every
/// link to it is down; registrations stay and advertise again when it is powered on.
final class PeripheralRoleRuntime: Sendable {
    static let gattManager = "org.bluez.GattManager1"
    static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    static let advertisementInterface = "org.bluez.LEAdvertisement1"
    /// How many advertisements the simulated controller runs at once (`SupportedInstances`).
    static let supportedInstances = 4

    unowned let adapter: AdapterRuntime
    /// The registered applications, in registration order.
    nonisolated(unsafe) private(set) var applications: [ApplicationDatabase] = []
    /// The registered advertisements, in registration order.
    nonisolated(unsafe) private var advertisements: [(owner: String, path: DBusObjectPath, data: AdvertisementData)] =
        []
    /// Incremented whenever the set of applications changes (the database the adapter serves).
    nonisolated(unsafe) private(set) var generation = 0
    /// The adapter as each other adapter sees it, by observing adapter name.
    nonisolated(unsafe) private var observedAs: [String: SimulatedDevice] = [:]
    /// For each application characteristic with notifications enabled, the links that enabled them.
    nonisolated(unsafe) private var subscribers: [DBusObjectPath: Set<ObjectIdentifier>] = [:]
    /// The sockets applications handed over for their notifications (`AcquireNotify`), by characteristic.
    nonisolated(unsafe) private var notifySockets: [DBusObjectPath: AcquiredSocket] = [:]
    /// Calls to applications under way, and watches of their signals, by key.
    nonisolated(unsafe) private var calls: [Int: AnyCancellable] = [:]
    nonisolated(unsafe) private var nextCall = 0
    nonisolated(unsafe) private var valueWatches: [String: AnyCancellable] = [:]
    /// The `Device1` objects, below this adapter, of the centrals connected to it.
    nonisolated(unsafe) private var centrals: [String: (object: DBusExportedObject, gatt: ForwardedGATT)] = [:]

    init(adapter: AdapterRuntime) {
        self.adapter = adapter
    }

    var core: SimulatorCore? { adapter.core }

    // MARK: Interfaces

    /// `GattManager1` and `LEAdvertisingManager1`, for the adapter's object.
    func interfaces() -> [DBusInterface] {
        let options = DBusType.dictionary(key: .string, value: .variant)
        return [
            DBusInterface(
                name: Self.gattManager,
                methods: [
                    DBusMethod(
                        name: "RegisterApplication", inputSignature: DBusSignature(types: [.objectPath, options]),
                        inputNames: ["application", "options"]
                    ) { [weak self] invocation in
                        guard let self else { return SimulatedDevice.gone(invocation) }
                        registerApplication(invocation)
                    },
                    DBusMethod(
                        name: "UnregisterApplication", inputSignature: DBusSignature(types: [.objectPath]),
                        inputNames: ["application"]
                    ) { [weak self] call throws(DBusError) in
                        try self?.unregisterApplication(
                            owner: call.sender ?? "", root: call.arguments.first?.objectPath
                        )
                        .get()
                        return []
                    },
                ]),
            DBusInterface(
                name: Self.advertisingManager,
                methods: [
                    DBusMethod(
                        name: "RegisterAdvertisement", inputSignature: DBusSignature(types: [.objectPath, options]),
                        inputNames: ["advertisement", "options"]
                    ) { [weak self] invocation in
                        guard let self else { return SimulatedDevice.gone(invocation) }
                        registerAdvertisement(invocation)
                    },
                    DBusMethod(
                        name: "UnregisterAdvertisement", inputSignature: DBusSignature(types: [.objectPath]),
                        inputNames: ["service"]
                    ) { [weak self] call throws(DBusError) in
                        try self?.unregisterAdvertisement(
                            owner: call.sender ?? "", path: call.arguments.first?.objectPath
                        ).get()
                        return []
                    },
                ],
                properties: [
                    DBusProperty(name: "ActiveInstances", initialValue: .byte(0)),
                    DBusProperty(name: "SupportedInstances", initialValue: .byte(UInt8(Self.supportedInstances))),
                    DBusProperty(
                        name: "SupportedIncludes",
                        initialValue: .array(.string, AdvertisementData.supportedIncludes.map(DBusValue.string))),
                    DBusProperty(name: "SupportedSecondaryChannels", initialValue: .array(.string, [])),
                    DBusProperty(name: "SupportedFeatures", initialValue: .array(.string, [])),
                ]),
        ]
    }

    // MARK: Applications

    private func registerApplication(_ invocation: DBusMethodInvocation) {
        guard let core, let owner = invocation.call.sender, let root = invocation.call.arguments.first?.objectPath
        else { return fail(invocation, .invalidArguments) }
        guard !applications.contains(where: { $0.owner == owner && $0.root == root }) else {
            return fail(invocation, .alreadyExists)
        }
        // bluetoothd reads the application's objects, then answers.
        forward(
            to: owner, path: root, interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects",
            arguments: []
        ) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure:
                fail(invocation, .failed("Failed to read the application"))
            case .success(let values):
                guard let objects = values.first else {
                    return fail(invocation, .failed("Failed to read the application"))
                }
                let database: ApplicationDatabase
                do throws(BlueZError) {
                    database = try ApplicationDatabase(owner: owner, root: root, managedObjects: objects)
                } catch {
                    return fail(invocation, error)
                }
                guard !applications.contains(where: { $0.owner == owner && $0.root == root }) else {
                    return fail(invocation, .alreadyExists)
                }
                applications.append(database)
                watchValues(of: owner)
                _ = invocation.reply()
                databaseChanged()
            }
        }
        core.watchClient(owner)
    }

    func unregisterApplication(owner: String, root: DBusObjectPath?) -> Result<Void, DBusError> {
        guard let index = applications.firstIndex(where: { $0.owner == owner && $0.root == root }) else {
            return .failure(BlueZError.doesNotExist.dbusError)
        }
        let removed = applications.remove(at: index)
        forgetSubscriptions(of: removed)
        databaseChanged()
        return .success(())
    }

    /// Every characteristic of the applications, with the application that answers for it.
    var characteristics: [(owner: String, characteristic: ApplicationDatabase.Characteristic)] {
        applications.flatMap { application in
            application.services.flatMap(\.characteristics).map { (application.owner, $0) }
        }
    }

    /// The applications changed: every observing adapter's view follows.
    private func databaseChanged() {
        generation += 1
        updateObservers()
        for device in observedAs.values {
            (device.gatt as? ForwardedGATT)?.databaseChanged()
        }
    }

    // MARK: Advertisements

    private func registerAdvertisement(_ invocation: DBusMethodInvocation) {
        guard let core, let owner = invocation.call.sender, let path = invocation.call.arguments.first?.objectPath
        else {
            return fail(invocation, .invalidArguments)
        }
        guard !advertisements.contains(where: { $0.owner == owner && $0.path == path }) else {
            return fail(invocation, .alreadyExists)
        }
        forward(
            to: owner, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
            arguments: [.string(Self.advertisementInterface)]
        ) { [weak self] result in
            guard let self else { return }
            guard case .success(let values) = result, let properties = values.first?.stringVariantDictionary else {
                return fail(invocation, .failed("Failed to register advertisement"))
            }
            let data: AdvertisementData
            do throws(BlueZError) { data = try AdvertisementData(properties) } catch { return fail(invocation, error) }
            guard !advertisements.contains(where: { $0.owner == owner && $0.path == path }) else {
                return fail(invocation, .alreadyExists)
            }
            guard advertisements.count < Self.supportedInstances else {
                return fail(invocation, .notPermitted("Maximum advertisements reached"))
            }
            advertisements.append((owner, path, data))
            _ = invocation.reply()
            advertisementsChanged()
        }
        core.watchClient(owner)
    }

    func unregisterAdvertisement(owner: String, path: DBusObjectPath?) -> Result<Void, DBusError> {
        guard let index = advertisements.firstIndex(where: { $0.owner == owner && $0.path == path }) else {
            return .failure(BlueZError.doesNotExist.dbusError)
        }
        advertisements.remove(at: index)
        advertisementsChanged()
        return .success(())
    }

    private func advertisementsChanged() {
        _ = try? adapter.object?.setProperty(
            "ActiveInstances", of: Self.advertisingManager, to: .byte(UInt8(clamping: advertisements.count)))
        updateObservers()
    }

    /// What the other adapters see of this one: the latest connectable advertisement (else the latest).
    private var peripheral: SimulatedPeripheral {
        let advertisement = advertisements.last { $0.data.type == "peripheral" }?.data ?? advertisements.last?.data
        let configuration = adapter.configuration
        var name = advertisement?.localName
        if name == nil, advertisement?.includes.contains("local-name") == true { name = configuration.systemName }
        return SimulatedPeripheral(
            address: configuration.address, name: name, appearance: advertisement?.appearance,
            txPower: advertisement?.txPower ?? (advertisement?.includes.contains("tx-power") == true ? 0 : nil),
            manufacturerData: advertisement?.manufacturerData ?? [:], serviceData: advertisement?.serviceData ?? [:],
            advertisedServices: advertisement?.serviceUUIDs ?? [],
            isConnectable: advertisement?.type == "peripheral" || advertisement == nil,
            isInRange: adapter.isPowered && !advertisements.isEmpty)
    }

    /// Creates, updates or removes this adapter's device on every other adapter.
    private func updateObservers() {
        guard let core else { return }
        let active = !applications.isEmpty || !advertisements.isEmpty
        let description = peripheral
        for observer in core.adapters where observer !== adapter {
            let name = observer.configuration.name
            if !active {
                if let device = observedAs.removeValue(forKey: name) { remove(device) }
                continue
            }
            if let device = observedAs[name] {
                let previous = device.peripheral
                device.peripheral = description
                device.advertisementChanged(previous: previous)
                device.isInRange = description.isInRange
                if core.isServing { device.updateAdvertising() }
                continue
            }
            let gatt = ForwardedGATT(role: self, observer: observer)
            let device = SimulatedDevice(peripheral: description, adapter: observer, gatt: gatt)
            gatt.device = device
            observer.devices.append(device)
            observedAs[name] = device
            if core.isServing { device.updateAdvertising() }
        }
    }

    private func remove(_ device: SimulatedDevice) {
        device.removeObject()
        device.isInRange = false
        device.updateAdvertising()
        device.adapter.devices.removeAll { $0 === device }
    }

    // MARK: Power, clients, bluetoothd's end

    /// The adapter was powered on or off: off drops every link to it and stops its advertising.
    func poweredChanged() {
        if !adapter.isPowered {
            for device in observedAs.values where device.isConnected { device.peripheralDisconnected(reason: .timeout) }
        }
        updateObservers()
    }

    /// The connection `client` left the bus: its applications and advertisements go.
    func clientVanished(_ client: String) {
        valueWatches[client] = nil
        let leaving = applications.filter { $0.owner == client }
        let hadAdvertisements = advertisements.contains { $0.owner == client }
        guard !leaving.isEmpty || hadAdvertisements else { return }
        applications.removeAll { $0.owner == client }
        advertisements.removeAll { $0.owner == client }
        for application in leaving { forgetSubscriptions(of: application) }
        if hadAdvertisements { advertisementsChanged() }
        if !leaving.isEmpty { databaseChanged() }
    }

    /// bluetoothd stops: every registration is forgotten and this adapter's devices leave the other
    /// adapters without a signal (the tree goes with bluetoothd).
    func dropSilently() {
        applications.removeAll()
        advertisements.removeAll()
        subscribers.removeAll()
        for socket in notifySockets.values { socket.close() }
        notifySockets.removeAll()
        calls.removeAll()
        valueWatches.removeAll()
        centrals.removeAll()
        for device in observedAs.values {
            if let object = device.object { core?.connection.unexport(object.path) }
            device.dropObjectSilently()
            device.adapter.devices.removeAll { $0 === device }
        }
        observedAs.removeAll()
    }

    // MARK: Forwarding

    /// Calls `member` of `interface` on the application object `path` of `owner`; `completion` gets the
    /// reply's arguments or the error, on the loop thread (not after bluetoothd stops).
    func forward(
        to owner: String, path: DBusObjectPath, interface: String, member: String, arguments: [DBusValue],
        completion: @escaping @Sendable (Result<[DBusValue], DBusError>) -> Void
    ) {
        guard let connection = core?.connection else { return completion(.failure(.disconnected)) }
        let key = nextCall
        nextCall += 1
        let subscription = connection.call(
            destination: owner, path: path, interface: interface, member: member, arguments: arguments
        ).sink(
            receiveCompletion: { [weak self] outcome in
                self?.calls[key] = nil
                if case .failure(let error) = outcome { completion(.failure(error)) }
            },
            receiveValue: { reply in completion(.success(reply.body)) })
        calls[key] = subscription
    }

    /// Calls `member` on the application object without waiting for an answer (a no-reply call, as
    /// bluetoothd sends write commands).
    func send(to owner: String, path: DBusObjectPath, interface: String, member: String, arguments: [DBusValue]) {
        guard let connection = core?.connection,
            var message = try? DBusMessage.methodCall(
                destination: owner, path: path, interface: interface, member: member, body: arguments)
        else { return }
        message.noReplyExpected = true
        try? connection.send(message)
    }

    /// The options bluetoothd passes with a call to the application for `observer`'s link.
    func options(for observer: AdapterRuntime, mtu: Int, offset: Int = 0) -> DBusValue {
        var options: [String: DBusValue] = [
            "device": .objectPath(centralPath(observer)), "link": .string("LE"), "mtu": .uint16(UInt16(clamping: mtu)),
        ]
        if offset != 0 { options["offset"] = .uint16(UInt16(clamping: offset)) }
        return .stringVariantDictionary(options)
    }

    // MARK: Notifications

    /// The link `gatt` enabled or disabled notifications of the application characteristic at `path`:
    /// the first link to enable them starts the application's notifications — `AcquireNotify` when the
    /// application offers it (its packets are then the notifications; `StartNotify` if it refuses), else
    /// `StartNotify` — and the last to disable them stops them (the socket closed, or `StopNotify`).
    func setSubscribed(_ subscribed: Bool, gatt: ForwardedGATT, owner: String, path: DBusObjectPath) {
        var links = subscribers[path] ?? []
        let wasEmpty = links.isEmpty
        if subscribed { links.insert(ObjectIdentifier(gatt)) } else { links.remove(ObjectIdentifier(gatt)) }
        subscribers[path] = links.isEmpty ? nil : links
        let interface = GATTInterface.characteristic
        if wasEmpty, !links.isEmpty {
            let acquires = applications.first { $0.owner == owner }?.characteristic(at: path)?.acquiresNotify == true
            guard acquires, let link = gatt.link else {
                return forward(to: owner, path: path, interface: interface, member: "StartNotify", arguments: []) { _ in
                }
            }
            forward(
                to: owner, path: path, interface: interface, member: "AcquireNotify",
                arguments: [options(for: gatt.observer, mtu: link.mtu)]
            ) { [weak self] result in
                guard let self, subscribers[path] != nil else { return }
                guard case .success(let values) = result, let descriptor = values.first?.unixFD,
                    let socket = AcquiredSocket.adopting(descriptor), let loop = core?.loop
                else {
                    return forward(to: owner, path: path, interface: interface, member: "StartNotify", arguments: []) {
                        _ in
                    }
                }
                notifySockets[path] = socket
                socket.watch(
                    on: loop, packet: { [weak self] bytes in self?.deliver(bytes, from: path) },
                    closed: { [weak self] in self?.notifySockets.removeValue(forKey: path)?.close() })
            }
        } else if !wasEmpty, links.isEmpty {
            if let socket = notifySockets.removeValue(forKey: path) {
                socket.close()
            } else {
                forward(to: owner, path: path, interface: interface, member: "StopNotify", arguments: []) { _ in }
            }
        }
    }

    /// A notification of the application characteristic at `path`: to every link that enabled them.
    private func deliver(_ value: [UInt8], from path: DBusObjectPath) {
        guard let links = subscribers[path] else { return }
        for device in observedAs.values {
            guard let gatt = device.gatt as? ForwardedGATT, links.contains(ObjectIdentifier(gatt)) else { continue }
            gatt.applicationNotified(path: path, value: value)
        }
    }

    private func forgetSubscriptions(of application: ApplicationDatabase) {
        for characteristic in application.services.flatMap(\.characteristics) {
            subscribers[characteristic.path] = nil
            notifySockets.removeValue(forKey: characteristic.path)?.close()
        }
    }

    /// Watches `owner`'s `PropertiesChanged`: a new `Value` of one of its characteristics goes out to the
    /// links that enabled notifications.
    private func watchValues(of owner: String) {
        guard valueWatches[owner] == nil, let connection = core?.connection else { return }
        let rule = DBusMatchRule(
            sender: owner, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        valueWatches[owner] = AnyCancellable(
            connection.signals(matching: rule).sink(
                receiveCompletion: { _ in },
                receiveValue: { [weak self] message in
                    // While the application has a socket for them, its `Value` changes notify nothing.
                    guard let self, let path = message.path, message.body.count >= 2, notifySockets[path] == nil,
                        message.body[0].string == GATTInterface.characteristic,
                        let value = message.body[1].stringVariantDictionary?["Value"]?.unwrappingVariants.bytes
                    else { return }
                    deliver(value, from: path)
                }))
    }

    // MARK: Connected centrals

    /// The path, below this adapter, of the device that stands for `observer` when it connects.
    func centralPath(_ observer: AdapterRuntime) -> DBusObjectPath {
        (try? adapter.path.appending(observer.configuration.address.bluezPathComponent)) ?? adapter.path
    }

    /// `observer` connected (its link resolved): its `Device1` object appears below this adapter.
    func centralConnected(_ observer: AdapterRuntime, gatt: ForwardedGATT) {
        guard let core, centrals[observer.configuration.name] == nil else { return }
        let address = observer.configuration.address
        let interface = DBusInterface(
            name: BlueZInterface.device,
            methods: [
                DBusMethod(name: "Disconnect") { [weak gatt] invocation in
                    gatt?.device?.tearDown(reason: .remote)
                    _ = invocation.reply()
                }
            ],
            properties: [
                DBusProperty(name: "Address", initialValue: .string(address.description)),
                DBusProperty(name: "AddressType", initialValue: .string("public")),
                DBusProperty(name: "Name", initialValue: .string(observer.configuration.systemName)),
                DBusProperty(
                    name: "Alias", access: .readWrite, initialValue: .string(observer.configuration.systemName)),
                DBusProperty(name: "Paired", initialValue: .boolean(false)),
                DBusProperty(name: "Bonded", initialValue: .boolean(false)),
                DBusProperty(name: "Trusted", access: .readWrite, initialValue: .boolean(false)),
                DBusProperty(name: "Blocked", access: .readWrite, initialValue: .boolean(false)),
                DBusProperty(name: "LegacyPairing", initialValue: .boolean(false)),
                DBusProperty(name: "Connected", initialValue: .boolean(true)),
                DBusProperty(name: "UUIDs", initialValue: .array(.string, [])),
                DBusProperty(name: "Adapter", initialValue: .objectPath(adapter.path)),
                DBusProperty(name: "ServicesResolved", initialValue: .boolean(false)),
            ])
        do {
            let object = try DBusExportedObject(path: centralPath(observer), interfaces: [interface])
            try core.connection.export(object)
            centrals[observer.configuration.name] = (object, gatt)
        } catch {
            core.report("could not export the central \(address) on \(adapter.configuration.name): \(error)")
        }
    }

    /// `observer`'s link ended: its `Device1` object shows it, then goes.
    func centralDisconnected(_ observer: AdapterRuntime) {
        guard let entry = centrals.removeValue(forKey: observer.configuration.name) else { return }
        _ = try? entry.object.setProperty("Connected", of: BlueZInterface.device, to: .boolean(false))
        core?.connection.unexport(entry.object.path)
    }

    private func fail(_ invocation: DBusMethodInvocation, _ error: BlueZError) {
        _ = invocation.fail(error.dbusError)
    }
}
