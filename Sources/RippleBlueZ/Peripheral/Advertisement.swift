import RippleDBus

/// What this machine advertises while ``PeripheralManager/advertise(_:)`` runs: bluetoothd's
/// `LEAdvertisement1` fields.
///
/// bluetoothd builds the advertising data from them and refuses data that do not fit (31 bytes for a
/// legacy advertisement): keep the local name short, or leave it to the scan response.
public struct Advertisement: Sendable, Hashable {
    /// The advertised local name.
    public var localName: String?
    /// The service UUIDs advertised.
    public var serviceUUIDs: [BluetoothUUID]
    /// Manufacturer-specific data, by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data, by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// The GAP appearance.
    public var appearance: UInt16?
    /// Whether bluetoothd adds the TX power it advertises at (`Includes` "tx-power").
    public var includesTxPower: Bool
    /// The TX power to advertise at, in dBm (needs bluetoothd's `CanSetTxPower` feature).
    public var txPower: Int16?
    /// The advertising interval's bounds, in milliseconds (bluetoothd's `MinInterval`/`MaxInterval`).
    public var interval: ClosedRange<UInt32>?
    /// Whether centrals may connect (a "peripheral" advertisement); false advertises as a broadcaster.
    public var isConnectable: Bool

    /// An advertisement.
    ///
    /// - Parameters:
    ///   - localName: the local name.
    ///   - serviceUUIDs: the services advertised.
    ///   - manufacturerData: manufacturer data by company identifier.
    ///   - serviceData: service data by service UUID.
    ///   - appearance: the GAP appearance.
    ///   - includesTxPower: whether bluetoothd adds the TX power.
    ///   - txPower: the TX power to advertise at.
    ///   - interval: the advertising interval's bounds in milliseconds.
    ///   - isConnectable: whether centrals may connect.
    public init(
        localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [], manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [BluetoothUUID: [UInt8]] = [:], appearance: UInt16? = nil, includesTxPower: Bool = false,
        txPower: Int16? = nil, interval: ClosedRange<UInt32>? = nil, isConnectable: Bool = true
    ) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.appearance = appearance
        self.includesTxPower = includesTxPower
        self.txPower = txPower
        self.interval = interval
        self.isConnectable = isConnectable
    }

    /// The `LEAdvertisement1` properties.
    var properties: [DBusProperty] {
        var properties = [
            DBusProperty(name: "Type", initialValue: .string(isConnectable ? "peripheral" : "broadcast"))
        ]
        if let localName { properties.append(DBusProperty(name: "LocalName", initialValue: .string(localName))) }
        if !serviceUUIDs.isEmpty {
            properties.append(
                DBusProperty(
                    name: "ServiceUUIDs", initialValue: .array(.string, serviceUUIDs.map { .string($0.uuidString) })))
        }
        if !manufacturerData.isEmpty {
            properties.append(
                DBusProperty(
                    name: "ManufacturerData",
                    initialValue: .dictionary(
                        key: .uint16, value: .variant,
                        manufacturerData.sorted { $0.key < $1.key }.map {
                            DBusDictionaryEntry(key: .uint16($0.key), value: .variant(.bytes($0.value)))
                        })))
        }
        if !serviceData.isEmpty {
            properties.append(
                DBusProperty(
                    name: "ServiceData",
                    initialValue: .dictionary(
                        key: .string, value: .variant,
                        serviceData.sorted { $0.key < $1.key }.map {
                            DBusDictionaryEntry(key: .string($0.key.uuidString), value: .variant(.bytes($0.value)))
                        })))
        }
        if let appearance { properties.append(DBusProperty(name: "Appearance", initialValue: .uint16(appearance))) }
        if includesTxPower {
            properties.append(DBusProperty(name: "Includes", initialValue: .array(.string, [.string("tx-power")])))
        }
        if let txPower { properties.append(DBusProperty(name: "TxPower", initialValue: .int16(txPower))) }
        if let interval {
            properties.append(DBusProperty(name: "MinInterval", initialValue: .uint32(interval.lowerBound)))
            properties.append(DBusProperty(name: "MaxInterval", initialValue: .uint32(interval.upperBound)))
        }
        return properties
    }

    /// The bytes of advertising data the fields take, each an AD structure (length, type, data): the flags
    /// bluetoothd adds to a connectable advertisement, the service UUID lists, each manufacturer's and
    /// service's data, the local name, the appearance and the TX power.
    var advertisingDataLength: Int {
        var length = isConnectable ? 3 : 0
        let short = serviceUUIDs.filter { $0.shortForm != nil }.count
        let long = serviceUUIDs.count - short
        if short > 0 { length += 2 + 2 * short }
        if long > 0 { length += 2 + 16 * long }
        for bytes in manufacturerData.values { length += 4 + bytes.count }
        for (uuid, bytes) in serviceData { length += 2 + (uuid.shortForm != nil ? 2 : 16) + bytes.count }
        if let localName { length += 2 + localName.utf8.count }
        if appearance != nil { length += 4 }
        if includesTxPower || txPower != nil { length += 3 }
        return length
    }

    /// The first field the running bluetoothd does not support, by the `LEAdvertisingManager1` properties
    /// `SupportedIncludes` and `SupportedFeatures` (nil when all are supported).
    func unsupportedField(includes: [String], features: [String]) -> String? {
        if includesTxPower, !includes.contains("tx-power") { return "includesTxPower" }
        if txPower != nil, !features.contains("CanSetTxPower") { return "txPower" }
        return nil
    }
}

/// Where an advertisement started by ``PeripheralManager/advertise(_:)`` is.
public enum AdvertisingState: Sendable, Hashable {
    /// Waiting for bluetoothd (it is not running, or has just restarted).
    case waitingForBluetoothd
    /// `RegisterAdvertisement` is under way.
    case starting
    /// bluetoothd advertises it.
    case advertising
}

/// Where the GATT application of a ``PeripheralManager`` is.
public enum RegistrationState: Sendable, Hashable {
    /// Waiting for bluetoothd (it is not running, or has just restarted).
    case waitingForBluetoothd
    /// `RegisterApplication` is under way.
    case registering
    /// bluetoothd serves the services to centrals.
    case registered
}
