import Ripple
import RippleDBus
import RippleLoop

/// One adapter as bluetoothd runs it: its `Adapter1` object, its discovery clients and their filters,
/// and the devices it sees (loop-confined).
final class AdapterRuntime: Sendable {
    let configuration: SimulatedAdapter
    weak let core: SimulatorCore?
    let path: DBusObjectPath
    /// The exported object, while bluetoothd runs.
    nonisolated(unsafe) private(set) var object: DBusExportedObject?
    /// The devices it sees, in the order they were added.
    nonisolated(unsafe) var devices: [SimulatedDevice] = []
    nonisolated(unsafe) private(set) var isPowered: Bool
    /// Clients discovering now, by unique name, with their filters.
    nonisolated(unsafe) private var sessions: [(client: String, filter: DiscoveryFilter?)] = []
    /// Filters set by clients before they start discovering.
    nonisolated(unsafe) private var presetFilters: [String: DiscoveryFilter] = [:]
    /// Its GATT applications and advertisements (`GattManager1`, `LEAdvertisingManager1`).
    nonisolated(unsafe) private(set) var peripheralRole: PeripheralRoleRuntime!
    /// Shuffled order: a change of discovery waits for the controller's answer (the next turn).
    nonisolated(unsafe) private var discoveryUpdateScheduled = false

    init(_ configuration: SimulatedAdapter, core: SimulatorCore) {
        self.configuration = configuration
        self.core = core
        self.path = (try? BlueZInterface.root.appending(configuration.name)) ?? BlueZInterface.root
        self.isPowered = configuration.isPowered
        self.peripheralRole = PeripheralRoleRuntime(adapter: self)
    }

    var isDiscovering: Bool { isPowered && !sessions.isEmpty }

    var mergedFilter: MergedDiscoveryFilter {
        MergedDiscoveryFilter(filters: sessions.map(\.filter))
    }

    var anyClientHasFilter: Bool { sessions.contains { $0.filter != nil } }

    /// The clients discovering now.
    var discoveringClients: [String] { sessions.map(\.client) }

    // MARK: The object

    func export() throws(DBusError) {
        let object = try DBusExportedObject(path: path, interfaces: [makeInterface()] + peripheralRole.interfaces())
        try core?.connection.export(object)
        self.object = object
    }

    /// Forgets everything bluetoothd would lose when it stops.
    func dropSilently() {
        sessions.removeAll()
        presetFilters.removeAll()
        peripheralRole.dropSilently()
        for device in devices { device.dropObjectSilently() }
        object = nil
    }

    private func makeInterface() -> DBusInterface {
        let filterSignature = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        return DBusInterface(
            name: BlueZInterface.adapter,
            methods: [
                DBusMethod(name: "StartDiscovery") { [weak self] call throws(DBusError) in
                    try self?.startDiscovery(client: call.sender ?? "").get()
                    return []
                },
                DBusMethod(name: "StopDiscovery") { [weak self] call throws(DBusError) in
                    try self?.stopDiscovery(client: call.sender ?? "").get()
                    return []
                },
                DBusMethod(name: "SetDiscoveryFilter", inputSignature: filterSignature, inputNames: ["filter"]) {
                    [weak self] call throws(DBusError) in
                    try self?.setDiscoveryFilter(
                        client: call.sender ?? "", call.arguments.first?.stringVariantDictionary ?? [:]
                    ).get()
                    return []
                },
                DBusMethod(
                    name: "GetDiscoveryFilters", outputSignature: DBusSignature(types: [.array(.string)]),
                    outputNames: ["filters"]
                ) { _ in
                    [.array(.string, DiscoveryFilter.keys.map(DBusValue.string))]
                },
                DBusMethod(
                    name: "RemoveDevice", inputSignature: DBusSignature(types: [.objectPath]), inputNames: ["device"]
                ) {
                    [weak self] call throws(DBusError) in
                    try self?.removeDevice(at: call.arguments.first?.objectPath).get()
                    return []
                },
            ],
            properties: [
                DBusProperty(name: "Address", initialValue: .string(configuration.address.description)),
                DBusProperty(name: "AddressType", initialValue: .string("public")),
                DBusProperty(name: "Name", initialValue: .string(configuration.systemName)),
                DBusProperty(name: "Alias", access: .readWrite, initialValue: .string(configuration.systemName)),
                DBusProperty(name: "Class", initialValue: .uint32(0x000000)),
                DBusProperty(name: "Connectable", access: .readWrite, initialValue: .boolean(true)),
                DBusProperty(name: "Powered", access: .readWrite, initialValue: .boolean(isPowered)) {
                    [weak self] value throws(DBusError) in
                    guard let powered = value.boolean, let self else { return }
                    // The remote Set stores the value after this check; the consequences follow on the loop.
                    self.core?.loop.schedule { self.setPowered(powered, storeProperty: false) }
                },
                DBusProperty(name: "PowerState", initialValue: .string(isPowered ? "on" : "off")),
                DBusProperty(name: "Discoverable", access: .readWrite, initialValue: .boolean(false)),
                DBusProperty(name: "DiscoverableTimeout", access: .readWrite, initialValue: .uint32(180)),
                DBusProperty(name: "Pairable", access: .readWrite, initialValue: .boolean(true)),
                DBusProperty(name: "PairableTimeout", access: .readWrite, initialValue: .uint32(0)),
                DBusProperty(name: "Discovering", initialValue: .boolean(false)),
                DBusProperty(
                    name: "UUIDs",
                    initialValue: .array(
                        .string,
                        [
                            .string("00001800-0000-1000-8000-00805f9b34fb"),
                            .string("00001801-0000-1000-8000-00805f9b34fb"),
                        ])),
                DBusProperty(name: "Modalias", initialValue: .string("usb:v1D6Bp0246d0542")),
                DBusProperty(
                    name: "Roles", initialValue: .array(.string, [.string("central"), .string("peripheral")])),
                DBusProperty(name: "ExperimentalFeatures", initialValue: .array(.string, [])),
                DBusProperty(name: "Manufacturer", initialValue: .uint16(0x05F1)),
                DBusProperty(name: "Version", initialValue: .byte(0x0C)),
            ])
    }

