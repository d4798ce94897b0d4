import RippleDBus

/// An advertisement registered through `LEAdvertisingManager1.RegisterAdvertisement`, read from its
/// `org.bluez.LEAdvertisement1` properties as bluetoothd 5.66 reads them (other properties are ignored).
struct AdvertisementData: Sendable, Hashable {
    /// The includes bluetoothd can add by itself (`SupportedIncludes`).
    static let supportedIncludes = ["tx-power", "appearance", "local-name"]
    /// The most bytes of advertising data a legacy advertisement carries.
    static let maximumLength = 31

    /// "peripheral" (connectable) or "broadcast".
    var type: String
    var localName: String?
    var serviceUUIDs: [BluetoothUUID] = []
    var manufacturerData: [UInt16: [UInt8]] = [:]
    var serviceData: [BluetoothUUID: [UInt8]] = [:]
    var appearance: UInt16?
    var includes: [String] = []
    var txPower: Int16?
    var discoverable: Bool?

    /// The advertisement in `properties` (`GetAll` of `LEAdvertisement1`).
    ///
    /// Throws ``BlueZError`` `Failed` "Failed to parse advertisement." when a property has the wrong type, an
    /// include or type is unknown, or the data do not fit in 31 bytes, as bluetoothd refuses them.
    init(_ properties: [String: DBusValue]) throws(BlueZError) {
        let failure = BlueZError.failed("Failed to parse advertisement.")
        let values = properties.mapValues(\.unwrappingVariants)
        guard let type = values["Type"]?.string, type == "peripheral" || type == "broadcast" else { throw failure }
        self.type = type
        if let name = values["LocalName"] {
            guard let text = name.string else { throw failure }
            localName = text
        }
        if let uuids = values["ServiceUUIDs"] {
            guard let elements = uuids.arrayElements else { throw failure }
            for element in elements {
                guard let text = element.string, let uuid = try? BluetoothUUID(text) else { throw failure }
                serviceUUIDs.append(uuid)
            }
        }
        if let data = values["ManufacturerData"] {
            guard let entries = data.dictionaryEntries else { throw failure }
            for entry in entries {
                guard let company = entry.key.uint16, let bytes = entry.value.unwrappingVariants.bytes else {
                    throw failure
                }
                manufacturerData[company] = bytes
            }
        }
        if let data = values["ServiceData"] {
            guard let entries = data.dictionaryEntries else { throw failure }
            for entry in entries {
                guard let text = entry.key.string, let uuid = try? BluetoothUUID(text),
                    let bytes = entry.value.unwrappingVariants.bytes
                else { throw failure }
                serviceData[uuid] = bytes
            }
        }
        if let value = values["Appearance"] {
            guard let appearance = value.uint16 else { throw failure }
            self.appearance = appearance
        }
        if let value = values["Includes"] {
            guard let names = value.arrayElements?.compactMap(\.string),
                names.allSatisfy(Self.supportedIncludes.contains)
            else { throw failure }
            includes = names
        }
        if let value = values["TxPower"] {
            guard let power = value.int16 else { throw failure }
            txPower = power
        }
        if let value = values["Discoverable"] {
            guard let discoverable = value.boolean else { throw failure }
            self.discoverable = discoverable
        }
        guard encodedLength <= Self.maximumLength else { throw failure }
    }

    /// The length of the advertising data: the flags, then each field as an AD structure (length, type,
    /// data).
    var encodedLength: Int {
        var length = type == "peripheral" ? 3 : 0
        let short = serviceUUIDs.filter { $0.shortForm != nil }.count
        let long = serviceUUIDs.count - short
        if short > 0 { length += 2 + 2 * short }
        if long > 0 { length += 2 + 16 * long }
        for bytes in manufacturerData.values { length += 4 + bytes.count }
        for (uuid, bytes) in serviceData { length += 2 + (uuid.shortForm != nil ? 2 : 16) + bytes.count }
        if let localName { length += 2 + localName.utf8.count }
        if appearance != nil || includes.contains("appearance") { length += 4 }
        if txPower != nil || includes.contains("tx-power") { length += 3 }
        return length
    }
}
