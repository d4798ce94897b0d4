import Ripple
import RippleDBus
import RippleLoop

/// One characteristic of a peripheral's GATT database: the peripheral's value and handlers, and while
/// connected its `GattCharacteristic1` object, notification sessions, acquired sockets and outstanding
/// operations (loop-confined).
final class GATTCharacteristicNode: Sendable {
    let description: SimulatedCharacteristic
    let declarationHandle: UInt16
    let descriptors: [GATTDescriptorNode]
    /// The database it belongs to (set once, when the database is built).
    nonisolated(unsafe) weak var server: GATTServer?
    /// The value the peripheral holds.
    nonisolated(unsafe) var value: [UInt8]
    nonisolated(unsafe) private(set) var object: DBusExportedObject?
    /// Clients with a `StartNotify` session, in order.
    nonisolated(unsafe) private(set) var sessions: [String] = []
    nonisolated(unsafe) private var notifySocket: AcquiredSocket?
    nonisolated(unsafe) private var writeSocket: AcquiredSocket?
    /// The read under way: its offset and every call waiting for it.
    nonisolated(unsafe) private var pendingRead: (offset: Int, invocations: [DBusMethodInvocation])?
    /// The write under way.
    nonisolated(unsafe) private var pendingWrite: DBusMethodInvocation?
    /// Timers of delayed answers, cancelled when the link goes.
    nonisolated(unsafe) private var timers: [AnyCancellable] = []
    /// The notification source pumping `PropertiesChanged` while sessions exist.
    nonisolated(unsafe) private var pump: SignalNotificationPump?
    /// Whether this is a Battery Level (0x2A19), whose notified values bluetoothd's battery plugin reads.
    private let isBatteryLevel: Bool
    /// Run once the next time a client enables notifications (see ``whenNotifying(_:)``).
    nonisolated(unsafe) private var notifyingWaiters: [@Sendable () -> Void] = []
    /// Shuffled order: a `StartNotify` whose CCC write is answered after the peripheral's first
    /// notification (its session already receives them), with the timer that answers it if none comes.
    nonisolated(unsafe) private var lateStart: (invocation: DBusMethodInvocation, timer: AnyCancellable)?

    init(_ description: SimulatedCharacteristic, declarationHandle: UInt16, descriptors: [GATTDescriptorNode]) {
        self.description = description
        self.declarationHandle = declarationHandle
        self.descriptors = descriptors
        self.value = description.value
        self.isBatteryLevel = description.uuid == .batteryLevel
    }

    var uuid: BluetoothUUID { description.uuid }
    var flags: CharacteristicProperties { description.flags }
    var valueHandle: UInt16 { declarationHandle &+ 1 }
    var link: PeripheralLink? { server?.link }
    var notificationsEnabled: Bool { !sessions.isEmpty || notifySocket != nil }

    // MARK: Export

