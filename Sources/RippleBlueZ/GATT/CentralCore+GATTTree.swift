import RippleDBus

extension CentralCore {
    /// The services of the device at `path` as the tree has them now.
    func services(of device: DBusObjectPath) -> [GATTService] {
        let prefix = device.description + "/"
        return mirror.withLock { mirror -> [GATTService] in
            func below(_ interface: String) -> [DBusObjectPath] {
                mirror.tree.objects(implementing: interface).filter { $0.description.hasPrefix(prefix) }
                    .sorted { $0.description < $1.description }
            }
            let descriptors = below(BlueZ.descriptor)
            let characteristics = below(BlueZ.characteristic)
            return below(BlueZ.gattService).compactMap { servicePath in
                let properties = mirror.tree.properties(of: servicePath, interface: BlueZ.gattService) ?? [:]
                guard let uuid = properties["UUID"]?.string.flatMap(BluetoothUUID.init(uuidString:)) else { return nil }
                let chars = characteristics.filter {
                    mirror.tree.properties(of: $0, interface: BlueZ.characteristic)?["Service"]?.objectPath
                        == servicePath
                }.compactMap { path -> GATTCharacteristic? in
                    let properties = mirror.tree.properties(of: path, interface: BlueZ.characteristic) ?? [:]
                    guard let uuid = properties["UUID"]?.string.flatMap(BluetoothUUID.init(uuidString:)) else {
                        return nil
                    }
                    let descs = descriptors.filter {
                        mirror.tree.properties(of: $0, interface: BlueZ.descriptor)?["Characteristic"]?.objectPath
                            == path
                    }.compactMap { descriptorPath -> GATTDescriptor? in
                        guard
                            let uuid = mirror.tree.properties(of: descriptorPath, interface: BlueZ.descriptor)?["UUID"]?
                                .string
                                .flatMap(BluetoothUUID.init(uuidString:))
                        else { return nil }
                        return GATTDescriptor(uuid: uuid, path: descriptorPath)
                    }
                    return GATTCharacteristic(
                        uuid: uuid, serviceUUID: nil,
                        flags: (properties["Flags"]?.arrayElements ?? []).compactMap(\.string), path: path,
                        descriptors: descs)
                }.map { characteristic -> GATTCharacteristic in
                    var characteristic = characteristic
                    characteristic.serviceUUID = uuid
                    return characteristic
                }
                return GATTService(
                    uuid: uuid, isPrimary: properties["Primary"]?.boolean ?? true, path: servicePath,
                    characteristics: chars)
            }
        }
    }

    /// Checks that `peripheral` is ready for GATT operations: connected and resolved as this central
    /// sees it (its connection tasks running counts), or — when this central has not been involved —
    /// as bluetoothd's tree says.
    ///
    /// - Parameter peripheral: the peripheral.
    /// - Returns: nil when operations can run, else why not.
    func gattError(_ peripheral: Peripheral) -> BluetoothError? {
        if let error = operationError() { return error }
        let (properties, phase) = mirror.withLock { mirror in
            (mirror.tree.properties(of: peripheral.path, interface: BlueZ.device), mirror.phases[peripheral.path])
        }
        guard let properties else {
            return BluetoothError(.peripheralNotFound, "bluetoothd no longer knows \(peripheral.address)")
        }
        let usable: Bool
        switch phase ?? .unknown {
        case .ready, .runningTasks: usable = true
        case .connecting, .linkUp, .down: usable = false
        case .unknown: usable = properties["ServicesResolved"]?.boolean == true
        }
        guard usable else {
            return BluetoothError(
                .notConnected, "\(peripheral.address) is not connected (or its services are not resolved yet)")
        }
        return nil
    }

    /// The characteristic `reference` names on `peripheral`.
    func characteristic(_ reference: CharacteristicReference, of peripheral: Peripheral) -> Result<
        GATTCharacteristic, BluetoothError
    > {
        if let error = gattError(peripheral) { return .failure(error) }
        for service in services(of: peripheral.path) where reference.service == nil || reference.service == service.uuid
        {
            if let found = service.characteristics.first(where: { $0.uuid == reference.uuid }) {
                return .success(found)
            }
        }
        return .failure(BluetoothError(.attributeNotFound, "\(peripheral.address) has no characteristic \(reference)"))
    }
}
