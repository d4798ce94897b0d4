import RippleDBus

/// One advertisement of a peripheral seen during discovery, with what bluetoothd knows of it then.
public struct PeripheralDiscovery: Sendable, Hashable, CustomStringConvertible {
    /// The peripheral, to connect to.
    public var peripheral: Peripheral
    /// The identifier to store and connect to later: the peripheral's address.
    public var identifier: BluetoothAddress { peripheral.address }
    /// The peripheral's Bluetooth address.
    public var address: BluetoothAddress { peripheral.address }
    /// `public` or `random`.
    public var addressType: BluetoothAddressType?
    /// Its name (advertised, or known from before).
    public var name: String?
    /// The signal strength of this advertisement, in dBm.
    public var rssi: Int?
    /// The advertised transmit power, in dBm.
    public var txPower: Int?
    /// Manufacturer-specific data by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// The advertised (and, once connected, resolved) service UUIDs.
    public var serviceUUIDs: [BluetoothUUID]

    /// "Ripple HRM (C0:FF:EE:00:00:01) -55 dBm".
    public var description: String {
        "\(name ?? "unnamed") (\(address))" + (rssi.map { " \($0) dBm" } ?? "")
    }

    /// Creates a discovery from its parts: for mock discoveries that feed a pipeline in tests, or for
    /// discoveries a program builds from what it stored.
    /// - Parameters:
    ///   - peripheral: The peripheral seen (from ``Central/knownPeripherals`` or an earlier discovery).
    ///   - addressType: `public` or `random`, if known.
    ///   - name: Its name, if any.
    ///   - rssi: The signal strength of the advertisement, in dBm.
    ///   - txPower: The advertised transmit power, in dBm.
    ///   - manufacturerData: Manufacturer-specific data by company identifier.
    ///   - serviceData: Service data by service UUID.
    ///   - serviceUUIDs: The advertised service UUIDs.
    public init(
        peripheral: Peripheral, addressType: BluetoothAddressType? = nil, name: String? = nil, rssi: Int? = nil,
        txPower: Int? = nil, manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [BluetoothUUID: [UInt8]] = [:],
        serviceUUIDs: [BluetoothUUID] = []
    ) {
        self.peripheral = peripheral
        self.addressType = addressType
        self.name = name
        self.rssi = rssi
        self.txPower = txPower
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.serviceUUIDs = serviceUUIDs
    }

    init(peripheral: Peripheral, properties: [String: DBusValue]) {
        self.peripheral = peripheral
        addressType = properties["AddressType"]?.string.flatMap(BluetoothAddressType.init(rawValue:))
        name = properties["Name"]?.string ?? properties["Alias"]?.string
        rssi = properties["RSSI"]?.int16.map(Int.init)
        txPower = properties["TxPower"]?.int16.map(Int.init)
        var manufacturer: [UInt16: [UInt8]] = [:]
        for entry in properties["ManufacturerData"]?.dictionaryEntries ?? [] {
            if let id = entry.key.uint16, let bytes = entry.value.unwrappingVariants.bytes { manufacturer[id] = bytes }
        }
        manufacturerData = manufacturer
        var services: [BluetoothUUID: [UInt8]] = [:]
        for entry in properties["ServiceData"]?.dictionaryEntries ?? [] {
            if let key = entry.key.string, let uuid = BluetoothUUID(uuidString: key),
                let bytes = entry.value.unwrappingVariants.bytes
            {
                services[uuid] = bytes
            }
        }
        serviceData = services
        serviceUUIDs = (properties["UUIDs"]?.arrayElements ?? []).compactMap {
            $0.string.flatMap(BluetoothUUID.init(uuidString:))
        }
    }
}