    func export(at path: DBusObjectPath, service: DBusObjectPath, link: PeripheralLink) throws(DBusError) {
        var properties: [DBusProperty] = [
            DBusProperty(name: "UUID", initialValue: .string(uuid.uuidString)),
            DBusProperty(name: "Service", initialValue: .objectPath(service)),
            DBusProperty(absent: "Value", type: .array(.byte), changeEmission: .none),
            DBusProperty(name: "Flags", initialValue: .array(.string, flags.bluezNames.map(DBusValue.string))),
            DBusProperty(name: "Handle", initialValue: .uint16(declarationHandle)),
            DBusProperty(name: "MTU", initialValue: .uint16(UInt16(clamping: link.mtu))),
        ]
        if flags.canNotify {
            properties.append(DBusProperty(name: "Notifying", initialValue: .boolean(false)))
        }
        // bluetoothd has NotifyAcquired only for characteristics that notify (AcquireNotify itself also
        // accepts indicate-only ones).
        if flags.contains(.notify) {
            properties.append(DBusProperty(name: "NotifyAcquired", initialValue: .boolean(false)))
        }
        if flags.contains(.writeWithoutResponse) {
            properties.append(DBusProperty(name: "WriteAcquired", initialValue: .boolean(false)))
        }
        let options = DBusSignature(types: [.dictionary(key: .string, value: .variant)])
        let acquired = DBusSignature(types: [.unixFD, .uint16])
        let interface = DBusInterface(
            name: GATTInterface.characteristic,
            methods: [
                DBusMethod(
                    name: "ReadValue", inputSignature: options, outputSignature: DBusSignature(types: [.array(.byte)]),
                    inputNames: ["options"], outputNames: ["value"]
                ) { [weak self] invocation in
                    self?.readValue(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(
                    name: "WriteValue",
                    inputSignature: DBusSignature(types: [.array(.byte), .dictionary(key: .string, value: .variant)]),
                    inputNames: ["value", "options"]
                ) { [weak self] invocation in
                    self?.writeValue(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(name: "StartNotify") { [weak self] invocation in
                    self?.startNotify(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(name: "StopNotify") { [weak self] invocation in
                    self?.stopNotify(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(
                    name: "AcquireNotify", inputSignature: options, outputSignature: acquired,
                    inputNames: ["options"], outputNames: ["fd", "mtu"]
                ) { [weak self] invocation in
                    self?.acquireNotify(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(
                    name: "AcquireWrite", inputSignature: options, outputSignature: acquired,
                    inputNames: ["options"], outputNames: ["fd", "mtu"]
                ) { [weak self] invocation in
                    self?.acquireWrite(invocation) ?? Self.notConnected(invocation)
                },
                DBusMethod(name: "Confirm") { _ in [] },
            ],
            properties: properties)
        let object = try DBusExportedObject(path: path, interfaces: [interface])
        try link.connection.export(object)
        self.object = object
        for descriptor in descriptors {
            try descriptor.export(
                at: path.appending(handleComponent("desc", descriptor.handle)), characteristic: path, link: link)
        }
    }

    /// The link is gone: outstanding operations fail, sockets close and the source stops; the object
    /// and the `StartNotify` sessions stay, as in bluetoothd's attribute cache (`Notifying` keeps its
    /// value, and the sessions notify again when the link is back).
    func linkEnded() {
        if let lateStart {
            self.lateStart = nil
            Self.notConnected(lateStart.invocation)
        }
        if let pendingRead {
            self.pendingRead = nil
            for invocation in pendingRead.invocations { Self.notConnected(invocation) }
        }
        if let pendingWrite {
            self.pendingWrite = nil
            Self.notConnected(pendingWrite)
        }
        timers.removeAll()
        pump = nil
        if notifySocket != nil { releaseNotifySocket() }
        if writeSocket != nil { releaseWriteSocket() }
        for descriptor in descriptors { descriptor.linkEnded() }
    }

    /// The link is back on the cached object: its MTU, and the kept sessions' notifications.
    func linkRestored(_ link: PeripheralLink) {
        _ = try? object?.setProperty("MTU", of: GATTInterface.characteristic, to: .uint16(UInt16(clamping: link.mtu)))
        guard !sessions.isEmpty else { return }
        setNotifying(true)
        startSource()
    }

    /// The object goes (the device, or bluetoothd): the link's end, every session, the objects.
    func unexport(connection: DBusConnection) {
        linkEnded()
        sessions.removeAll()
        for descriptor in descriptors { descriptor.unexport(connection: connection) }
        if let object { connection.unexport(object.path) }
        object = nil
    }

    static func notConnected(_ invocation: DBusMethodInvocation) {
        _ = invocation.fail(BlueZError.failed("Not connected").dbusError)
    }

    private func fail(_ invocation: DBusMethodInvocation, _ error: BlueZError) {
        _ = invocation.fail(error.dbusError)
    }

    /// Carries out an operation under `fault`: `run` at once or after a delay, or `failed` with the
    /// fault's error (at once or after its delay), or the link dropped while the operation is outstanding.
    /// Returns the timer of a delayed outcome.
    private func apply(
        _ fault: OperationFault?, to invocation: DBusMethodInvocation, failed: ((BlueZError) -> Void)? = nil,
        run: @escaping () -> Void
    ) -> AnyCancellable? {
        let failed = failed ?? { error in _ = invocation.fail(error.dbusError) }
        guard let link else {
            failed(.failed("Not connected"))
            return nil
        }
        let timer: AnyCancellable
        switch fault {
        case nil, .connectWithoutConnectedSignal?:
            run()
            return nil
        case .fail(let error)?:
            failed(error)
            return nil
        case .delay(let delay)?:
            timer = link.loop.after(delay, run)
        case .failAfter(let delay, let error)?:
            timer = link.loop.after(delay) { failed(error) }
        case .disconnect(let reason)?:
            timer = link.loop.after(.zero) { link.dropLink(reason) }
        }
        timers.append(timer)
        return timer
    }

    // MARK: Read

    private func readValue(_ invocation: DBusMethodInvocation) {
        guard link != nil else { return Self.notConnected(invocation) }
        let options: GATTOptions
        do { options = try GATTOptions(invocation.call.arguments.first) } catch { return fail(invocation, error) }
        if let pendingRead {
            guard pendingRead.offset == options.offset else { return fail(invocation, .inProgress) }
            self.pendingRead?.invocations.append(invocation)
            return
        }
        pendingRead = (options.offset, [invocation])
        let client = invocation.call.sender
        let timer = apply(
            server?.takeFault(.read(uuid)), to: invocation,
            failed: { [weak self] error in
                let waiting = self?.pendingRead?.invocations ?? [invocation]
                self?.pendingRead = nil
                for waiter in waiting { _ = waiter.fail(error.dbusError) }
            },
            run: { [weak self] in self?.completeRead(offset: options.offset, client: client) })
        _ = timer
    }

    private func completeRead(offset: Int, client: String?) {
        guard let pending = pendingRead else { return }
        pendingRead = nil
        let result: Result<[UInt8], BlueZError> = Result { () throws(BlueZError) -> [UInt8] in
            guard flags.contains(.read) else { throw BlueZError.attError(0x02) }
            guard offset <= value.count else { throw BlueZError.attError(0x07) }
            let request = GATTReadRequest(offset: offset, storedValue: value, mtu: link?.mtu ?? 23, client: client)
            if let onRead = description.onRead { return try onRead(request) }
            return Array(value[offset...])
        }
        switch result {
        case .success(let bytes):
            let cached = offset == 0 ? bytes : Array(value.prefix(offset)) + bytes
            if description.onRead != nil, offset == 0 { value = bytes }
            if let object { emitValueChanged(object, interface: GATTInterface.characteristic, value: cached) }
            for invocation in pending.invocations { _ = invocation.reply([.bytes(bytes)]) }
        case .failure(let error):
            for invocation in pending.invocations { _ = invocation.fail(error.dbusError) }
        }
    }

    // MARK: Write

    private func writeValue(_ invocation: DBusMethodInvocation) {
        guard link != nil else { return Self.notConnected(invocation) }
        if writeSocket != nil { return fail(invocation, .notPermitted("Write acquired")) }
        if pendingWrite != nil { return fail(invocation, .inProgress) }
        let arguments = invocation.call.arguments
        guard let bytes = arguments.first?.bytes else { return fail(invocation, .invalidArguments) }
        let options: GATTOptions
        do { options = try GATTOptions(arguments.count > 1 ? arguments[1] : nil) } catch {
            return fail(invocation, error)
        }
        let kind: GATTWriteKind
        switch options.type {
        case "reliable"?: kind = .reliable
        case "request"?: kind = .request
        case "command"? where options.offset == 0: kind = .command
        case nil where flags.contains(.reliableWrite): kind = .reliable
        case nil where flags.contains(.write): kind = .request
        case nil where flags.contains(.writeWithoutResponse) && options.offset == 0: kind = .command
        default: return fail(invocation, .notSupported)
        }
        let client = invocation.call.sender
        let fault = server?.takeFault(.write(uuid))
        if kind == .command, fault == nil {
            _ = invocation.reply()
            if flags.contains(.writeWithoutResponse) {
                _ = peripheralWrite(bytes, offset: 0, kind: .command, client: client)
            }
            return
        }
        pendingWrite = invocation
        let timer = apply(
            fault, to: invocation,
            failed: { [weak self] error in
                self?.pendingWrite = nil
                _ = invocation.fail(error.dbusError)
            },
            run: { [weak self] in self?.completeWrite(bytes, offset: options.offset, kind: kind, client: client) })
        _ = timer
    }

    private func completeWrite(_ bytes: [UInt8], offset: Int, kind: GATTWriteKind, client: String?) {
        guard let pending = pendingWrite else { return }
        pendingWrite = nil
        if kind == .command {
            _ = pending.reply()
            if flags.contains(.writeWithoutResponse) {
                _ = peripheralWrite(bytes, offset: 0, kind: .command, client: client)
            }
            return
        }
        guard flags.contains(.write) || (kind == .reliable && flags.contains(.reliableWrite)) else {
            return fail(pending, .attError(0x03))
        }
        switch peripheralWrite(bytes, offset: offset, kind: kind, client: client, reply: pending) {
        case .success: break
        case .failure(let error): fail(pending, error)
        }
    }

    /// The peripheral takes a write: the handler (or the default: the bytes stored at the offset) decides
    /// the value, the call (if any) is answered, then the handler's notifications go out.
    @discardableResult
    func peripheralWrite(
        _ bytes: [UInt8], offset: Int, kind: GATTWriteKind, client: String?,
        reply invocation: DBusMethodInvocation? = nil
    ) -> Result<Void, BlueZError> {
        guard offset <= value.count else { return .failure(.attError(0x07)) }
        let request = GATTWriteRequest(
            value: bytes, offset: offset, kind: kind, storedValue: value, mtu: link?.mtu ?? 23, client: client)
        let response: GATTWriteResponse
        if let onWrite = description.onWrite {
            do { response = try onWrite(request) } catch { return .failure(error) }
        } else {
            response = .accept
        }
        value = response.storedValue ?? (Array(value.prefix(offset)) + bytes)
        // Shuffled: the peripheral may send its notifications before its write response; bluetoothd
        // passes both on in the order they arrive.
        let notifiesFirst =
            invocation != nil && !response.notifications.isEmpty
            && link?.outbox?.draw(.writeNotifications) { $0.oneIn(2) } == true
        if let invocation, !notifiesFirst { _ = invocation.reply() }
        for notification in response.notifications {
            _ = try? server?.notify(notification.characteristic ?? uuid, value: notification.value)
        }
        if let invocation, notifiesFirst { _ = invocation.reply() }
        return .success(())
    }

    // MARK: Notifications

    /// The peripheral notifies `bytes`: stored, and sent where notifications are enabled.
    func notify(_ bytes: [UInt8]) {
        value = bytes
        if isBatteryLevel { server?.reportBatteryLevel(bytes) }
        if let notifySocket {
            notifySocket.send(notified(bytes))
            link?.statistics.recordSocketNotifications(1)
        } else if !sessions.isEmpty, link != nil, let object {
            emitValueChanged(object, interface: GATTInterface.characteristic, value: notified(bytes))
            link?.statistics.recordSignalNotifications(1)
            finishLateStart()
        }
    }

    /// What a notification of `bytes` carries over the link: an ATT Handle Value Notification holds at most
    /// MTU − 3 bytes of the value, so a longer value arrives cut to that length (the peripheral keeps it whole:
    /// a read returns all of it).
    private func notified(_ bytes: [UInt8]) -> [UInt8] {
        guard let link, bytes.count > link.mtu - 3 else { return bytes }
        return Array(bytes.prefix(Swift.max(link.mtu - 3, 0)))
    }

    /// Notifications on or off: `Notifying` for `StartNotify` sessions; for an acquired socket
    /// (`acquired` given) only `NotifyAcquired` changes, as bluetoothd 5.66 signals it.
    private func setNotifying(_ notifying: Bool, acquired: Bool? = nil) {
        if let acquired {
            if flags.contains(.notify) {
                _ = try? object?.setProperty("NotifyAcquired", of: GATTInterface.characteristic, to: .boolean(acquired))
            }
        } else {
            _ = try? object?.setProperty("Notifying", of: GATTInterface.characteristic, to: .boolean(notifying))
        }
        if notifying { runNotifyingWaiters() }
    }

    private func runNotifyingWaiters() {
        let waiters = notifyingWaiters
        notifyingWaiters = []
        for waiter in waiters { waiter() }
    }

    /// Runs `action` once a client has notifications enabled (a `StartNotify` session or an acquired
    /// socket): at once if one has, else when the next one does, across reconnections.
    func whenNotifying(_ action: @escaping @Sendable () -> Void) {
        if notificationsEnabled { action() } else { notifyingWaiters.append(action) }
    }

    /// `StartNotify`: a session for the caller. Without a link bluetoothd 5.66 still takes the session
    /// (and enables it when the link is back), unless the caller's session from before is still waiting
    /// for that ("In Progress").
    private func startNotify(_ invocation: DBusMethodInvocation) {
        if notifySocket != nil { return fail(invocation, .notPermitted("Notify acquired")) }
        guard flags.canNotify else { return fail(invocation, .notSupported) }
        let client = invocation.call.sender ?? ""
        guard link != nil else {
            if sessions.contains(client) { return fail(invocation, .inProgress) }
            sessions.append(client)
            _ = invocation.reply()
            return
        }
        if sessions.contains(client) {
            _ = invocation.reply()
            return
        }
        _ = apply(server?.takeFault(.startNotify(uuid)), to: invocation) { [weak self] in
            guard let self, self.link != nil else { return Self.notConnected(invocation) }
            if self.sessions.contains(client) {
                _ = invocation.reply()
                return
            }
            self.sessions.append(client)
            if self.sessions.count == 1 {
                if let link = self.link, let outbox = link.outbox, outbox.draw(.startNotify, { $0.oneIn(2) }) {
                    return self.startLate(invocation, link: link)
                }
                self.setNotifying(true)
                _ = invocation.reply()
                self.startSource()
            } else {
                _ = invocation.reply()
            }
        }
    }

    /// Shuffled: the CCC write reached the peripheral, which notifies at once, and its response comes
    /// after the first notification (shared/gatt-client.c hands notifications to a session whose CCC write
    /// is still pending; gatt-client.c sets `Notifying` and answers in register_notify_cb, when the write
    /// is answered) — or after 20 ms when no notification comes.
    private func startLate(_ invocation: DBusMethodInvocation, link: PeripheralLink) {
        runNotifyingWaiters()
        lateStart = (
            invocation,
            link.loop.after(.milliseconds(20)) { [weak self] in self?.finishLateStart() }
        )
        startSource()
    }

    /// The late CCC write's response: `Notifying` becomes true and `StartNotify` is answered.
    private func finishLateStart() {
        guard let lateStart else { return }
        self.lateStart = nil
        setNotifying(true)
        _ = lateStart.invocation.reply()
    }

    private func stopNotify(_ invocation: DBusMethodInvocation) {
        if notifySocket != nil {
            releaseNotifySocket()
            _ = invocation.reply()
            return
        }
        let client = invocation.call.sender ?? ""
        guard sessions.contains(client) else { return fail(invocation, .failed("No notify session started")) }
        // A session kept while the link is down ends at once (bluetoothd has nothing to write).
        guard link != nil else {
            endSession(of: client)
            _ = invocation.reply()
            return
        }
        _ = apply(server?.takeFault(.stopNotify(uuid)), to: invocation) { [weak self] in
            self?.endSession(of: client)
            _ = invocation.reply()
        }
    }

    /// Ends `client`'s session (it stopped, or left the bus).
    func endSession(of client: String) {
        guard let index = sessions.firstIndex(of: client) else { return }
        finishLateStart()
        sessions.remove(at: index)
        if sessions.isEmpty {
            pump = nil
            setNotifying(false)
        }
    }

    private func startSource() {
        guard let source = description.notificationSource, let link else { return }
        pump = SignalNotificationPump(source: source, loop: link.loop) { [weak self] payload in
            guard let self, !self.sessions.isEmpty, self.link != nil, let object = self.object else { return false }
            self.value = payload
            if self.isBatteryLevel { self.server?.reportBatteryLevel(payload) }
            emitValueChanged(object, interface: GATTInterface.characteristic, value: self.notified(payload))
            self.link?.statistics.recordSignalNotifications(1)
            self.finishLateStart()
            return true
        }
    }

    private func acquireNotify(_ invocation: DBusMethodInvocation) {
        guard let link else { return Self.notConnected(invocation) }
        if notifySocket != nil { return fail(invocation, .notPermitted("Notify acquired")) }
        if !sessions.isEmpty { return fail(invocation, .inProgress) }
        guard flags.canNotify else { return fail(invocation, .notSupported) }
        do { _ = try GATTOptions(invocation.call.arguments.first) } catch { return fail(invocation, error) }
        _ = apply(server?.takeFault(.acquireNotify(uuid)), to: invocation) { [weak self] in
            guard let self, self.link != nil, self.notifySocket == nil else { return Self.notConnected(invocation) }
            let socket: AcquiredSocket
            let clientEnd: DBusFileDescriptor
            do throws(BlueZError) { (socket, clientEnd) = try AcquiredSocket.make() } catch {
                return self.fail(invocation, error)
            }
            self.notifySocket = socket
            socket.watch(on: link.loop, packet: { _ in }, closed: { [weak self] in self?.releaseNotifySocket() })
            self.setNotifying(true, acquired: true)
            _ = invocation.reply([.unixFD(clientEnd), .uint16(UInt16(clamping: link.mtu))])
            if let source = self.description.notificationSource {
                socket.startEmitting(source, maximumLength: link.mtu - 3, statistics: link.statistics)
            }
        }
    }

    private func releaseNotifySocket() {
        guard let socket = notifySocket else { return }
        notifySocket = nil
        socket.close()
        setNotifying(false, acquired: false)
    }

    private func acquireWrite(_ invocation: DBusMethodInvocation) {
        guard let link else { return Self.notConnected(invocation) }
        if writeSocket != nil { return fail(invocation, .notPermitted("Write acquired")) }
        if pendingWrite != nil { return fail(invocation, .inProgress) }
        guard flags.contains(.writeWithoutResponse) else { return fail(invocation, .notSupported) }
        do { _ = try GATTOptions(invocation.call.arguments.first) } catch { return fail(invocation, error) }
        _ = apply(server?.takeFault(.acquireWrite(uuid)), to: invocation) { [weak self] in
            guard let self, self.link != nil, self.writeSocket == nil else { return Self.notConnected(invocation) }
            let socket: AcquiredSocket
            let clientEnd: DBusFileDescriptor
            do throws(BlueZError) { (socket, clientEnd) = try AcquiredSocket.make() } catch {
                return self.fail(invocation, error)
            }
            self.writeSocket = socket
            socket.watch(
                on: link.loop,
                packet: { [weak self] bytes in _ = self?.peripheralWrite(bytes, offset: 0, kind: .command, client: nil)
                },
                closed: { [weak self] in self?.releaseWriteSocket() })
            _ = try? self.object?.setProperty("WriteAcquired", of: GATTInterface.characteristic, to: .boolean(true))
            _ = invocation.reply([.unixFD(clientEnd), .uint16(UInt16(clamping: link.mtu))])
        }
    }

    private func releaseWriteSocket() {
        guard let socket = writeSocket else { return }
        writeSocket = nil
        socket.close()
        _ = try? object?.setProperty("WriteAcquired", of: GATTInterface.characteristic, to: .boolean(false))
    }
}
