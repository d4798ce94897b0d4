import RippleDBus

/// The GATT database of an application registered through `GattManager1.RegisterApplication`, read from
/// its object manager as bluetoothd reads it: its services, their characteristics and descriptors, each
/// with the object path that answers for it in the application.
struct ApplicationDatabase: Sendable {
    /// A descriptor of the application.
    struct Descriptor: Sendable {
        let path: DBusObjectPath
        let uuid: BluetoothUUID
        let flags: [String]
    }

    /// A characteristic of the application.
    struct Characteristic: Sendable {
        let path: DBusObjectPath
        let uuid: BluetoothUUID
        let flags: CharacteristicProperties
        /// Whether the application offers `AcquireNotify` (it has a `NotifyAcquired` property).
        let acquiresNotify: Bool
        let descriptors: [Descriptor]
    }

    /// A service of the application.
    struct Service: Sendable {
        let path: DBusObjectPath
        let uuid: BluetoothUUID
        let isPrimary: Bool
        let characteristics: [Characteristic]
    }

    /// The unique bus name of the application's connection.
    let owner: String
    /// The root it was registered with.
    let root: DBusObjectPath
    /// Its services, in object path order.
    let services: [Service]

    /// The database in `managedObjects` (`GetManagedObjects`'s answer) of the application `owner` at `root`.
    ///
    /// Throws ``BlueZError`` `Failed` when an object is malformed or the application has no service,
    /// as bluetoothd refuses such an application.
    init(owner: String, root: DBusObjectPath, managedObjects: DBusValue) throws(BlueZError) {
        self.owner = owner
        self.root = root
        guard let entries = managedObjects.dictionaryEntries else { throw .failed("Failed to read the application") }
        var objects: [(path: DBusObjectPath, interfaces: [String: [String: DBusValue]])] = []
        for entry in entries {
            guard let path = entry.key.objectPath, let interfaceEntries = entry.value.dictionaryEntries else {
                throw .failed("Failed to read the application")
            }
            var interfaces: [String: [String: DBusValue]] = [:]
            for interface in interfaceEntries {
                guard let name = interface.key.string, let properties = interface.value.stringVariantDictionary else {
                    throw .failed("Failed to read the application")
                }
                interfaces[name] = properties.mapValues(\.unwrappingVariants)
            }
            objects.append((path, interfaces))
        }
        objects.sort { $0.path.rawValue < $1.path.rawValue }
        func uuid(_ properties: [String: DBusValue], _ kind: String, _ path: DBusObjectPath) throws(BlueZError)
            -> BluetoothUUID
        {
            guard let text = properties["UUID"]?.string else { throw .failed("The \(kind) \(path) has no UUID") }
            guard let uuid = try? BluetoothUUID(text) else {
                throw .failed("The \(kind) \(path) has the malformed UUID \(text)")
            }
            return uuid
        }
        var services: [Service] = []
        for (path, interfaces) in objects {
            guard let service = interfaces[GATTInterface.service] else { continue }
            var characteristics: [Characteristic] = []
            for (characteristicPath, characteristicInterfaces) in objects {
                guard let characteristic = characteristicInterfaces[GATTInterface.characteristic],
                    characteristic["Service"]?.objectPath == path
                else { continue }
                let names = characteristic["Flags"]?.arrayElements?.compactMap(\.string) ?? []
                guard let flags = CharacteristicProperties(bluezNames: names.filter(Self.isCharacteristicFlag)) else {
                    throw .failed("The characteristic \(characteristicPath) has unknown flags \(names)")
                }
                var descriptors: [Descriptor] = []
                for (descriptorPath, descriptorInterfaces) in objects {
                    guard let descriptor = descriptorInterfaces[GATTInterface.descriptor],
                        descriptor["Characteristic"]?.objectPath == characteristicPath
                    else { continue }
                    descriptors.append(
                        Descriptor(
                            path: descriptorPath, uuid: try uuid(descriptor, "descriptor", descriptorPath),
                            flags: descriptor["Flags"]?.arrayElements?.compactMap(\.string) ?? []))
                }
                characteristics.append(
                    Characteristic(
                        path: characteristicPath, uuid: try uuid(characteristic, "characteristic", characteristicPath),
                        flags: flags, acquiresNotify: characteristic["NotifyAcquired"] != nil, descriptors: descriptors)
                )
            }
            services.append(
                Service(
                    path: path, uuid: try uuid(service, "service", path),
                    isPrimary: service["Primary"]?.boolean ?? true, characteristics: characteristics))
        }
        guard !services.isEmpty else { throw .failed("No valid service object found") }
        self.services = services
    }

    /// Whether `name` is a flag the client side shows (the server-only `*-notify`, `*-indicate` and
    /// `secure-*` flags are not).
    private static func isCharacteristicFlag(_ name: String) -> Bool {
        !(name.hasSuffix("-notify") || name.hasSuffix("-indicate") || name.hasPrefix("secure-"))
    }

    /// The characteristic whose application object is at `path`.
    func characteristic(at path: DBusObjectPath) -> Characteristic? {
        for service in services {
            if let found = service.characteristics.first(where: { $0.path == path }) { return found }
        }
        return nil
    }
}
