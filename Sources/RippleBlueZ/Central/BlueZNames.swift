import RippleDBus

/// bluetoothd's bus name and interface names (BlueZ's `doc/org.bluez.*.rst`).
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let properties = "org.freedesktop.DBus.Properties"
    static let agentManager = "org.bluez.AgentManager1"
    static let agent = "org.bluez.Agent1"
    /// `/org/bluez`, where the agent manager is.
    static let root = DBusObjectPath.bluezRoot
}

extension DBusObjectPath {
    /// `/org/bluez`.
    static let bluezRoot: DBusObjectPath = (try? DBusObjectPath("/org/bluez")) ?? DBusObjectPath.root
}
