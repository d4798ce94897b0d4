import Ripple
import RippleDBus
import RippleLoop

/// One descriptor of a characteristic: the peripheral's value and handlers, and while connected its
/// `GattDescriptor1` object (loop-confined). The Client Characteristic Configuration descriptor shows
/// whether notifications are on and refuses writes, as bluetoothd does.
final class GATTDescriptorNode: Sendable {
    let description: SimulatedDescriptor
    let handle: UInt16
    /// The database it belongs to (set once, when the database is built).
    nonisolated(unsafe) weak var server: GATTServer?
    /// The characteristic it belongs to (set once the characteristic exists).
    nonisolated(unsafe) weak var characteristic: GATTCharacteristicNode?
    nonisolated(unsafe) var value: [UInt8]
    nonisolated(unsafe) private var object: DBusExportedObject?
    nonisolated(unsafe) private var pendingWrite: DBusMethodInvocation?

    init(_ description: SimulatedDescriptor, handle: UInt16) {
        self.description = description
        self.handle = handle
        self.value = description.value
    }

    var uuid: BluetoothUUID { description.uuid }
    var isConfiguration: Bool { uuid == GATTInterface.cccd }

    func export(at path: DBusObjectPath, characteristic: DBusObjectPath, link: PeripheralLink) throws(DBusError) {
        let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        let interface = DBusInterface(
            name: GATTInterface.descriptor,
            methods: [
                DBusMethod(
                    name: "ReadValue", inputSignature: options, outputSignature: DBusSignature(types: [.array(.byte)]),
                    inputNames: ["options"], outputNames: ["value"]
                ) { [weak self] invocation in
                    self?.readValue(invocation) ?? GATTCharacteristicNode.notConnected(invocation)
                },
                DBusMethod(
                    name: "WriteValue",
                    inputSignature: DBusSignature(types: [.array(.byte), .dictionary(key: .string, value: .variant)]),
                    inputNames: ["value", "options"]
                ) { [weak self] invocation in
                    self?.writeValue(invocation) ?? GATTCharacteristicNode.notConnected(invocation)
                },
            ],
            properties: [
                DBusProperty(name: "UUID", initialValue: .string(uuid.uuidString)),
                DBusProperty(name: "Characteristic", initialValue: .objectPath(characteristic)),
                DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
                DBusProperty(
                    name: "Flags", initialValue: .array(.string, description.flags.bluezNames.map(DBusValue.string))),
                DBusProperty(name: "Handle", initialValue: .uint16(handle)),
            ])
        let object = try DBusExportedObject(path: path, interfaces: [interface])
        try link.connection.export(object)
        self.object = object
    }

    /// The link is gone: a write under way fails (the object stays, cached).
    func linkEnded() {
        if let pendingWrite {
            self.pendingWrite = nil
            GATTCharacteristicNode.notConnected(pendingWrite)
        }
    }

    /// The object goes with the device (or bluetoothd).
    func unexport(connection: DBusConnection) {
        linkEnded()
        if let object { connection.unexport(object.path) }
        object = nil
    }

    private func readValue(_ invocation: DBusMethodInvocation) {
        guard let link = server?.link else { return GATTCharacteristicNode.notConnected(invocation) }
        let options: GATTOptions
        do { options = try GATTOptions(invocation.call.arguments.first) } catch { return fail(invocation, error) }
        let answer = { [weak self] in
            guard let self else { return GATTCharacteristicNode.notConnected(invocation) }
            let result = Result { () throws(BlueZError) -> [UInt8] in
                if self.isConfiguration {
                    let on = self.characteristic?.notificationsEnabled ?? false
                    let indicate =
                        self.characteristic?.flags.contains(.indicate) == true
                        && self.characteristic?.flags.contains(.notify) == false
                    self.value = on ? (indicate ? [0x02, 0x00] : [0x01, 0x00]) : [0x00, 0x00]
                }
                guard self.description.flags.contains(.read) || self.isConfiguration else {
                    throw BlueZError.attError(0x02)
                }
                guard options.offset <= self.value.count else { throw BlueZError.attError(0x07) }
                let request = GATTReadRequest(
                    offset: options.offset, storedValue: self.value, mtu: link.mtu, client: invocation.call.sender)
                if let onRead = self.description.onRead { return try onRead(request) }
                return Array(self.value[options.offset...])
            }
            switch result {
            case .success(let bytes):
                if let object = self.object {
                    emitValueChanged(object, interface: GATTInterface.descriptor, value: bytes)
                }
                _ = invocation.reply([.bytes(bytes)])
            case .failure(let error):
                self.fail(invocation, error)
            }
        }
        run(server?.takeFault(.readDescriptor(uuid)), invocation, link: link, answer)
    }

    private func writeValue(_ invocation: DBusMethodInvocation) {
        guard let link = server?.link else { return GATTCharacteristicNode.notConnected(invocation) }
        if pendingWrite != nil { return fail(invocation, .inProgress) }
        let arguments = invocation.call.arguments
        guard let bytes = arguments.first?.bytes else { return fail(invocation, .invalidArguments) }
        let options: GATTOptions
        do { options = try GATTOptions(arguments.count > 1 ? arguments[1] : nil) } catch {
            return fail(invocation, error)
        }
        if isConfiguration { return fail(invocation, .notPermitted("Write not permitted")) }
        pendingWrite = invocation
        let answer = { [weak self] in
            guard let self, self.pendingWrite != nil else { return }
            self.pendingWrite = nil
            guard self.description.flags.contains(.write) else { return self.fail(invocation, .attError(0x03)) }
            guard options.offset <= self.value.count else { return self.fail(invocation, .attError(0x07)) }
            let request = GATTWriteRequest(
                value: bytes, offset: options.offset, kind: .request, storedValue: self.value, mtu: link.mtu,
                client: invocation.call.sender)
            do throws(BlueZError) {
                let response = try self.description.onWrite?(request) ?? .accept
                self.value = response.storedValue ?? (Array(self.value.prefix(options.offset)) + bytes)
                _ = invocation.reply()
                for notification in response.notifications {
                    _ = try? self.server?.notify(
                        notification.characteristic ?? self.characteristic?.uuid ?? self.uuid, value: notification.value
                    )
                }
            } catch {
                self.fail(invocation, error)
            }
        }
        run(server?.takeFault(.writeDescriptor(uuid)), invocation, link: link, answer)
    }

    /// Answers under `fault` (see ``OperationFault``).
    private func run(
        _ fault: OperationFault?, _ invocation: DBusMethodInvocation, link: PeripheralLink,
        _ answer: @escaping () -> Void
    ) {
        switch fault {
        case nil, .connectWithoutConnectedSignal?: answer()
        case .fail(let error)?:
            pendingWrite = nil
            fail(invocation, error)
        case .delay(let delay)?:
            link.loop.later(delay, answer)
        case .failAfter(let delay, let error)?:
            link.loop.later(delay) { [weak self] in
                self?.pendingWrite = nil
                _ = invocation.fail(error.dbusError)
            }
        case .disconnect(let reason)?:
            link.loop.later(.zero) {
                link.dropLink(reason)
                GATTCharacteristicNode.notConnected(invocation)
            }
        }
    }

    private func fail(_ invocation: DBusMethodInvocation, _ error: BlueZError) {
        _ = invocation.fail(error.dbusError)
    }
}
