/// One notification (or indication) of a peripheral's characteristic, as
/// ``Peripheral/listenToAll(_:buffering:transport:)`` carries them.
public struct GATTNotification: Sendable, Hashable {
    /// The characteristic that notified.
    public var characteristic: BluetoothUUID
    /// Its service.
    public var service: BluetoothUUID?
    /// The value it sent.
    public var value: [UInt8]

    /// A notification of `characteristic` (in `service`) carrying `value`.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notified.
    ///   - service: its service.
    ///   - value: the value it sent.
    public init(characteristic: BluetoothUUID, service: BluetoothUUID?, value: [UInt8]) {
        self.characteristic = characteristic
        self.service = service
        self.value = value
    }
}
