import RippleDBus

/// bluetoothd's bus name and interface names, as the central uses them (``BlueZInterface`` has them all).
enum BlueZ {
    static let service = BlueZInterface.serviceName
    static let adapter = BlueZInterface.adapter
    static let device = BlueZInterface.device
    static let gattService = BlueZInterface.gattService
    static let characteristic = BlueZInterface.gattCharacteristic
    static let descriptor = BlueZInterface.gattDescriptor
    static let properties = BlueZInterface.properties
    static let agentManager = BlueZInterface.agentManager
    static let agent = BlueZInterface.agent
    /// `/org/bluez`, where the agent manager is.
    static let root = DBusObjectPath.bluezRoot
}

extension DBusObjectPath {
    /// `/org/bluez`.
    static let bluezRoot: DBusObjectPath = (try? DBusObjectPath(BlueZInterface.rootPath)) ?? DBusObjectPath.root
}
