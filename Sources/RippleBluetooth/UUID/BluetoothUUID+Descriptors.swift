// The descriptor UUIDs of common assigned numbers.
extension BluetoothUUID {
    /// The Characteristic Extended Properties descriptor (`0x2900`).
    public static let characteristicExtendedProperties: BluetoothUUID = 0x2900

    /// The Characteristic User Description descriptor (`0x2901`).
    public static let characteristicUserDescription: BluetoothUUID = 0x2901

    /// The Client Characteristic Configuration descriptor (`0x2902`).
    public static let clientCharacteristicConfiguration: BluetoothUUID = 0x2902

    /// The Server Characteristic Configuration descriptor (`0x2903`).
    public static let serverCharacteristicConfiguration: BluetoothUUID = 0x2903

    /// The Characteristic Presentation Format descriptor (`0x2904`).
    public static let characteristicPresentationFormat: BluetoothUUID = 0x2904

    /// The Characteristic Aggregate Format descriptor (`0x2905`).
    public static let characteristicAggregateFormat: BluetoothUUID = 0x2905

    /// The Valid Range descriptor (`0x2906`).
    public static let validRange: BluetoothUUID = 0x2906

    /// The Report Reference descriptor (`0x2908`).
    public static let reportReference: BluetoothUUID = 0x2908

    /// The Environmental Sensing Measurement descriptor (`0x290C`).
    public static let environmentalSensingMeasurement: BluetoothUUID = 0x290C
}
