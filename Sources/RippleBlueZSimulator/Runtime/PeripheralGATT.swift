/// What a simulated device needs from the GATT database of its peripheral (loop-confined: every
/// method runs on the simulator's loop thread).
protocol PeripheralGATT: AnyObject, Sendable {
    /// The link is up: exports the service, characteristic and descriptor objects below
    /// `link.devicePath` (their `InterfacesAdded` are queued before this returns).
    func attach(_ link: PeripheralLink) throws(SimulatorError)
    /// The link is gone: sessions end, sources stop, sockets close, outstanding operations are answered
    /// with bluetoothd's error, and the objects are unexported.
    func detach()
    /// The peripheral notifies `value` on `characteristic` (and stores it).
    func notify(_ characteristic: AttributeUUID, value: [UInt8]) throws(SimulatorError)
    /// Runs `action` once a client has notifications of `characteristic` enabled (at once if one has).
    func whenNotifying(_ characteristic: AttributeUUID, _ action: @escaping @Sendable () -> Void) throws(SimulatorError)
    /// Replaces the database with `services`, re-exporting it while connected.
    func replace(with services: [SimulatedService]) throws(SimulatorError)
    /// The bus client `uniqueName` went away: its notification sessions end.
    func clientVanished(_ uniqueName: String)
    /// The stored value of the characteristic or descriptor `attribute`, or nil when there is none.
    func value(of attribute: AttributeUUID) -> [UInt8]?
    /// The UUIDs of the primary services, in database order.
    var serviceUUIDs: [AttributeUUID] { get }
}
