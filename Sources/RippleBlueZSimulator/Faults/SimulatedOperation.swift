/// An operation a client asks of bluetoothd about a peripheral, to which a fault can be attached
/// (see ``BlueZSimulator/inject(_:on:of:times:)``).
public enum SimulatedOperation: Sendable, Hashable {
    /// `Device1.Connect`.
    case connect
    /// `Device1.Disconnect`.
    case disconnect
    /// `Device1.Pair`.
    case pair
    /// `GattCharacteristic1.ReadValue` of the characteristic.
    case read(BluetoothUUID)
    /// `GattCharacteristic1.WriteValue` of the characteristic.
    case write(BluetoothUUID)
    /// `GattCharacteristic1.StartNotify` of the characteristic.
    case startNotify(BluetoothUUID)
    /// `GattCharacteristic1.StopNotify` of the characteristic.
    case stopNotify(BluetoothUUID)
    /// `GattCharacteristic1.AcquireNotify` of the characteristic.
    case acquireNotify(BluetoothUUID)
    /// `GattCharacteristic1.AcquireWrite` of the characteristic.
    case acquireWrite(BluetoothUUID)
    /// `GattDescriptor1.ReadValue` of the descriptor.
    case readDescriptor(BluetoothUUID)
    /// `GattDescriptor1.WriteValue` of the descriptor.
    case writeDescriptor(BluetoothUUID)
}

/// What a peripheral (or bluetoothd) does instead of answering an operation normally.
public enum OperationFault: Sendable, Hashable {
    /// Answers with `error` at once.
    case fail(BlueZError)
    /// Answers normally after `delay`; meanwhile the operation is outstanding (a second write gets
    /// `InProgress`).
    case delay(Duration)
    /// Answers with `error` after `delay`.
    case failAfter(Duration, BlueZError)
    /// The peripheral drops the link while the operation is outstanding: the operation fails as
    /// bluetoothd fails it when the link is lost, and the device disconnects with `reason`.
    case disconnect(DisconnectReason)
    /// For ``SimulatedOperation/connect`` only: `Connect()` succeeds and the services resolve, but
    /// `Connected` is never signalled and stays false, as BlueZ 5.66 does when the ATT socket connects
    /// before the kernel reports the connection.
    case connectWithoutConnectedSignal
}
