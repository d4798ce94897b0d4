import Ripple
import RippleDBus
import RippleLoop

/// The GATT database of one simulated peripheral: its services, characteristics and descriptors with
/// their handles and values, exported as bluetoothd's `GattService1`, `GattCharacteristic1` and
/// `GattDescriptor1` objects while the peripheral is connected (loop-confined).
///
/// Handles run from 0x0001 in database order: a service's declaration, then for each characteristic its
/// declaration, its value, its descriptors. Paths end in `service%04x` (the service's first handle),
/// `char%04x` (the characteristic's declaration) and `desc%04x`, as bluetoothd names them. Every
/// characteristic that can notify or indicate gets a Client Characteristic Configuration descriptor.
final class GATTServer: PeripheralGATT {
    private struct ServiceNode {
        let description: SimulatedService
        let handle: UInt16
        let characteristics: [GATTCharacteristicNode]
    }

    nonisolated(unsafe) private var services: [ServiceNode] = []
    nonisolated(unsafe) private var serviceObjects: [DBusExportedObject] = []
    /// The link while the peripheral is connected.
    nonisolated(unsafe) private(set) var link: PeripheralLink?

    /// The database of `services`, with handles assigned.
    ///
    /// Throws ``SimulatorError/invalidWorld(_:)`` for a malformed UUID, an unusable notification source,
    /// or more attributes than handles.
    init(services: [SimulatedService]) throws(SimulatorError) {
        var handle = 1
        var built: [ServiceNode] = []
        for service in services {
            guard service.uuid.isValid else { throw .invalidWorld("the service UUID \"\(service.uuid)\" is malformed") }
            let serviceHandle = handle
            handle += 1
            var characteristics: [GATTCharacteristicNode] = []
            for characteristic in service.characteristics {
                guard characteristic.uuid.isValid else {
                    throw .invalidWorld("the characteristic UUID \"\(characteristic.uuid)\" is malformed")
                }
                if let problem = characteristic.notificationSource?.problem {
                    throw .invalidWorld("\(problem) (characteristic \(characteristic.uuid))")
                }
                let declaration = handle
                handle += 2
                var descriptions = characteristic.descriptors
                if characteristic.flags.canNotify, !descriptions.contains(where: { $0.uuid == GATTInterface.cccd }) {
                    descriptions.insert(SimulatedDescriptor(uuid: GATTInterface.cccd, flags: [.read, .write], value: [0, 0]), at: 0)
                }
                var descriptors: [GATTDescriptorNode] = []
                for descriptor in descriptions {
                    guard descriptor.uuid.isValid else {
                        throw .invalidWorld("the descriptor UUID \"\(descriptor.uuid)\" is malformed")
                    }
                    descriptors.append(GATTDescriptorNode(descriptor, handle: UInt16(clamping: handle)))
                    handle += 1
                }
                guard handle <= 0xFFFF else { throw .invalidWorld("the GATT database has more than 65,535 attributes") }
                characteristics.append(
                    GATTCharacteristicNode(characteristic, declarationHandle: UInt16(declaration), descriptors: descriptors))
            }
            guard handle <= 0xFFFF else { throw .invalidWorld("the GATT database has more than 65,535 attributes") }
            built.append(ServiceNode(description: service, handle: UInt16(serviceHandle), characteristics: characteristics))
        }
        self.services = built
        for characteristic in built.flatMap(\.characteristics) {
            characteristic.server = self
            for descriptor in characteristic.descriptors {
                descriptor.server = self
                descriptor.characteristic = characteristic
            }
        }
    }

    /// Replaces the database with `services` (a firmware update, a Service Changed indication): while
    /// connected, the old objects go (`InterfacesRemoved`) and the new ones come (`InterfacesAdded`), as
    /// bluetoothd's re-discovery shows them; the link stays up.
    func replace(with services: [SimulatedService]) throws(SimulatorError) {
        let fresh = try GATTServer(services: services)
        let link = self.link
        if link != nil { detach() }
        self.services = fresh.services
        for characteristic in characteristics {
            characteristic.server = self
            for descriptor in characteristic.descriptors { descriptor.server = self }
        }
        if let link { try attach(link) }
    }

    var serviceUUIDs: [AttributeUUID] {
        services.filter(\.description.isPrimary).map(\.description.uuid)
    }

    private var characteristics: [GATTCharacteristicNode] {
        services.flatMap(\.characteristics)
    }

    func takeFault(_ operation: SimulatedOperation) -> OperationFault? {
        link?.faults.take(operation)
    }

    // MARK: PeripheralGATT

    func attach(_ link: PeripheralLink) throws(SimulatorError) {
        if self.link != nil { detach() }
        self.link = link
        do {
            for service in services {
                let path = try link.devicePath.appending(handleComponent("service", service.handle))
                let object = try DBusExportedObject(path: path, interfaces: [
                    DBusInterface(name: GATTInterface.service, properties: [
                        DBusProperty(name: "UUID", initialValue: .string(service.description.uuid.uuidString)),
                        DBusProperty(name: "Primary", initialValue: .boolean(service.description.isPrimary)),
                        DBusProperty(name: "Device", initialValue: .objectPath(link.devicePath)),
                        DBusProperty(name: "Includes", initialValue: .array(.objectPath, [])),
                        DBusProperty(name: "Handle", initialValue: .uint16(service.handle)),
                    ])
                ])
                try link.connection.export(object)
                serviceObjects.append(object)
                for characteristic in service.characteristics {
                    try characteristic.export(
                        at: path.appending(handleComponent("char", characteristic.declarationHandle)), service: path, link: link)
                }
            }
        } catch {
            detach()
            throw .bus(error)
        }
    }

    func detach() {
        guard let link else { return }
        for characteristic in characteristics { characteristic.detach(connection: link.connection) }
        for object in serviceObjects { link.connection.unexport(object.path) }
        serviceObjects.removeAll()
        self.link = nil
    }

    func notify(_ characteristic: AttributeUUID, value: [UInt8]) throws(SimulatorError) {
        guard let node = characteristics.first(where: { $0.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        node.notify(value)
    }

    func whenNotifying(_ characteristic: AttributeUUID, _ action: @escaping @Sendable () -> Void) throws(SimulatorError) {
        guard let node = characteristics.first(where: { $0.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        node.whenNotifying(action)
    }

    func clientVanished(_ uniqueName: String) {
        for characteristic in characteristics { characteristic.endSession(of: uniqueName) }
    }

    func value(of attribute: AttributeUUID) -> [UInt8]? {
        for characteristic in characteristics {
            if characteristic.uuid == attribute { return characteristic.value }
            if let descriptor = characteristic.descriptors.first(where: { $0.uuid == attribute }) { return descriptor.value }
        }
        return nil
    }
}
