/// Whether a device address is public (assigned to the device's maker by the IEEE) or random (made up by
/// the device: static, or private and changing), as bluetoothd reports it in `Device1.AddressType`.
public enum BluetoothAddressType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A public device address (bluetoothd's `public`).
    case `public`
    /// A random address, static or private (bluetoothd's `random`).
    case random
}
