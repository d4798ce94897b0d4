/// A Bluetooth controller in the simulated world, exported as `/org/bluez/<name>` with
/// `org.bluez.Adapter1`.
public struct SimulatedAdapter: Sendable, Hashable {
    /// The adapter's name and the last component of its path: `hci0`, `hci1`, …
    public var name: String
    /// Its address.
    public var address: BluetoothAddress
    /// Its system name (`Adapter1.Name`) and initial alias.
    public var systemName: String
    /// Whether it is powered at first.
    public var isPowered: Bool

    /// An adapter `name` (`hci0`) at `address`.
    ///
    /// - Parameters:
    ///   - name: the adapter's name and the last component of its path: `hci0`, `hci1`, …
    ///   - address: its address.
    ///   - systemName: its system name (`Adapter1.Name`) and initial alias.
    ///   - isPowered: whether it is powered at first.
    public init(
        name: String = "hci0", address: BluetoothAddress = "00:1A:7D:DA:71:13", systemName: String = "ripple-sim",
        isPowered: Bool = true
    ) {
        self.name = name
        self.address = address
        self.systemName = systemName
        self.isPowered = isPowered
    }
}

/// A whole simulated world: adapters, and peripherals each near one adapter.
public struct SimulatedWorld: Sendable {
    /// A peripheral and the adapter (by name) that can see it.
    public struct Placement: Sendable {
        /// The peripheral.
        public var peripheral: SimulatedPeripheral
        /// The name of the adapter that sees it (`hci0`).
        public var adapter: String

        /// `peripheral`, seen by `adapter`.
        ///
        /// - Parameters:
        ///   - peripheral: the peripheral.
        ///   - adapter: the name of the adapter that sees it (`hci0`).
        public init(_ peripheral: SimulatedPeripheral, adapter: String = "hci0") {
            self.peripheral = peripheral
            self.adapter = adapter
        }
    }

    /// The adapters, in the order they are exported.
    public var adapters: [SimulatedAdapter]
    /// The peripherals.
    public var peripherals: [Placement]

    /// A world of `adapters` (one powered `hci0` by default) and `peripherals`.
    ///
    /// - Parameters:
    ///   - adapters: the adapters, in the order they are exported.
    ///   - peripherals: the peripherals.
    public init(adapters: [SimulatedAdapter] = [SimulatedAdapter()], peripherals: [Placement] = []) {
        self.adapters = adapters
        self.peripherals = peripherals
    }
}