    private func set(_ values: [String: DBusValue]) {
        do {
            try object?.updateProperties(of: BlueZInterface.adapter, values)
        } catch {
            core?.report("could not update \(configuration.name): \(error)")
        }
    }

    // MARK: Discovery

    func startDiscovery(client: String) -> Result<Void, DBusError> {
        guard isPowered else { return .failure(BlueZError.notReady.dbusError) }
        guard !sessions.contains(where: { $0.client == client }) else { return .failure(BlueZError.busy.dbusError) }
        let wasDiscovering = isDiscovering
        sessions.append((client, presetFilters.removeValue(forKey: client)))
        core?.watchClient(client)
        discoveryChanged(wasDiscovering: wasDiscovering)
        return .success(())
    }

    func stopDiscovery(client: String) -> Result<Void, DBusError> {
        guard isPowered else { return .failure(BlueZError.notReady.dbusError) }
        guard let index = sessions.firstIndex(where: { $0.client == client }) else {
            return .failure(BlueZError.failed("No discovery started").dbusError)
        }
        let wasDiscovering = isDiscovering
        sessions.remove(at: index)
        discoveryChanged(wasDiscovering: wasDiscovering)
        return .success(())
    }

    func setDiscoveryFilter(client: String, _ dictionary: [String: DBusValue]) -> Result<Void, DBusError> {
        guard isPowered else { return .failure(BlueZError.notReady.dbusError) }
        let filter: DiscoveryFilter?
        do {
            filter = try DiscoveryFilter.parse(dictionary)
        } catch {
            return .failure(error.dbusError)
        }
        if let index = sessions.firstIndex(where: { $0.client == client }) {
            sessions[index].filter = filter
            for device in devices { device.updateAdvertising() }
        } else if let filter {
            presetFilters[client] = filter
            core?.watchClient(client)
        } else {
            presetFilters[client] = nil
        }
        return .success(())
    }

    /// The client left the bus: its discovery session and filter go.
    func clientVanished(_ client: String) {
        peripheralRole.clientVanished(client)
        presetFilters[client] = nil
        guard let index = sessions.firstIndex(where: { $0.client == client }) else { return }
        let wasDiscovering = isDiscovering
        sessions.remove(at: index)
        discoveryChanged(wasDiscovering: wasDiscovering)
    }

    private func discoveryChanged(wasDiscovering: Bool) {
        if let outbox = core?.outbox {
            // Shuffled, as bluetoothd: StartDiscovery and StopDiscovery are answered once the controller
            // has switched, and `Discovering` changes after the answer (adapter.c start_discovery_complete,
            // stop_discovery_complete); devices are reported from then on.
            guard !discoveryUpdateScheduled else { return }
            discoveryUpdateScheduled = true
            outbox.after(turns: 1) { [weak self] in
                guard let self else { return }
                self.discoveryUpdateScheduled = false
                let announced = self.object?.property("Discovering", of: BlueZInterface.adapter) == .boolean(true)
                self.applyDiscoveryChange(wasDiscovering: announced)
            }
            return
        }
        applyDiscoveryChange(wasDiscovering: wasDiscovering)
    }

    private func applyDiscoveryChange(wasDiscovering: Bool) {
        if isDiscovering != wasDiscovering {
            set(["Discovering": .boolean(isDiscovering)])
            if !isDiscovering {
                for device in devices { device.discoveryStopped() }
            }
        }
        for device in devices { device.updateAdvertising() }
    }

    /// A connection attempt started or ended (bluetoothd pauses advertisement reports meanwhile; the
    /// simulator only keeps the connected devices from advertising).
    func connectionAttemptChanged() {
        for device in devices { device.updateAdvertising() }
    }

    func removeDevice(at path: DBusObjectPath?) -> Result<Void, DBusError> {
        guard let path, let device = devices.first(where: { $0.object != nil && $0.path == path }) else {
            return .failure(BlueZError.doesNotExist.dbusError)
        }
        guard isPowered else { return .failure(BlueZError.notReady.dbusError) }
        device.isPaired = false
        device.hasConnected = false
        device.removeObject()
        return .success(())
    }

    // MARK: Power

    /// Powers the adapter on or off: off ends discovery (`Discovering` false) and drops every connection
    /// (reason "local"); bluetoothd then refuses discovery and connections with `NotReady`.
    func setPowered(_ powered: Bool, storeProperty: Bool = true) {
        guard powered != isPowered else {
            if storeProperty { set(["Powered": .boolean(powered)]) }
            return
        }
        let wasDiscovering = isDiscovering
        isPowered = powered
        if !powered {
            for device in devices {
                if case .connecting = device.linkState {
                    device.finishConnecting(with: .failed("le-connection-abort-by-local"))
                }
                if device.isConnected { device.tearDown(reason: .local) }
            }
            sessions.removeAll()
        }
        var values: [String: DBusValue] = ["PowerState": .string(powered ? "on" : "off")]
        if storeProperty { values["Powered"] = .boolean(powered) }
        set(values)
        discoveryChanged(wasDiscovering: wasDiscovering)
        peripheralRole.poweredChanged()
    }
}
