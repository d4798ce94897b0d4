final class GATTServer: PeripheralGATT {
    let services: [SimulatedService]
    init(services: [SimulatedService]) throws(SimulatorError) { self.services = services }
    func attach(_ link: PeripheralLink) throws(SimulatorError) {}
    func detach() {}
    func notify(_ characteristic: AttributeUUID, value: [UInt8]) throws(SimulatorError) {}
    func clientVanished(_ uniqueName: String) {}
    func value(of attribute: AttributeUUID) -> [UInt8]? { nil }
    var serviceUUIDs: [AttributeUUID] { services.map(\.uuid) }
}
