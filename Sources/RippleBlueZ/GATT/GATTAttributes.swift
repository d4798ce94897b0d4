import RippleDBus

/// A GATT service of a connected peripheral (`org.bluez.GattService1`).
public struct GATTService: Sendable, Hashable {
    /// Its UUID.
    public var uuid: BluetoothUUID
    /// Whether it is a primary service.
    public var isPrimary: Bool
    /// Its object path.
    public var path: DBusObjectPath
    /// Its characteristics, in handle order.
    public var characteristics: [GATTCharacteristic]
}

/// A GATT characteristic (`org.bluez.GattCharacteristic1`).
public struct GATTCharacteristic: Sendable, Hashable {
    /// Its UUID.
    public var uuid: BluetoothUUID
    /// The UUID of its service.
    public var serviceUUID: BluetoothUUID?
    /// bluetoothd's flags: `read`, `write`, `write-without-response`, `notify`, `indicate`, ….
    public var flags: [String]
    /// Its object path.
    public var path: DBusObjectPath
    /// Its descriptors, in handle order.
    public var descriptors: [GATTDescriptor]

    /// Whether it can be read.
    public var isReadable: Bool { flags.contains("read") }
    /// Whether it can notify or indicate.
    public var canNotify: Bool { flags.contains("notify") || flags.contains("indicate") }
    /// ``flags`` as the option set the peripheral role and the simulator use (a flag this release does not
    /// know is left out): CoreBluetooth's `CBCharacteristic.properties`.
    public var properties: CharacteristicProperties { CharacteristicProperties(bluezNamesIgnoringUnknown: flags) }
}

/// A GATT descriptor (`org.bluez.GattDescriptor1`).
public struct GATTDescriptor: Sendable, Hashable {
    /// Its UUID.
    public var uuid: BluetoothUUID
    /// Its object path.
    public var path: DBusObjectPath
}

/// The most bytes an attribute value holds (Bluetooth Core Specification, Vol 3, Part F, 3.2.9).
let maximumAttributeValueLength = 512

/// How a write goes to the peripheral.
public enum WriteType: Sendable, Hashable {
    /// A write request: the peripheral acknowledges it (bluetoothd's `request`; long values are written
    /// in parts).
    case withResponse
    /// A write command: no acknowledgement (bluetoothd's `command`; at most MTU − 3 bytes).
    case withoutResponse
}

/// Names a characteristic: its UUID, and its service's UUID when the UUID alone is ambiguous.
public struct CharacteristicReference: Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The characteristic's UUID.
    public var uuid: BluetoothUUID
    /// Its service's UUID (any service when nil).
    public var service: BluetoothUUID?

    /// The characteristic `uuid` (in `service`, if given).
    ///
    /// - Parameters:
    ///   - uuid: the characteristic's UUID.
    ///   - service: its service's UUID (any service when nil).
    public init(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) {
        self.uuid = uuid
        self.service = service
    }

    /// The characteristic with this 16-bit assigned number.
    ///
    /// - Parameter value: the literal.
    public init(integerLiteral value: UInt16) {
        self.init(BluetoothUUID(value))
    }

    /// "2A37" or "180D/2A37".
    public var description: String { service.map { "\($0)/\(uuid)" } ?? uuid.description }
}

extension CharacteristicReference {
    /// Heart Rate Measurement (0x2A37).
    public static let heartRateMeasurement = CharacteristicReference(.heartRateMeasurement)
    /// Body Sensor Location (0x2A38).
    public static let bodySensorLocation = CharacteristicReference(.bodySensorLocation)
    /// Heart Rate Control Point (0x2A39).
    public static let heartRateControlPoint = CharacteristicReference(.heartRateControlPoint)
    /// Battery Level (0x2A19).
    public static let batteryLevel = CharacteristicReference(.batteryLevel)
}
