import RippleDBus

/// A Bluetooth adapter (controller) as bluetoothd presents it (`org.bluez.Adapter1`).
public struct BluetoothAdapter: Sendable, Hashable, CustomStringConvertible {
    /// The adapter's name, the last component of its path: `hci0`.
    public var name: String
    /// Its object path: `/org/bluez/hci0`.
    public var path: DBusObjectPath
    /// Its Bluetooth address (`00:00:00:00:00:00` when bluetoothd gives none that can be read).
    public var address: BluetoothAddress
    /// Its alias (the name it shows to others).
    public var alias: String
    /// Whether it is powered on.
    public var isPowered: Bool
    /// Whether it is discovering (for any client of bluetoothd).
    public var isDiscovering: Bool

    /// The number in `hciN`, for ordering (adapters without one sort last).
    public var index: Int { Int(name.drop { !$0.isNumber }) ?? Int.max }

    /// "hci0 (00:11:22:33:44:55, powered)".
    public var description: String { "\(name) (\(address), \(isPowered ? "powered" : "off"))" }

    init?(path: DBusObjectPath, properties: [String: DBusValue]) {
        guard let name = path.description.split(separator: "/").last.map(String.init) else { return nil }
        self.name = name
        self.path = path
        address = properties["Address"]?.string.flatMap { try? BluetoothAddress($0) } ?? BluetoothAddress(rawValue: 0)
        alias = properties["Alias"]?.string ?? properties["Name"]?.string ?? name
        isPowered = properties["Powered"]?.boolean ?? false
        isDiscovering = properties["Discovering"]?.boolean ?? false
    }
}
