/// A characteristic of a ``SimulatedService``, exported as `org.bluez.GattCharacteristic1` while its
/// peripheral is connected.
///
/// Its behaviour comes from values: the flags decide which operations are allowed, the stored value
/// answers reads, writes store what they write, and handlers replace either when given. A
/// ``NotificationSource`` makes it notify by itself while a client listens.
public struct SimulatedCharacteristic: Sendable {
    /// The characteristic's type.
    public var uuid: BluetoothUUID
    /// Its properties and permissions.
    public var flags: CharacteristicProperties
    /// Its value at first.
    public var value: [UInt8]
    /// Its descriptors, besides the Client Characteristic Configuration descriptor the simulator adds
    /// when the characteristic can notify or indicate.
    public var descriptors: [SimulatedDescriptor]
    /// Answers reads; nil returns the stored value from the request's offset.
    public var onRead: GATTReadHandler?
    /// Answers writes; nil stores what is written.
    public var onWrite: GATTWriteHandler?
    /// Notifications the characteristic sends by itself while a client listens.
    public var notificationSource: NotificationSource?

    /// A characteristic of type `uuid`.
    ///
    /// - Parameters:
    ///   - uuid: the characteristic's type.
    ///   - flags: its properties and permissions.
    ///   - value: its value at first.
    ///   - descriptors: its descriptors, besides the Client Characteristic Configuration descriptor the simulator adds
    ///     when the characteristic can notify or indicate.
    ///   - onRead: answers reads; nil returns the stored value from the request's offset.
    ///   - onWrite: answers writes; nil stores what is written.
    ///   - notificationSource: notifications the characteristic sends by itself while a client listens.
    public init(
        uuid: BluetoothUUID, flags: CharacteristicProperties, value: [UInt8] = [],
        descriptors: [SimulatedDescriptor] = [],
        onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil, notificationSource: NotificationSource? = nil
    ) {
        self.uuid = uuid
        self.flags = flags
        self.value = value
        self.descriptors = descriptors
        self.onRead = onRead
        self.onWrite = onWrite
        self.notificationSource = notificationSource
    }
}
