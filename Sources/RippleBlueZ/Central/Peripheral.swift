import RippleDBus

/// A peripheral bluetoothd knows (`org.bluez.Device1`), as a handle for operations on its ``Central``.
///
/// It names the device by its address and object path; the state (connected, its GATT tree) lives in
/// bluetoothd and is read through the central. Two handles of the same device are equal.
public struct Peripheral: Sendable, Hashable, CustomStringConvertible {
    /// The central that drives it.
    public let central: Central
    /// Its Bluetooth address, `C0:FF:EE:00:00:01`: the identifier to store and connect to later.
    public let address: BluetoothAddress
    /// Its object path, `/org/bluez/hci0/dev_C0_FF_EE_00_00_01`.
    public let path: DBusObjectPath
    /// The handle a connection task gets: its operations go before every other operation of the
    /// peripheral, which wait until the tasks are done.
    let isInConnectionTask: Bool

    init(central: Central, address: BluetoothAddress, path: DBusObjectPath, isInConnectionTask: Bool = false) {
        self.central = central
        self.address = address
        self.path = path
        self.isInConnectionTask = isInConnectionTask
    }

    /// Its name as bluetoothd knows it now (the advertised or GATT name), if any.
    public var name: String? { central.core.deviceProperties(path)?["Name"]?.string }

    /// The service UUIDs bluetoothd knows for it now (`Device1.UUIDs`): advertised ones, stored ones of a
    /// known peripheral, and resolved ones once connected — readable without connecting.
    public var serviceUUIDs: [BluetoothUUID] {
        (central.core.deviceProperties(path)?["UUIDs"]?.arrayElements ?? []).compactMap {
            $0.string.flatMap(BluetoothUUID.init(uuidString:))
        }
    }

    /// Whether it is connected now, as its central sees it: true from the moment its link is up,
    /// false once ``Central/disconnect(_:timeout:)`` has emitted (or the link dropped); for a peripheral the
    /// central never connected, what bluetoothd says (another program's link).
    public var isConnected: Bool { central.core.isConnected(path) }

    /// "Ripple HRM (C0:FF:EE:00:00:01)".
    public var description: String { name.map { "\($0) (\(address))" } ?? address.description }

    public static func == (lhs: Peripheral, rhs: Peripheral) -> Bool {
        lhs.path == rhs.path && lhs.central === rhs.central
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
    }
}
