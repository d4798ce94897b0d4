import Ripple
import RippleDBus

/// A GATT operation in its device's queue: what it needs to run, and what its turn left running
/// (loop-confined, in ``CentralCore/Confined``).
struct GATTOperationRecord {
    let device: DBusObjectPath
    let description: String
    let timeout: Duration
    /// Looks the attribute up now and makes the call, or says why not (``BluetoothError/Kind/attributeNotFound``:
    /// not exported yet, worth waiting for).
    let resolve: @Sendable () -> Result<GATTCall, BluetoothError>
    /// Tells the subscriber how it ended.
    let finish: @Sendable (Subscribers.Completion<BluetoothError>) -> Void
    var call: GATTCall?
    /// Why the attribute was not found, for when the wait for it ends.
    var missing: BluetoothError?
    var timer: AnyCancellable?
    var attributeTimer: AnyCancellable?
    var running: AnyCancellable?
}

/// A GATT operation's call, ready to go: `run` subscribes to it (its value goes to the operation's
/// subscriber) and reports its end. Made and run on the loop thread.
struct GATTCall {
    let run: (_ ended: @escaping @Sendable (BluetoothError?) -> Void) -> AnyCancellable
}

extension CentralCore {
    /// `make`'s operation, run in its turn in the queue of `device` (an `urgent` one — a connection
    /// task's — first), failing with ``BluetoothError/Kind/timeout`` when it has not ended `timeout`
    /// after its turn came.
    ///
    /// `make` runs when the turn comes (and again while its attribute is awaited): it looks the
    /// attribute up and returns the call, or the reason it cannot run. When the reason is
    /// ``BluetoothError/Kind/attributeNotFound``, the operation waits for bluetoothd to export the
    /// attribute, at most ``attributeTimeout``.
    ///
    /// - Parameters:
    ///   - device: the device's object path.
    ///   - description: "reading 2A37 of C0:FF:EE:00:00:01", for the timeout's message.
    ///   - timeout: the operation's time limit, from its turn.
    ///   - urgent: whether it is a connection task's.
    ///   - make: the lookup and the call.
    /// - Returns: the operation's publisher: its value (if any), then its end.
    func queued<Output: Sendable>(
        on device: DBusObjectPath, _ description: String, timeout: Duration, urgent: Bool = false,
        _ make: @escaping @Sendable () -> Result<AnyPublisher<Output, BluetoothError>, BluetoothError>
    ) -> AnyPublisher<Output, BluetoothError> {
        OperationPublisher<Output>(
            startsOnDemand: true, makeID: { [self] in nextID() },
            begin: { [self] subscription in
                perform { [self] in
                    guard subscription.isLive else { return }
                    let resolve: @Sendable () -> Result<GATTCall, BluetoothError> = {
                        make().map { publisher in
                            GATTCall { ended in
                                publisher.sink(
                                    receiveCompletion: { completion in
                                        if case .failure(let error) = completion { ended(error) } else { ended(nil) }
                                    },
                                    receiveValue: { value in subscription.receive(value) })
                            }
                        }
                    }
                    confined.value.operations[subscription.id] = GATTOperationRecord(
                        device: device, description: description, timeout: timeout, resolve: resolve,
                        finish: { completion in subscription.finish(completion) })
                    queueEvent(device, .enqueue(.init(id: subscription.id, urgent: urgent)))
                }
            },
            leave: { [self] subscription in perform { [self] in queueEvent(device, .leave(subscription.id)) } }
        ).eraseToAnyPublisher()
    }

    /// Feeds `event` to the queue machine of `device` and performs its actions, then those of the
    /// events the actions produce at once.
    ///
    /// - Parameters:
    ///   - device: the device's object path.
    ///   - event: what happened.
    func queueEvent(_ device: DBusObjectPath, _ event: GATTQueueStateMachine.Event) {
        var events = [event]
        while !events.isEmpty {
            let next = events.removeFirst()
            var machine = confined.value.queues[device] ?? GATTQueueStateMachine()
            let actions: [GATTQueueStateMachine.Action]
            do {
                actions = try machine.handle(next)
            } catch {
                record(error)
                continue
            }
            confined.value.queues[device] = machine
            for action in actions { execute(action, on: device, queueing: &events) }
        }
        if let machine = confined.value.queues[device], machine.count == 0, machine.holds.isEmpty {
            confined.value.queues[device] = nil
        }
    }

