import Ripple
import RippleDBus
import RippleLoop
import Synchronization

/// The core, as the exported objects' handlers reach it (set once the core is made; they answer
/// nothing before).
final class CoreLink: Sendable {
    private struct Reference {
        weak var core: PeripheralCore?
    }

    private let reference = LockedState(Reference())

    func set(_ core: PeripheralCore) {
        reference.withLock { $0.core = core }
    }

    /// The core, once set and while it lives.
    var core: PeripheralCore? { reference.withLock { $0.core } }

    /// The core when `invocation` comes from bluetoothd; else the invocation is answered AccessDenied
    /// (and nil returned).
    func core(answering invocation: DBusMethodInvocation) -> PeripheralCore? {
        guard let core else {
            _ = invocation.fail(BluetoothdOwner.accessDenied)
            return nil
        }
        return core.bluetoothd.admits(invocation) ? core : nil
    }
}

extension PeripheralCore {
    private static let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
    private static let bytes = DBusSignature(types: [.array(.byte)])
    private static let write = DBusSignature(types: [.array(.byte), .dictionary(key: .string, value: .variant)])

    /// The exported objects of `services` below `root`: `service<i>`, `service<i>/char<j>`,
    /// `service<i>/char<j>/desc<k>`, as bluetoothd's `GattManager1` expects them.
    static func build(
        _ services: [LocalService], root: DBusObjectPath, connection: DBusConnection, acquiresNotify: Bool,
        busQueueLimit: Int, link: CoreLink
    )
        throws(BluetoothError) -> (characteristics: [ServedCharacteristic], objects: [DBusExportedObject])
    {
        guard !services.isEmpty else {
            throw BluetoothError(.invalidArgument, "a GATT application needs at least one service")
        }
        for service in services {
            for characteristic in service.characteristics {
                guard characteristic.value.count <= maximumAttributeValueLength else {
                    throw .valueTooLong(characteristic.value.count, during: "serving \(characteristic.uuid)")
                }
                for descriptor in characteristic.descriptors where descriptor.value.count > maximumAttributeValueLength
                {
                    throw .valueTooLong(
                        descriptor.value.count, during: "serving \(descriptor.uuid) of \(characteristic.uuid)")
                }
            }
        }
        var characteristics: [ServedCharacteristic] = []
        var objects: [DBusExportedObject] = []
        do {
            for (serviceIndex, service) in services.enumerated() {
                let servicePath = try root.appending("service\(serviceIndex)")
                objects.append(
                    try DBusExportedObject(
                        path: servicePath,
                        interfaces: [
                            DBusInterface(
                                name: BlueZ.gattService,
                                properties: [
                                    DBusProperty(name: "UUID", initialValue: .string(service.uuid.uuidString)),
                                    DBusProperty(name: "Primary", initialValue: .boolean(service.isPrimary)),
                                ])
                        ]))
                for (index, description) in service.characteristics.enumerated() {
                    let path = try servicePath.appending("char\(index)")
                    let object = try DBusExportedObject(path: path)
                    let served = ServedCharacteristic(
                        description, service: service.uuid, object: object, connection: connection,
                        acquiresNotify: acquiresNotify, busQueueLimit: busQueueLimit)
                    try object.addInterface(characteristicInterface(served, service: servicePath, link: link))
                    characteristics.append(served)
                    objects.append(object)
                    for (descriptorIndex, descriptor) in description.descriptors.enumerated() {
                        objects.append(
                            try descriptorObject(
                                descriptor, at: path.appending("desc\(descriptorIndex)"), characteristic: path,
                                link: link))
                    }
                }
            }
        } catch {
            throw BluetoothError(error, during: "building the GATT application")
        }
        return (characteristics, objects)
    }

    /// The `GattCharacteristic1` interface of `characteristic`. Its handlers hold the characteristic weakly:
    /// the characteristic holds its exported object, which holds these handlers, and the core holds both
    /// (while the core lives, so does every characteristic; when it is gone, `link` answers AccessDenied).
    private static func characteristicInterface(
        _ characteristic: ServedCharacteristic, service: DBusObjectPath, link: CoreLink
    ) -> DBusInterface {
        var properties = [
            DBusProperty(name: "UUID", initialValue: .string(characteristic.reference.uuid.uuidString)),
            DBusProperty(name: "Service", initialValue: .objectPath(service)),
            DBusProperty(
                name: "Flags", initialValue: .array(.string, characteristic.properties.bluezNames.map(DBusValue.string))
            ),
            // Declared, never stored: a notification is a `PropertiesChanged` of it sent by hand (see
            // ``ServedCharacteristic/notify(_:)``; the same bytes twice are two notifications). bluetoothd reads
            // the value in that signal and nothing else of it (its reads are `ReadValue`); a stored copy would
            // cost a property update per notification and go stale on every write and socket notification.
            DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
        ]
        var methods: [DBusMethod] = []
        if characteristic.acquiresNotify {
            // Its presence tells bluetoothd to acquire the notifications through a socket.
            properties.append(DBusProperty(name: "NotifyAcquired", initialValue: .boolean(false)))
            methods.append(
                DBusMethod(
                    name: "AcquireNotify", inputSignature: options,
                    outputSignature: DBusSignature(types: [.unixFD, .uint16])
                ) { [weak characteristic] invocation in
                    guard let core = link.core(answering: invocation), let characteristic else { return }
                    characteristic.acquireNotify(invocation, loop: core.loop)
                })
        }
        return DBusInterface(
            name: BlueZ.characteristic,
            methods: methods + [
                DBusMethod(name: "ReadValue", inputSignature: options, outputSignature: bytes) {
                    [weak characteristic] invocation in
                    guard link.core(answering: invocation) != nil, let characteristic else { return }
                    read(characteristic, invocation)
                },
                DBusMethod(name: "WriteValue", inputSignature: write) { [weak characteristic] invocation in
                    guard let core = link.core(answering: invocation), let characteristic else { return }
                    core.write(characteristic, invocation)
                },
                DBusMethod(name: "StartNotify") { [weak characteristic] invocation in
                    guard link.core(answering: invocation) != nil, let characteristic else { return }
                    characteristic.setListened(true)
                    _ = invocation.reply()
                },
                DBusMethod(name: "StopNotify") { [weak characteristic] invocation in
                    guard link.core(answering: invocation) != nil, let characteristic else { return }
                    characteristic.setListened(false)
                    _ = invocation.reply()
                },
                DBusMethod(name: "Confirm") { invocation in
                    guard link.core(answering: invocation) != nil else { return }
                    _ = invocation.reply()
                },
            ],
            properties: properties)
    }

