import Ripple
import RippleDBus
import RippleLoop
import Synchronization

/// One characteristic a ``PeripheralManager`` serves: its description, its exported object, its current
/// value, whether centrals listen, and the subscribers of its writes.
///
/// Its mutable state is one `LockedState<State>`; the handlers of its object run on the loop thread, the
/// manager's methods on any thread.
final class ServedCharacteristic: Sendable {
    struct Writer {
        let id: Int
        /// Offers a request; false when the subscriber's buffer was full (the request is then counted as
        /// dropped) or the subscriber is gone.
        let offer: @Sendable (WriteRequest) -> Bool
        /// Ends the subscriber's stream (the manager closed).
        let finish: @Sendable () -> Void
    }

    struct State {
        var value: [UInt8]
        var writers: [Writer] = []
        var nextWriter = 0
        /// Whether the manager closed: the write streams have finished, and new subscribers finish at once.
        var writesFinished = false
        /// The socket bluetoothd acquired for the notifications, while it has it.
        var notifySocket: AcquiredNotifySocket?
        /// Whether the last notification found the acquired socket full (until it has room again).
        var socketFull = false
        /// Whether the last notification on the bus found the connection's outgoing queue at its limit
        /// (until it has drained to half of it).
        var busFull = false
    }

    let reference: CharacteristicReference
    let properties: CharacteristicProperties
    let onRead: LocalReadHandler?
    let object: DBusExportedObject
    /// Whether a central has notifications or indications enabled (bluetoothd's `StartNotify`/`StopNotify`).
    let subscribed: StateSubject<Bool, Never>
    /// Whether a notification sent now goes out: a central listens, and the acquired socket (if any) has
    /// room, or on the bus, the connection's outgoing queue has not reached the limit.
    let readyToSend: StateSubject<Bool, Never>
    /// The notifications sent: each is received, then delivered to bluetoothd or dropped (a full socket, or
    /// a full outgoing queue on the bus).
    let notifications = EventStatistics()
    /// Whether the characteristic offers bluetoothd `AcquireNotify`.
    let acquiresNotify: Bool
    /// The connection the `Value` changes go out on, and the most bytes its outgoing queue may hold for a
    /// notification on the bus to go out (see ``PeripheralManager/defaultBusQueueLimit``).
    let connection: DBusConnection
    let busQueueLimit: Int
    let state: LockedState<State>

    init(
        _ description: LocalCharacteristic, service: BluetoothUUID, object: DBusExportedObject,
        connection: DBusConnection, acquiresNotify: Bool, busQueueLimit: Int
    ) {
        let loop = connection.loop
        reference = CharacteristicReference(description.uuid, in: service)
        self.acquiresNotify = acquiresNotify && description.properties.contains(.notify)
        self.connection = connection
        self.busQueueLimit = max(0, busQueueLimit)
        properties = description.properties
        onRead = description.onRead
        self.object = object
        subscribed = StateSubject(false, context: .loop(loop))
        readyToSend = StateSubject(false, context: .loop(loop))
        state = LockedState(State(value: description.value))
    }

    var value: [UInt8] {
        state.withLock { $0.value }
    }

    /// Whether a central listens (bluetoothd's `StartNotify`/`StopNotify`, or its socket).
    func setListened(_ listened: Bool) {
        subscribed.send(listened)
        updateReadiness()
    }

    /// Ends the listening streams (the manager closed).
    func finishListening() {
        subscribed.send(completion: .finished)
        readyToSend.send(completion: .finished)
    }

    private func updateReadiness() {
        // The subject's lock, then the leaf locks of `subscribed` and `state`: the value is computed and
        // stored in one step, so that concurrent updates cannot leave an older one last.
        readyToSend.modify { ready in
            ready = subscribed.value && !state.withLock { $0.socketFull || $0.busFull }
        }
    }

    /// Adds a subscriber of the writes; nil when the manager has closed (the subscriber should finish).
    func addWriter(
        offer: @escaping @Sendable (WriteRequest) -> Bool, finish: @escaping @Sendable () -> Void
    ) -> Int? {
        state.withLock { state in
            guard !state.writesFinished else { return nil }
            defer { state.nextWriter += 1 }
            state.writers.append(Writer(id: state.nextWriter, offer: offer, finish: finish))
            return state.nextWriter
        }
    }

    /// Finishes every write stream, now and for later subscribers (the manager closed).
    func finishWrites() {
        let writers = state.withLock { state in
            state.writesFinished = true
            defer { state.writers = [] }
            return state.writers
        }
        for writer in writers { writer.finish() }
    }

    func removeWriter(_ id: Int) {
        state.withLock { $0.writers.removeAll { $0.id == id } }
    }

    /// A central wrote: to the write subscribers when there are any (a request that none can take is
    /// answered ``ATTError/unlikely``; a command is dropped, counted by each full subscriber),
    /// else stored at its offset and accepted.
    func write(_ request: WriteRequest) {
        let writers = state.withLock { $0.writers }
        guard !writers.isEmpty else {
            let stored = state.withLock { state -> Bool in
                guard request.offset <= state.value.count else { return false }
                state.value = Array(state.value.prefix(request.offset)) + request.value
                return true
            }
            request.respond(stored ? .success(()) : .failure(.invalidOffset))
            return
        }
        var taken = false
        for writer in writers where writer.offer(request) { taken = true }
        if !taken { request.respond(.failure(.unlikely)) }
    }

