/// What a simulated device needs from the GATT database of its peripheral (loop-confined: every
/// method runs on the simulator's loop thread).
protocol PeripheralGATT: AnyObject, Sendable {
    /// The link is up: exports the service, characteristic and descriptor objects below
    /// `link.devicePath` (their `InterfacesAdded` are queued before this returns), or takes the cached
    /// ones back (kept sessions notify again).
    func attach(_ link: PeripheralLink) throws(SimulatorError)
    /// Whether objects of the current database are exported from an earlier connection (bluetoothd's
    /// attribute cache), so that a connection resolves without a discovery.
    var hasCachedObjects: Bool { get }
    /// The link is gone: sources stop, sockets close, outstanding operations are answered with
    /// bluetoothd's error; the objects and the `StartNotify` sessions stay (the cache).
    func detach()
    /// The device goes (or bluetoothd): the link's end, then the objects are unexported and every
    /// session ends.
    func removeObjects()
    /// The peripheral notifies `value` on `characteristic` (and stores it).
    func notify(_ characteristic: BluetoothUUID, value: [UInt8]) throws(SimulatorError)
    /// Runs `action` once a client has notifications of `characteristic` enabled (at once if one has).
    func whenNotifying(_ characteristic: BluetoothUUID, _ action: @escaping @Sendable () -> Void) throws(SimulatorError)
    /// Replaces the database with `services`, re-exporting it while connected (at once, or `rediscovery`
    /// later; see ``GATTServer/replace(with:rediscovery:)``).
    func replace(with services: [SimulatedService], rediscovery: Duration?) throws(SimulatorError)
    /// The bus client `uniqueName` went away: its notification sessions end.
    func clientVanished(_ uniqueName: String)
    /// The stored value of the characteristic or descriptor `attribute`, or nil when there is none.
    func value(of attribute: BluetoothUUID) -> [UInt8]?
    /// The Battery Level (0x2A19) of a Battery service (0x180F) that can be read and notify, when it is
    /// a percentage (0–100): what bluetoothd's battery plugin shows as `Battery1.Percentage`.
    var batteryLevel: UInt8? { get }
    /// Told, while connected, of every Battery Level percentage the peripheral notifies.
    var batteryLevelNotified: (UInt8) -> Void { get set }
    /// The UUIDs of the primary services, in database order.
    var serviceUUIDs: [BluetoothUUID] { get }
}