    private func execute(
        _ action: GATTQueueStateMachine.Action, on device: DBusObjectPath,
        queueing events: inout [GATTQueueStateMachine.Event]
    ) {
        switch action {
        case .start(let id):
            guard let record = confined.value.operations[id] else {
                events.append(.unresolvable(id, BluetoothError(.failed, "the operation was lost")))
                return
            }
            let limit = record.timeout
            let description = record.description
            confined.value.operations[id]?.timer = loop.after(limit) { [weak self] in
                self?.perform { [weak self] in
                    self?.queueEvent(device, .timedOut(id, .timeout("\(description) (no answer within \(limit))")))
                }
            }
            events.append(resolution(of: id, record))
        case .call(let id):
            guard let call = confined.value.operations[id]?.call else {
                events.append(.unresolvable(id, BluetoothError(.failed, "the operation lost its call")))
                return
            }
            let running = call.run { [weak self] error in
                self?.perform { [weak self] in self?.queueEvent(device, .answered(id, error)) }
            }
            confined.value.operations[id]?.running = running
        case .awaitAttribute(let id):
            let missing =
                confined.value.operations[id]?.missing
                ?? BluetoothError(.attributeNotFound, "the attribute was not found")
            let wait = attributeTimeout
            confined.value.operations[id]?.attributeTimer = loop.after(wait) { [weak self] in
                let error = BluetoothError(
                    missing.kind, missing.message + " (waited \(wait) for bluetoothd to export it)",
                    bluezName: missing.bluezName, bluezMessage: missing.bluezMessage)
                self?.perform { [weak self] in self?.queueEvent(device, .attributeWaitExpired(id, error)) }
            }
        case .deliver(let id, let outcome):
            guard let record = confined.value.operations[id] else { return }
            switch outcome {
            case .answered: record.finish(.finished)
            case .failed(let error): record.finish(.failure(error))
            }
        case .discard(let id):
            guard let record = confined.value.operations.removeValue(forKey: id) else { return }
            record.timer?.cancel()
            record.attributeTimer?.cancel()
            record.running?.cancel()
        }
    }

    /// Looks the operation `id` up: the event that says whether it can go.
    private func resolution(of id: Int, _ record: GATTOperationRecord) -> GATTQueueStateMachine.Event {
        switch record.resolve() {
        case .success(let call):
            confined.value.operations[id]?.call = call
            return .resolved(id)
        case .failure(let error) where error.kind == .attributeNotFound:
            confined.value.operations[id]?.missing = error
            return .attributeMissing(id)
        case .failure(let error):
            return .unresolvable(id, error)
        }
    }

    /// A change of the tree may bring the attribute an operation waits for (or end its link): the
    /// waiting operations of the devices it concerns look again.
    func operationTreeEvent(_ event: DBusObjectManagerEvent) {
        let waiting = confined.value.queues.compactMap { device, machine -> (DBusObjectPath, Int)? in
            guard case .awaitingAttribute(let id) = machine.state else { return nil }
            return (device, id)
        }
        guard !waiting.isEmpty else { return }
        let concerned: DBusObjectPath?
        switch event {
        case .snapshot: concerned = nil
        case .interfacesAdded(let path, _), .interfacesRemoved(let path, _), .propertiesChanged(let path, _):
            concerned = path.devicePath
        }
        for (device, id) in waiting where concerned == nil || concerned == device {
            guard let record = confined.value.operations[id] else { continue }
            switch record.resolve() {
            case .success(let call):
                confined.value.operations[id]?.call = call
                queueEvent(device, .resolved(id))
            case .failure(let error) where error.kind == .attributeNotFound:
                continue
            case .failure(let error):
                queueEvent(device, .unresolvable(id, error))
            }
        }
    }
}

extension DBusObjectPath {
    /// The device an attribute's path lies under (`/org/bluez/hci0/dev_…` of
    /// `/org/bluez/hci0/dev_…/service000a/char000b`), or the path itself when it is not below one.
    var devicePath: DBusObjectPath {
        let parts = description.split(separator: "/")
        guard parts.count > 4, parts[3].hasPrefix("dev_") else { return self }
        return (try? DBusObjectPath("/" + parts.prefix(4).joined(separator: "/"))) ?? self
    }
}
