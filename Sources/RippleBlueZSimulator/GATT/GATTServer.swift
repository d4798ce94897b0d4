import Ripple
import RippleDBus
import RippleLoop

/// The GATT database of one simulated peripheral: its services, characteristics and descriptors with
/// their handles and values, exported as bluetoothd's `GattService1`, `GattCharacteristic1` and
/// `GattDescriptor1` objects (loop-confined).
///
/// The objects come with the first connection and stay when the link ends, as bluetoothd 5.66 keeps a
/// remote database in its attribute cache (`Cache = always`, the default): methods then fail with
/// "Not connected", `StartNotify` sessions are kept and notify again once the link is back, and the next
/// connection resolves at once. A database replaced while disconnected is found out at the next
/// connection: the cached objects go and the new ones come. The objects go for good with the device.
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
    /// The nodes whose objects are exported, with the connection that exports them: `services` unless
    /// the database was replaced while disconnected (then they are the stale cache).
    nonisolated(unsafe) private var exported: (services: [ServiceNode], connection: DBusConnection)?
    /// The database was replaced while its objects stayed cached.
    nonisolated(unsafe) private var cacheIsStale = false
    /// For a database replaced while its objects stayed cached with a re-discovery time: the next
    /// connection resolves from the stale cache at once, and finds the change out that long after.
    nonisolated(unsafe) private var staleFoundAfter: Duration?
    /// A re-discovery under way: the new database's objects come when it ends.
    nonisolated(unsafe) private var rediscovery: AnyCancellable?
    /// Told of every Battery Level (0x2A19) the peripheral notifies (bluetoothd's battery plugin).
    nonisolated(unsafe) var batteryLevelNotified: (UInt8) -> Void = { _ in }

    /// Services that bluetoothd's internal profiles claim, and so never exports as `GattService1`
    /// objects (they still count in the device's `UUIDs`): Generic Access (0x1800), HID (0x1812, the
    /// HoG input plugin) and Scan Parameters (0x1813).
    static let claimedByBluetoothd: Set<BluetoothUUID> = [
        BluetoothUUID(0x1800), BluetoothUUID(0x1812), BluetoothUUID(0x1813),
    ]

    /// The database of `services`, with handles assigned.
    ///
    /// Throws ``SimulatorError/invalidWorld(_:)`` for an unusable notification source,
    /// or more attributes than handles.
    init(services: [SimulatedService]) throws(SimulatorError) {
        var handle = 1
        var built: [ServiceNode] = []
        for service in services {
            let serviceHandle = handle
            handle += 1
            var characteristics: [GATTCharacteristicNode] = []
            for characteristic in service.characteristics {
                if let problem = characteristic.notificationSource?.problem {
                    throw .invalidWorld("\(problem) (characteristic \(characteristic.uuid))")
                }
                let declaration = handle
                handle += 2
                var descriptions = characteristic.descriptors
                if characteristic.flags.canNotify, !descriptions.contains(where: { $0.uuid == GATTInterface.cccd }) {
                    descriptions.insert(
                        SimulatedDescriptor(uuid: GATTInterface.cccd, flags: [.read, .write], value: [0, 0]), at: 0)
                }
                var descriptors: [GATTDescriptorNode] = []
                for descriptor in descriptions {
                    descriptors.append(GATTDescriptorNode(descriptor, handle: UInt16(clamping: handle)))
                    handle += 1
                }
                guard handle <= 0xFFFF else { throw .invalidWorld("the GATT database has more than 65,535 attributes") }
                characteristics.append(
                    GATTCharacteristicNode(
                        characteristic, declarationHandle: UInt16(declaration), descriptors: descriptors))
            }
            guard handle <= 0xFFFF else { throw .invalidWorld("the GATT database has more than 65,535 attributes") }
            built.append(
                ServiceNode(description: service, handle: UInt16(serviceHandle), characteristics: characteristics))
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
    /// bluetoothd's re-discovery shows them — at once, or `rediscovery` later (bluetoothd reading the
    /// changed range over the link); the link stays up. While disconnected, the cached objects stay
    /// until the next connection, which finds the change out: before resolving (`rediscovery` nil), or
    /// `rediscovery` after resolving from the stale cache (a Service Changed indication after the
    /// reconnection).
    func replace(with services: [SimulatedService], rediscovery delay: Duration? = nil) throws(SimulatorError) {
        let fresh = try GATTServer(services: services)
        let link = self.link
        if link != nil {
            removeObjects()
        } else if exported != nil {
            cacheIsStale = true
            staleFoundAfter = delay
        }
        self.services = fresh.services
        for characteristic in characteristics {
            characteristic.server = self
            for descriptor in characteristic.descriptors { descriptor.server = self }
        }
        guard let link else { return }
        if let delay {
            exportAgain(on: link, after: delay)
        } else {
            try attach(link)
        }
    }

    /// Exports the current database on `link` `delay` from now, unless the link ends first.
    private func exportAgain(on link: PeripheralLink, after delay: Duration) {
        rediscovery = link.loop.after(delay) { [weak self] in
            guard let self, rediscovery != nil else { return }
            rediscovery = nil
            removeObjects()
            do {
                try attach(link)
            } catch {
                link.dropLink(.local)
            }
        }
    }

    var serviceUUIDs: [BluetoothUUID] {
        services.filter(\.description.isPrimary).map(\.description.uuid)
    }

    private var characteristics: [GATTCharacteristicNode] {
        services.flatMap(\.characteristics)
    }

    func takeFault(_ operation: SimulatedOperation) -> OperationFault? {
        link?.faults.take(operation)
    }

    // MARK: PeripheralGATT

    var hasCachedObjects: Bool { exported != nil && (!cacheIsStale || staleFoundAfter != nil) }

    func attach(_ link: PeripheralLink) throws(SimulatorError) {
        if self.link != nil { detach() }
        if cacheIsStale, let delay = staleFoundAfter, let exported {
            // Resolved from the stale cache; the change is found out later.
            staleFoundAfter = nil
            self.link = link
            for characteristic in exported.services.flatMap(\.characteristics) { characteristic.linkRestored(link) }
            exportAgain(on: link, after: delay)
            return
        }
        if cacheIsStale { removeObjects() }
        self.link = link
        if exported != nil {
            for characteristic in characteristics { characteristic.linkRestored(link) }
            return
        }
        exported = (services, link.connection)
        do {
            for service in services where !Self.claimedByBluetoothd.contains(service.description.uuid) {
                let path = try link.devicePath.appending(handleComponent("service", service.handle))
                let object = try DBusExportedObject(
                    path: path,
                    interfaces: [
                        DBusInterface(
                            name: GATTInterface.service,
                            properties: [
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
                        at: path.appending(handleComponent("char", characteristic.declarationHandle)), service: path,
                        link: link)
                }
            }
        } catch {
            removeObjects()
            throw .bus(error)
        }
    }

    func detach() {
        rediscovery?.cancel()
        rediscovery = nil
        guard link != nil else { return }
        for characteristic in (exported?.services ?? services).flatMap(\.characteristics) {
            characteristic.linkEnded()
        }
        link = nil
    }

    func removeObjects() {
        detach()
        guard let exported else { return }
        for characteristic in exported.services.flatMap(\.characteristics) {
            characteristic.unexport(connection: exported.connection)
        }
        for object in serviceObjects { exported.connection.unexport(object.path) }
        serviceObjects.removeAll()
        self.exported = nil
        cacheIsStale = false
    }

    var batteryLevel: UInt8? {
        let levels = services.lazy.filter { $0.description.uuid == .battery }.flatMap(\.characteristics)
        guard
            let level = levels.first(where: {
                $0.uuid == .batteryLevel && $0.flags.contains(.read) && $0.flags.canNotify
            }),
            let percentage = level.value.first, percentage <= 100
        else { return nil }
        return percentage
    }

    /// The Battery Level characteristic notified `value` (by script, by a write's response or from its
    /// source): passed on while connected, when it is a percentage.
    func reportBatteryLevel(_ value: [UInt8]) {
        guard link != nil, let percentage = value.first, percentage <= 100 else { return }
        batteryLevelNotified(percentage)
    }

    func notify(_ characteristic: BluetoothUUID, value: [UInt8]) throws(SimulatorError) {
        guard let node = characteristics.first(where: { $0.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        node.notify(value)
    }

    func whenNotifying(_ characteristic: BluetoothUUID, _ action: @escaping @Sendable () -> Void) throws(SimulatorError)
    {
        guard let node = characteristics.first(where: { $0.uuid == characteristic }) else {
            throw .unknownAttribute(characteristic)
        }
        node.whenNotifying(action)
    }

    func clientVanished(_ uniqueName: String) {
        for characteristic in characteristics { characteristic.endSession(of: uniqueName) }
    }

    func value(of attribute: BluetoothUUID) -> [UInt8]? {
        for characteristic in characteristics {
            if characteristic.uuid == attribute { return characteristic.value }
            if let descriptor = characteristic.descriptors.first(where: { $0.uuid == attribute }) {
                return descriptor.value
            }
        }
        return nil
    }
}
