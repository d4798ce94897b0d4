// The characteristic UUIDs of common assigned numbers.
extension BluetoothUUID {
    /// The Device Name characteristic (`0x2A00`).
    public static let deviceName: BluetoothUUID = 0x2A00

    /// The Appearance characteristic (`0x2A01`).
    public static let appearance: BluetoothUUID = 0x2A01

    /// The Peripheral Preferred Connection Parameters characteristic (`0x2A04`).
    public static let peripheralPreferredConnectionParameters: BluetoothUUID = 0x2A04

    /// The Service Changed characteristic (`0x2A05`).
    public static let serviceChanged: BluetoothUUID = 0x2A05

    /// The Alert Level characteristic (`0x2A06`).
    public static let alertLevel: BluetoothUUID = 0x2A06

    /// The Tx Power Level characteristic (`0x2A07`).
    public static let txPowerLevel: BluetoothUUID = 0x2A07

    /// The Battery Level characteristic (`0x2A19`).
    public static let batteryLevel: BluetoothUUID = 0x2A19

    /// The Temperature Measurement characteristic (`0x2A1C`).
    public static let temperatureMeasurement: BluetoothUUID = 0x2A1C

    /// The Temperature Type characteristic (`0x2A1D`).
    public static let temperatureType: BluetoothUUID = 0x2A1D

    /// The Intermediate Temperature characteristic (`0x2A1E`).
    public static let intermediateTemperature: BluetoothUUID = 0x2A1E

    /// The System ID characteristic (`0x2A23`).
    public static let systemID: BluetoothUUID = 0x2A23

    /// The Model Number String characteristic (`0x2A24`).
    public static let modelNumberString: BluetoothUUID = 0x2A24

    /// The Serial Number String characteristic (`0x2A25`).
    public static let serialNumberString: BluetoothUUID = 0x2A25

    /// The Firmware Revision String characteristic (`0x2A26`).
    public static let firmwareRevisionString: BluetoothUUID = 0x2A26

    /// The Hardware Revision String characteristic (`0x2A27`).
    public static let hardwareRevisionString: BluetoothUUID = 0x2A27

    /// The Software Revision String characteristic (`0x2A28`).
    public static let softwareRevisionString: BluetoothUUID = 0x2A28

    /// The Manufacturer Name String characteristic (`0x2A29`).
    public static let manufacturerNameString: BluetoothUUID = 0x2A29

    /// The Blood Pressure Measurement characteristic (`0x2A35`).
    public static let bloodPressureMeasurement: BluetoothUUID = 0x2A35

    /// The Heart Rate Measurement characteristic (`0x2A37`).
    public static let heartRateMeasurement: BluetoothUUID = 0x2A37

    /// The Body Sensor Location characteristic (`0x2A38`).
    public static let bodySensorLocation: BluetoothUUID = 0x2A38

    /// The Heart Rate Control Point characteristic (`0x2A39`).
    public static let heartRateControlPoint: BluetoothUUID = 0x2A39

    /// The PnP ID characteristic (`0x2A50`).
    public static let pnpID: BluetoothUUID = 0x2A50

    /// The RSC Measurement characteristic (`0x2A53`).
    public static let rscMeasurement: BluetoothUUID = 0x2A53

    /// The CSC Measurement characteristic (`0x2A5B`).
    public static let cscMeasurement: BluetoothUUID = 0x2A5B

    /// The Pressure characteristic (`0x2A6D`).
    public static let pressure: BluetoothUUID = 0x2A6D

    /// The Temperature characteristic (`0x2A6E`).
    public static let temperature: BluetoothUUID = 0x2A6E

    /// The Humidity characteristic (`0x2A6F`).
    public static let humidity: BluetoothUUID = 0x2A6F

    /// The Client Supported Features characteristic (`0x2B29`).
    public static let clientSupportedFeatures: BluetoothUUID = 0x2B29

    /// The Database Hash characteristic (`0x2B2A`).
    public static let databaseHash: BluetoothUUID = 0x2B2A

    /// The Server Supported Features characteristic (`0x2B3A`).
    public static let serverSupportedFeatures: BluetoothUUID = 0x2B3A
}
