/// A BLE peripheral in the simulated world: what it advertises, how it behaves when connected, and its
/// GATT database.
///
/// While it is in range and an adapter discovers with a filter it matches, bluetoothd's `Device1` object
/// for it appears under the adapter and its RSSI and advertisement data update at every
/// ``advertisingInterval``. A peripheral that is ``isPaired`` (or ``isKnown``) is in the tree from the
/// start, as bluetoothd shows the devices it stores.
public struct SimulatedPeripheral: Sendable {
    /// The device address.
    public var address: BluetoothAddress
    /// Whether ``address`` is public or random.
    public var addressType: BluetoothAddressType
    /// The advertised local name; nil when it advertises none.
    public var name: String?
    /// The GAP appearance, when advertised.
    public var appearance: UInt16?
    /// The received signal strength in dBm, as the adapter measures it.
    public var rssi: Int16
    /// How far the RSSI wanders around ``rssi`` from one advertisement to the next (a fixed, repeating
    /// pattern within ±`rssiVariation`); 0 keeps it steady.
    public var rssiVariation: Int16
    /// The advertised TX power in dBm, when advertised.
    public var txPower: Int16?
    /// Manufacturer-specific data by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// The service UUIDs the peripheral advertises.
    public var advertisedServices: [BluetoothUUID]
    /// The time between two advertisements.
    public var advertisingInterval: Duration
    /// Whether it accepts connections.
    public var isConnectable: Bool
    /// Whether it is within range of the adapter at first.
    public var isInRange: Bool
    /// Whether bluetoothd knows it already (stored from an earlier session): its `Device1` object exists
    /// from the start, without discovery.
    public var isKnown: Bool
    /// Whether it is paired (and bonded) at first; a paired peripheral is also known.
    public var isPaired: Bool
    /// The time a connection takes to be made, and again to resolve the services.
    public var connectionDelay: Duration
    /// The ATT MTU negotiated on connection.
    public var mtu: Int
    /// Its GATT database, in handle order.
    public var services: [SimulatedService]
    /// How it pairs (the question for the client's agent); just works by default.
    public var pairingMethod: PairingMethod = .justWorks

    /// A peripheral at `address`; everything else has the default of a typical LE sensor.
    ///
    /// - Parameters:
    ///   - address: the device address.
    ///   - addressType: whether ``address`` is public or random.
    ///   - name: the advertised local name; nil when it advertises none.
    ///   - appearance: the GAP appearance, when advertised.
    ///   - rssi: the received signal strength in dBm, as the adapter measures it.
    ///   - rssiVariation: how far the RSSI wanders around ``rssi`` from one advertisement to the next (a fixed,
    ///     repeating pattern within ±`rssiVariation`); 0 keeps it steady.
    ///   - txPower: the advertised TX power in dBm, when advertised.
    ///   - manufacturerData: Manufacturer-specific data by company identifier.
    ///   - serviceData: Service data by service UUID.
    ///   - advertisedServices: the service UUIDs the peripheral advertises.
    ///   - advertisingInterval: the time between two advertisements.
    ///   - isConnectable: whether it accepts connections.
    ///   - isInRange: whether it is within range of the adapter at first.
    ///   - isKnown: whether bluetoothd knows it already (stored from an earlier session): its `Device1` object exists
    ///     from the start, without discovery.
    ///   - isPaired: whether it is paired (and bonded) at first; a paired peripheral is also known.
    ///   - connectionDelay: the time a connection takes to be made, and again to resolve the services.
    ///   - mtu: the ATT MTU negotiated on connection.
    ///   - services: its GATT database, in handle order.
    public init(
        address: BluetoothAddress,
        addressType: BluetoothAddressType = .public,
        name: String? = nil,
        appearance: UInt16? = nil,
        rssi: Int16 = -60,
        rssiVariation: Int16 = 0,
        txPower: Int16? = nil,
        manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [BluetoothUUID: [UInt8]] = [:],
        advertisedServices: [BluetoothUUID] = [],
        advertisingInterval: Duration = .milliseconds(100),
        isConnectable: Bool = true,
        isInRange: Bool = true,
        isKnown: Bool = false,
        isPaired: Bool = false,
        connectionDelay: Duration = .milliseconds(5),
        mtu: Int = 247,
        services: [SimulatedService] = []
    ) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.appearance = appearance
        self.rssi = rssi
        self.rssiVariation = rssiVariation
        self.txPower = txPower
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.advertisedServices = advertisedServices
        self.advertisingInterval = advertisingInterval
        self.isConnectable = isConnectable
        self.isInRange = isInRange
        self.isKnown = isKnown
        self.isPaired = isPaired
        self.connectionDelay = connectionDelay
        self.mtu = mtu
        self.services = services
    }
}
