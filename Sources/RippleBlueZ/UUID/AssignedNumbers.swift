/// Names of the Bluetooth SIG's 16-bit assigned numbers for common GATT services, characteristics and
/// descriptors.
public enum AssignedNumbers {
    /// The name of each known 16-bit assigned number.
    public static let names: [UInt16: String] = [
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1802: "Immediate Alert", 0x1803: "Link Loss",
        0x1804: "Tx Power", 0x1805: "Current Time", 0x1809: "Health Thermometer", 0x180A: "Device Information",
        0x180D: "Heart Rate", 0x180F: "Battery", 0x1810: "Blood Pressure", 0x1812: "Human Interface Device",
        0x1814: "Running Speed and Cadence", 0x1816: "Cycling Speed and Cadence", 0x1818: "Cycling Power",
        0x1819: "Location and Navigation", 0x181A: "Environmental Sensing", 0x181D: "Weight Scale",
        0x1826: "Fitness Machine",
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed", 0x2A06: "Alert Level", 0x2A07: "Tx Power Level", 0x2A19: "Battery Level",
        0x2A1C: "Temperature Measurement", 0x2A1D: "Temperature Type", 0x2A1E: "Intermediate Temperature",
        0x2A23: "System ID", 0x2A24: "Model Number String", 0x2A25: "Serial Number String",
        0x2A26: "Firmware Revision String", 0x2A27: "Hardware Revision String", 0x2A28: "Software Revision String",
        0x2A29: "Manufacturer Name String", 0x2A35: "Blood Pressure Measurement", 0x2A37: "Heart Rate Measurement",
        0x2A38: "Body Sensor Location", 0x2A39: "Heart Rate Control Point", 0x2A50: "PnP ID",
        0x2A53: "RSC Measurement", 0x2A5B: "CSC Measurement", 0x2A6D: "Pressure", 0x2A6E: "Temperature",
        0x2A6F: "Humidity", 0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format", 0x2905: "Characteristic Aggregate Format",
        0x2906: "Valid Range", 0x2908: "Report Reference",
    ]
}

extension BluetoothUUID {
    /// Generic Access service (0x1800).
    public static let genericAccess = BluetoothUUID(0x1800 as UInt16)
    /// Generic Attribute service (0x1801).
    public static let genericAttribute = BluetoothUUID(0x1801 as UInt16)
    /// Device Information service (0x180A).
    public static let deviceInformation = BluetoothUUID(0x180A as UInt16)
    /// Heart Rate service (0x180D).
    public static let heartRate = BluetoothUUID(0x180D as UInt16)
    /// Battery service (0x180F).
    public static let battery = BluetoothUUID(0x180F as UInt16)
    /// Health Thermometer service (0x1809).
    public static let healthThermometer = BluetoothUUID(0x1809 as UInt16)
    /// Device Name characteristic (0x2A00).
    public static let deviceName = BluetoothUUID(0x2A00 as UInt16)
    /// Service Changed characteristic (0x2A05).
    public static let serviceChanged = BluetoothUUID(0x2A05 as UInt16)
    /// Battery Level characteristic (0x2A19).
    public static let batteryLevel = BluetoothUUID(0x2A19 as UInt16)
    /// Manufacturer Name String characteristic (0x2A29).
    public static let manufacturerNameString = BluetoothUUID(0x2A29 as UInt16)
    /// Model Number String characteristic (0x2A24).
    public static let modelNumberString = BluetoothUUID(0x2A24 as UInt16)
    /// Heart Rate Measurement characteristic (0x2A37).
    public static let heartRateMeasurement = BluetoothUUID(0x2A37 as UInt16)
    /// Body Sensor Location characteristic (0x2A38).
    public static let bodySensorLocation = BluetoothUUID(0x2A38 as UInt16)
    /// Heart Rate Control Point characteristic (0x2A39).
    public static let heartRateControlPoint = BluetoothUUID(0x2A39 as UInt16)
    /// Client Characteristic Configuration descriptor (0x2902).
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902 as UInt16)
    /// Characteristic User Description descriptor (0x2901).
    public static let characteristicUserDescription = BluetoothUUID(0x2901 as UInt16)
}
