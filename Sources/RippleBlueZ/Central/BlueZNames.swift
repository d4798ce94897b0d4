/// bluetoothd's bus name and interface names (BlueZ's `doc/org.bluez.*.rst`).
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let properties = "org.freedesktop.DBus.Properties"
}
