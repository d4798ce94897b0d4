// The service UUIDs of common assigned numbers.
extension BluetoothUUID {
    /// The Generic Access service (`0x1800`).
    public static let genericAccess: BluetoothUUID = 0x1800

    /// The Generic Attribute service (`0x1801`).
    public static let genericAttribute: BluetoothUUID = 0x1801

    /// The Immediate Alert service (`0x1802`).
    public static let immediateAlert: BluetoothUUID = 0x1802

    /// The Link Loss service (`0x1803`).
    public static let linkLoss: BluetoothUUID = 0x1803

    /// The Tx Power service (`0x1804`).
    public static let txPower: BluetoothUUID = 0x1804

    /// The Current Time service (`0x1805`).
    public static let currentTime: BluetoothUUID = 0x1805

    /// The Health Thermometer service (`0x1809`).
    public static let healthThermometer: BluetoothUUID = 0x1809

    /// The Device Information service (`0x180A`).
    public static let deviceInformation: BluetoothUUID = 0x180A

    /// The Heart Rate service (`0x180D`).
    public static let heartRate: BluetoothUUID = 0x180D

    /// The Battery service (`0x180F`).
    public static let battery: BluetoothUUID = 0x180F

    /// The Blood Pressure service (`0x1810`).
    public static let bloodPressure: BluetoothUUID = 0x1810

    /// The Human Interface Device service (`0x1812`).
    public static let humanInterfaceDevice: BluetoothUUID = 0x1812

    /// The Running Speed and Cadence service (`0x1814`).
    public static let runningSpeedAndCadence: BluetoothUUID = 0x1814

    /// The Cycling Speed and Cadence service (`0x1816`).
    public static let cyclingSpeedAndCadence: BluetoothUUID = 0x1816

    /// The Cycling Power service (`0x1818`).
    public static let cyclingPower: BluetoothUUID = 0x1818

    /// The Location and Navigation service (`0x1819`).
    public static let locationAndNavigation: BluetoothUUID = 0x1819

    /// The Environmental Sensing service (`0x181A`).
    public static let environmentalSensing: BluetoothUUID = 0x181A

    /// The Body Composition service (`0x181B`).
    public static let bodyComposition: BluetoothUUID = 0x181B

    /// The User Data service (`0x181C`).
    public static let userData: BluetoothUUID = 0x181C

    /// The Weight Scale service (`0x181D`).
    public static let weightScale: BluetoothUUID = 0x181D

    /// The Bond Management service (`0x181E`).
    public static let bondManagement: BluetoothUUID = 0x181E

    /// The Continuous Glucose Monitoring service (`0x181F`).
    public static let continuousGlucoseMonitoring: BluetoothUUID = 0x181F

    /// The Pulse Oximeter service (`0x1822`).
    public static let pulseOximeter: BluetoothUUID = 0x1822

    /// The Fitness Machine service (`0x1826`).
    public static let fitnessMachine: BluetoothUUID = 0x1826

    /// The Mesh Provisioning service (`0x1827`).
    public static let meshProvisioning: BluetoothUUID = 0x1827

    /// The Mesh Proxy service (`0x1828`).
    public static let meshProxy: BluetoothUUID = 0x1828
}