    private static func read(_ characteristic: ServedCharacteristic, _ invocation: DBusMethodInvocation) {
        let request = ReadRequest(options: invocation.call.arguments.first?.stringVariantDictionary ?? [:])
        guard characteristic.properties.contains(.read) else { return answer(invocation, .failure(.readNotPermitted)) }
        guard let handler = characteristic.onRead else {
            return answer(invocation, characteristic.read(from: request.offset))
        }
        Task {
            do throws(ATTError) {
                answer(invocation, .success(try await handler(request)))
            } catch {
                answer(invocation, .failure(error))
            }
        }
    }

    private static func answer(_ invocation: DBusMethodInvocation, _ result: Result<[UInt8], ATTError>) {
        switch result {
        case .success(let bytes): _ = invocation.reply([.bytes(bytes)])
        case .failure(let error):
            let reply = error.bluezReply
            _ = invocation.fail(.remote(name: reply.name, message: reply.message))
        }
    }

    /// A central wrote: bluetoothd waits for the answer unless it sent the call without expecting one (a
    /// write command, or any write of a characteristic that allows them).
    private func write(_ characteristic: ServedCharacteristic, _ invocation: DBusMethodInvocation) {
        let arguments = invocation.call.arguments
        let options = arguments.count > 1 ? arguments[1].stringVariantDictionary ?? [:] : [:]
        let type = options["type"]?.unwrappingVariants.string
        let wantsResponse = !invocation.call.message.noReplyExpected && type != "command"
        let read = ReadRequest(options: options)
        let request = WriteRequest(
            value: arguments.first?.bytes ?? [], offset: read.offset, mtu: read.mtu, device: read.device,
            wantsResponse: wantsResponse, responder: WriteResponder(invocation: wantsResponse ? invocation : nil))
        if !wantsResponse { _ = invocation.reply() }
        let allowed = characteristic.properties.isDisjoint(with: [.write, .writeWithoutResponse]) == false
        guard allowed else {
            request.respond(.failure(.writeNotPermitted))
            return
        }
        characteristic.write(request)
    }

    private static func descriptorObject(
        _ descriptor: LocalDescriptor, at path: DBusObjectPath, characteristic: DBusObjectPath, link: CoreLink
    ) throws(DBusError) -> DBusExportedObject {
        let value = LockedState(descriptor.value)
        return try DBusExportedObject(
            path: path,
            interfaces: [
                DBusInterface(
                    name: BlueZ.descriptor,
                    methods: [
                        DBusMethod(name: "ReadValue", inputSignature: options, outputSignature: bytes) { invocation in
                            guard link.core(answering: invocation) != nil else { return }
                            let offset = ReadRequest(
                                options: invocation.call.arguments.first?.stringVariantDictionary ?? [:]
                            ).offset
                            let bytes = value.withLock { $0 }
                            answer(
                                invocation,
                                offset <= bytes.count ? .success(Array(bytes[offset...])) : .failure(.invalidOffset))
                        },
                        DBusMethod(name: "WriteValue", inputSignature: write) { invocation in
                            guard link.core(answering: invocation) != nil else { return }
                            guard descriptor.properties.contains(.write) else {
                                let reply = ATTError.writeNotPermitted.bluezReply
                                _ = invocation.fail(.remote(name: reply.name, message: reply.message))
                                return
                            }
                            let bytes = invocation.call.arguments.first?.bytes ?? []
                            value.withLock { $0 = bytes }
                            _ = invocation.reply()
                        },
                    ],
                    properties: [
                        DBusProperty(name: "UUID", initialValue: .string(descriptor.uuid.uuidString)),
                        DBusProperty(name: "Characteristic", initialValue: .objectPath(characteristic)),
                        DBusProperty(
                            name: "Flags",
                            initialValue: .array(.string, descriptor.properties.bluezNames.map(DBusValue.string))),
                    ])
            ])
    }
}
