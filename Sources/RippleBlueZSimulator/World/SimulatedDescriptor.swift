/// A descriptor of a ``SimulatedCharacteristic``, exported as `org.bluez.GattDescriptor1`.
///
/// The Client Characteristic Configuration descriptor (0x2902) is added by the simulator to every
/// characteristic that can notify or indicate; writes to it are refused as bluetoothd refuses them
/// (clients use `StartNotify`/`StopNotify`), and reads show whether notifications are on.
public struct SimulatedDescriptor: Sendable {
    /// The descriptor's type.
    public var uuid: BluetoothUUID
    /// What clients may do with it.
    public var flags: DescriptorProperties
    /// Its value at first.
    public var value: [UInt8]
    /// Answers reads; nil returns the stored value from the request's offset.
    public var onRead: GATTReadHandler?
    /// Answers writes; nil stores what is written.
    public var onWrite: GATTWriteHandler?

    /// A descriptor of type `uuid`.
    ///
    /// - Parameters:
    ///   - uuid: the descriptor's type.
    ///   - flags: what clients may do with it.
    ///   - value: its value at first.
    ///   - onRead: answers reads; nil returns the stored value from the request's offset.
    ///   - onWrite: answers writes; nil stores what is written.
    public init(
        uuid: BluetoothUUID, flags: DescriptorProperties = [.read], value: [UInt8] = [], onRead: GATTReadHandler? = nil,
        onWrite: GATTWriteHandler? = nil
    ) {
        self.uuid = uuid
        self.flags = flags
        self.value = value
        self.onRead = onRead
        self.onWrite = onWrite
    }

    /// A Characteristic User Description (0x2901) holding `text` in UTF-8, read-only.
    ///
    /// - Parameter text: the description.
    /// - Returns: the descriptor.
    public static func userDescription(_ text: String) -> SimulatedDescriptor {
        SimulatedDescriptor(uuid: 0x2901, flags: [.read], value: Array(text.utf8))
    }
}
