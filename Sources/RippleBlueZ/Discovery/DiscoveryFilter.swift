import RippleDBus

/// What a discovery looks for: bluetoothd's discovery filter (`Adapter1.SetDiscoveryFilter`), applied
/// again to each advertisement so that every subscriber gets exactly what its filter asks for when
/// several discover at once.
public struct DiscoveryFilter: Sendable, Hashable {
    /// Only peripherals advertising one of these services (all when empty).
    public var services: [BluetoothUUID]
    /// Only advertisements at least this strong, in dBm.
    public var minimumRSSI: Int?
    /// Only peripherals whose address or name starts with this.
    public var namePrefix: String?
    /// Whether every advertisement is reported, not only changes (bluetoothd's `DuplicateData`).
    public var reportsDuplicates: Bool

    /// A filter; the default finds every LE peripheral and reports each advertisement.
    ///
    /// - Parameters:
    ///   - services: only peripherals advertising one of these services (all when empty).
    ///   - minimumRSSI: only advertisements at least this strong, in dBm.
    ///   - namePrefix: only peripherals whose address or name starts with this.
    ///   - reportsDuplicates: whether every advertisement is reported, not only changes (bluetoothd's `DuplicateData`).
    public init(
        services: [BluetoothUUID] = [], minimumRSSI: Int? = nil, namePrefix: String? = nil,
        reportsDuplicates: Bool = true
    ) {
        self.services = services
        self.minimumRSSI = minimumRSSI
        self.namePrefix = namePrefix
        self.reportsDuplicates = reportsDuplicates
    }

    /// Every LE peripheral.
    public static let all = DiscoveryFilter()

    /// Peripherals advertising one of `services`.
    ///
    /// - Parameter services: the services, one of which a peripheral must advertise.
    /// - Returns: the filter.
    public static func services(_ services: [BluetoothUUID]) -> DiscoveryFilter {
        DiscoveryFilter(services: services)
    }

    /// Whether `discovery` passes this filter.
    ///
    /// - Parameter discovery: the advertisement.
    /// - Returns: whether it passes.
    public func matches(_ discovery: PeripheralDiscovery) -> Bool {
        if !services.isEmpty, !discovery.serviceUUIDs.contains(where: services.contains) { return false }
        if let minimumRSSI, let rssi = discovery.rssi, rssi < minimumRSSI { return false }
        if let namePrefix,
            !(discovery.address.description.hasPrefix(namePrefix) || (discovery.name?.hasPrefix(namePrefix) ?? false))
        {
            return false
        }
        return true
    }

    /// The one filter bluetoothd gets for several subscribers: the union of their services (none when
    /// any wants all), the weakest RSSI, duplicates if any wants them.
    static func merged(_ filters: [DiscoveryFilter]) -> [String: DBusValue] {
        var properties: [String: DBusValue] = ["Transport": .string("le")]
        if !filters.isEmpty, !filters.contains(where: { $0.services.isEmpty }) {
            var uuids: [BluetoothUUID] = []
            for uuid in filters.flatMap(\.services) where !uuids.contains(uuid) { uuids.append(uuid) }
            properties["UUIDs"] = .array(.string, uuids.map { .string($0.uuidString) })
        }
        if !filters.isEmpty, filters.allSatisfy({ $0.minimumRSSI != nil }),
            let weakest = filters.compactMap(\.minimumRSSI).min()
        {
            properties["RSSI"] = .int16(Int16(clamping: weakest))
        }
        properties["DuplicateData"] = .boolean(filters.contains { $0.reportsDuplicates })
        return properties
    }
}