    /// Notifies `value` (and makes it the current value): into the acquired socket when bluetoothd has one,
    /// else as a `PropertiesChanged` of `Value`. Returns whether it went out to a listening central: false
    /// also when it was dropped, because the socket was full or the connection's outgoing queue held
    /// ``busQueueLimit`` bytes or more.
    func notify(_ value: [UInt8]) throws(DBusError) -> Bool {
        let socket = state.withLock { state -> AcquiredNotifySocket? in
            state.value = value
            return state.notifySocket
        }
        let counters = notifications.counters
        counters.countReceived()
        if let socket {
            switch socket.send(value) {
            case .sent:
                counters.countDelivered()
                return true
            case .full:
                // Marked full before the watch for room starts, so that the room it finds clears it.
                state.withLock { $0.socketFull = socket === $0.notifySocket }
                updateReadiness()
                socket.watchForRoom()
            case .closed:
                break
            }
            counters.countDropped(1)
            counters.reportDrops()
            return false
        }
        // libdbus queues what the bus does not take yet without limit: past the limit the notification is
        // dropped, as on a full socket, and readiness comes back once the queue has drained to half of it.
        if connection.outgoingByteCount >= busQueueLimit {
            let first = state.withLock { state -> Bool in
                defer { state.busFull = true }
                return !state.busFull
            }
            updateReadiness()
            if first {
                connection.whenOutgoingBytes(atMost: busQueueLimit / 2) { [weak self] in
                    guard let self else { return }
                    state.withLock { $0.busFull = false }
                    updateReadiness()
                }
            }
            counters.countDropped(1)
            counters.reportDrops()
            return false
        }
        // The signal alone: bluetoothd takes the value from it (src/gatt-database.c, property_changed_cb), and
        // the object keeps no copy of `Value` to update (see the characteristic's interface).
        try object.emitSignal(
            .propertiesChanged,
            arguments: [
                .string(BlueZ.characteristic), .stringVariantDictionary(["Value": .bytes(value)]), .array(.string, []),
            ])
        counters.countDelivered()
        return subscribed.value
    }

    /// bluetoothd acquires the notifications (`AcquireNotify`): a socket pair, bluetoothd's end in the
    /// reply with the MTU it named; when it closes its end, the characteristic is no longer listened to.
    func acquireNotify(_ invocation: DBusMethodInvocation, loop: EventLoop) {
        let mtu = ReadRequest(options: invocation.call.arguments.first?.stringVariantDictionary ?? [:]).mtu
        let socket: AcquiredNotifySocket
        let theirs: DBusFileDescriptor
        do {
            (socket, theirs) = try AcquiredNotifySocket.make()
        } catch {
            _ = invocation.fail(error)
            return
        }
        let previous = state.withLock { state -> AcquiredNotifySocket? in
            defer {
                state.notifySocket = socket
                state.socketFull = false
            }
            return state.notifySocket
        }
        previous?.close()
        socket.watch(
            on: loop,
            closed: { [weak self, weak socket] in
                guard let self else { return }
                let current = state.withLock { state -> Bool in
                    guard state.notifySocket === socket else { return false }
                    state.notifySocket = nil
                    state.socketFull = false
                    return true
                }
                guard current else { return }
                _ = try? object.setProperty("NotifyAcquired", of: BlueZ.characteristic, to: .boolean(false))
                setListened(false)
            },
            room: { [weak self, weak socket] in
                guard let self else { return }
                let current = state.withLock { state -> Bool in
                    guard state.notifySocket === socket else { return false }
                    state.socketFull = false
                    return true
                }
                if current { updateReadiness() }
            })
        _ = try? object.setProperty("NotifyAcquired", of: BlueZ.characteristic, to: .boolean(true))
        _ = invocation.reply([.unixFD(theirs), .uint16(UInt16(clamping: mtu))])
        setListened(true)
    }

    /// Closes an acquired socket (the manager closes).
    func releaseNotifySocket() {
        let socket = state.withLock { state -> AcquiredNotifySocket? in
            defer {
                state.notifySocket = nil
                state.socketFull = false
            }
            return state.notifySocket
        }
        socket?.close()
    }

    /// The current value from `offset`, or ``ATTError/invalidOffset``.
    func read(from offset: Int) -> Result<[UInt8], ATTError> {
        let value = self.value
        guard offset <= value.count else { return .failure(.invalidOffset) }
        return .success(Array(value[offset...]))
    }
}

/// The stream of ``PeripheralManager/writes(to:capacity:statistics:)``: each subscriber gets a bounded
/// buffer of `capacity` requests.
struct WriteRequestPublisher: Publisher {
    typealias Output = WriteRequest
    typealias Failure = Never

    let characteristic: ServedCharacteristic
    let capacity: Int
    let statistics: EventStatistics?
    let loop: EventLoop

    func receive<S: Subscriber>(subscriber: S) where S.Input == WriteRequest, S.Failure == Never {
        let capacity = Swift.max(1, capacity)
        let subscription = BufferedSubscription(
            downstream: AnySubscriber(subscriber), capacity: capacity, overflow: .dropNewest,
            counters: statistics?.counters,
            context: .loop(loop), description: "writes to \(characteristic.reference)", awaitingHandover: true)
        let added = characteristic.addWriter(
            offer: { request in
                guard subscription.isActive else { return false }
                let full = subscription.waiting >= capacity
                subscription.offer(request)
                return !full
            },
            finish: { subscription.finish(.finished) })
        // Taken in before the subscriber has it (a write made meanwhile waits in it), delivering once it has.
        subscriber.receive(subscription: subscription)
        subscription.handedOver()
        guard let id = added else { return subscription.finish(.finished) }
        let characteristic = characteristic
        if !subscription.setOnEnd({ characteristic.removeWriter(id) }) { characteristic.removeWriter(id) }
    }
}
