/// A GATT service of a ``SimulatedPeripheral``, exported as `org.bluez.GattService1` while the peripheral
/// is connected.
public struct SimulatedService: Sendable {
    /// The service's type.
    public var uuid: BluetoothUUID
    /// Whether it is a primary service.
    public var isPrimary: Bool
    /// Its characteristics, in handle order.
    public var characteristics: [SimulatedCharacteristic]

    /// A service of type `uuid` with `characteristics`.
    ///
    /// - Parameters:
    ///   - uuid: the service's type.
    ///   - isPrimary: whether it is a primary service.
    ///   - characteristics: its characteristics, in handle order.
    public init(uuid: BluetoothUUID, isPrimary: Bool = true, characteristics: [SimulatedCharacteristic] = []) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }
}
