import RippleDBus

// bluetoothd's bus name and root path, as the simulator uses them.
extension BlueZInterface {
    static let service = serviceName
    static let root: DBusObjectPath = (try? DBusObjectPath(rootPath)) ?? .root
}

extension SimulatedPeripheral {
    /// `ManufacturerData` as bluetoothd shows it (`a{qv}` of byte arrays).
    var manufacturerDataValue: DBusValue {
        .dictionary(
            key: .uint16, value: .variant,
            manufacturerData.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .uint16($0.key), value: .variant(.bytes($0.value)))
            })
    }

    /// `ServiceData` as bluetoothd shows it (`a{sv}` of byte arrays by UUID).
    var serviceDataValue: DBusValue {
        .dictionary(
            key: .string, value: .variant,
            serviceData.sorted { $0.key.uuidString < $1.key.uuidString }.map {
                DBusDictionaryEntry(key: .string($0.key.uuidString), value: .variant(.bytes($0.value)))
            })
    }

    /// The alias bluetoothd shows before anyone sets one: the name, else the address with dashes.
    var defaultAlias: String {
        name ?? String(address.description.map { $0 == ":" ? "-" : $0 })
    }
}

/// The `org.bluez.Device1` interface of a device, its methods calling into `device` (held weakly).
func makeDeviceInterface(
    for peripheral: SimulatedPeripheral, adapterPath: DBusObjectPath, paired: Bool,
    device: SimulatedDevice
) -> DBusInterface {
    let uuids = DBusValue.array(.string, peripheral.advertisedServices.map { .string($0.uuidString) })
    var properties: [DBusProperty] = [
        DBusProperty(name: "Address", initialValue: .string(peripheral.address.description)),
        DBusProperty(name: "AddressType", initialValue: .string(peripheral.addressType.rawValue)),
        DBusProperty(name: "Alias", access: .readWrite, initialValue: .string(peripheral.defaultAlias)),
        DBusProperty(name: "Paired", initialValue: .boolean(paired)),
        DBusProperty(name: "Bonded", initialValue: .boolean(paired)),
        DBusProperty(name: "Trusted", access: .readWrite, initialValue: .boolean(paired)),
        DBusProperty(name: "Blocked", access: .readWrite, initialValue: .boolean(false)),
        DBusProperty(name: "LegacyPairing", initialValue: .boolean(false)),
        DBusProperty(name: "Connected", initialValue: .boolean(false)),
        DBusProperty(name: "UUIDs", initialValue: uuids),
        DBusProperty(name: "Adapter", initialValue: .objectPath(adapterPath)),
        DBusProperty(name: "ServicesResolved", initialValue: .boolean(false)),
        DBusProperty(absent: "RSSI", type: .int16),
        DBusProperty(absent: "TxPower", type: .int16),
        DBusProperty(absent: "AdvertisingFlags", type: .array(.byte)),
        DBusProperty(absent: "Modalias", type: .string),
    ]
    properties.append(
        peripheral.name.map { DBusProperty(name: "Name", initialValue: .string($0)) }
            ?? DBusProperty(absent: "Name", type: .string))
    properties.append(
        peripheral.appearance.map { DBusProperty(name: "Appearance", initialValue: .uint16($0)) }
            ?? DBusProperty(absent: "Appearance", type: .uint16))
    properties.append(
        peripheral.manufacturerData.isEmpty
            ? DBusProperty(absent: "ManufacturerData", type: .dictionary(key: .uint16, value: .variant))
            : DBusProperty(name: "ManufacturerData", initialValue: peripheral.manufacturerDataValue))
    properties.append(
        peripheral.serviceData.isEmpty
            ? DBusProperty(absent: "ServiceData", type: .dictionary(key: .string, value: .variant))
            : DBusProperty(name: "ServiceData", initialValue: peripheral.serviceDataValue))
    return DBusInterface(
        name: BlueZInterface.device,
        methods: [
            DBusMethod(name: "Connect") { [weak device] invocation in
                device?.connect(invocation) ?? SimulatedDevice.gone(invocation)
            },
            DBusMethod(name: "Disconnect") { [weak device] invocation in
                device?.disconnect(invocation) ?? SimulatedDevice.gone(invocation)
            },
            DBusMethod(name: "ConnectProfile", inputSignature: DBusSignature(types: [.string]), inputNames: ["UUID"]) {
                _ throws(DBusError) in throw BlueZError.notSupported.dbusError
            },
            DBusMethod(name: "DisconnectProfile", inputSignature: DBusSignature(types: [.string]), inputNames: ["UUID"])
            {
                _ throws(DBusError) in throw BlueZError.notSupported.dbusError
            },
            DBusMethod(name: "Pair") { [weak device] invocation in
                device?.pair(invocation) ?? SimulatedDevice.gone(invocation)
            },
            DBusMethod(name: "CancelPairing") { [weak device] _ throws(DBusError) in
                guard let device else { throw BlueZError.doesNotExist.dbusError }
                try device.cancelPairing()
                return []
            },
        ],
        properties: properties,
        signals: [
            DBusSignalDeclaration(
                name: "Disconnected", signature: DBusSignature(types: [.string, .string]),
                argumentNames: ["name", "message"])
        ])
}
