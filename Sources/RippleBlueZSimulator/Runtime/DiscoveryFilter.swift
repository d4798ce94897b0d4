import RippleDBus

/// One client's discovery filter, from `Adapter1.SetDiscoveryFilter`'s dictionary.
struct DiscoveryFilter: Sendable, Hashable {
    /// The filter's keys, as `GetDiscoveryFilters` lists them.
    static let keys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    var uuids: [BluetoothUUID] = []
    var rssi: Int16?
    var pathloss: UInt16?
    var transport = "auto"
    var duplicateData = false
    var discoverable = false
    var pattern: String?

    init() {}

    /// Parses the dictionary as bluetoothd does; nil for an empty one (which clears a filter).
    ///
    /// Throws ``BlueZError/invalidArguments`` for an unknown key, a value of the wrong type, a malformed
    /// UUID, an unknown transport, or RSSI together with Pathloss.
    static func parse(_ dictionary: [String: DBusValue]) throws(BlueZError) -> DiscoveryFilter? {
        guard !dictionary.isEmpty else { return nil }
        var filter = DiscoveryFilter()
        for (key, wrapped) in dictionary {
            let value = wrapped.unwrappingVariants
            switch key {
            case "UUIDs":
                guard let elements = value.arrayElements else { throw .invalidArguments }
                for element in elements {
                    guard let text = element.string else { throw .invalidArguments }
                    guard let uuid = try? BluetoothUUID(text) else { throw .invalidArguments }
                    filter.uuids.append(uuid)
                }
            case "RSSI":
                guard let rssi = value.int16 else { throw .invalidArguments }
                filter.rssi = rssi
            case "Pathloss":
                guard let pathloss = value.uint16 else { throw .invalidArguments }
                filter.pathloss = pathloss
            case "Transport":
                guard let transport = value.string, ["auto", "bredr", "le"].contains(transport) else {
                    throw .invalidArguments
                }
                filter.transport = transport
            case "DuplicateData":
                guard let flag = value.boolean else { throw .invalidArguments }
                filter.duplicateData = flag
            case "Discoverable":
                guard let flag = value.boolean else { throw .invalidArguments }
                filter.discoverable = flag
            case "Pattern":
                guard let pattern = value.string else { throw .invalidArguments }
                filter.pattern = pattern
            default:
                throw .invalidArguments
            }
        }
        if filter.rssi != nil && filter.pathloss != nil { throw .invalidArguments }
        return filter
    }

    /// Whether an advertisement of `peripheral`, received at `rssi`, passes this filter.
    func matches(_ peripheral: SimulatedPeripheral, rssi: Int16) -> Bool {
        if transport == "bredr" { return false }
        if !uuids.isEmpty {
            let advertised = Set(peripheral.advertisedServices).union(peripheral.serviceData.keys)
            guard uuids.contains(where: advertised.contains) else { return false }
        }
        if let threshold = self.rssi, rssi < threshold { return false }
        if let pathloss {
            guard let txPower = peripheral.txPower, Int(txPower) - Int(rssi) <= Int(pathloss) else { return false }
        }
        return true
    }

    /// Whether `pattern` (a prefix of the address or the name) admits `peripheral`; an empty pattern
    /// admits everything.
    static func pattern(_ pattern: String, admits peripheral: SimulatedPeripheral) -> Bool {
        pattern.isEmpty || peripheral.address.description.hasPrefix(pattern.uppercased())
            || (peripheral.name?.hasPrefix(pattern) ?? false)
    }
}

/// The filters of every discovering client, merged as bluetoothd merges them: a device is reported when
/// any client's filter passes it (a client without a filter passes everything), patterns are ignored
/// when some client set none, and duplicate data is reported when any client asked for it.
struct MergedDiscoveryFilter: Sendable {
    let filters: [DiscoveryFilter?]

    /// Whether `peripheral` received at `rssi` is reported.
    func matches(_ peripheral: SimulatedPeripheral, rssi: Int16) -> Bool {
        let patterns = filters.map { $0?.pattern }
        if !patterns.isEmpty, patterns.allSatisfy({ $0 != nil }) {
            guard patterns.contains(where: { DiscoveryFilter.pattern($0 ?? "", admits: peripheral) }) else {
                return false
            }
        }
        return filters.contains { filter in
            guard let filter else { return true }
            return filter.matches(peripheral, rssi: rssi)
        }
    }

    /// Whether advertisement data is signalled at every advertisement.
    var duplicateData: Bool {
        filters.contains { $0?.duplicateData ?? false }
    }
}
