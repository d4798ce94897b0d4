import Ripple
import RippleDBus

extension CentralCore {
    /// Puts `peripheral` under `policy` (replacing any policy it had).
    func setReconnectPolicy(_ policy: ReconnectPolicy, for peripheral: Peripheral) {
        let previous = lock.withLock { () -> AnyCancellable? in
            defer { reconnections[peripheral.path] = ReconnectState(peripheral: peripheral, policy: policy) }
            return reconnections[peripheral.path]?.pending
        }
        previous?.cancel()
    }

    /// Takes `path` out of reconnection (an explicit disconnect, bluetoothd gone): true if it was in.
    @discardableResult
    func cancelReconnection(_ path: DBusObjectPath) -> Bool {
        guard let state = lock.withLock({ reconnections.removeValue(forKey: path) }) else { return false }
        state.pending?.cancel()
        return true
    }

    /// A ready link of `peripheral` dropped for `reason`: true when its policy reconnects it (its
    /// listeners then wait), false when the drop is final.
    func reconnectAfterDrop(_ path: DBusObjectPath, _ peripheral: Peripheral, reason: DisconnectionReason) -> Bool {
        guard let policy = lock.withLock({ reconnections[path]?.policy }), policy.shouldReconnect(reason) else {
            cancelReconnection(path)
            return false
        }
        suspendNotifications(under: path)
        let lent = lock.withLock { () -> Bool in
            reconnections[path]?.failures = 0
            return handedOver.contains(path)
        }
        // A peripheral lent to another tool reconnects when it is taken back (reconnectionsMayResume).
        if !lent { scheduleReconnect(path) }
        return true
    }

    /// bluetoothd or the adapter went while `path` was connected: if it is under a policy, its listeners
    /// wait (true) until ``reconnectionsMayResume()``.
    func holdForReconnection(_ path: DBusObjectPath) -> Bool {
        guard lock.withLock({ reconnections[path] != nil }) else { return false }
        suspendNotifications(under: path)
        let pending = lock.withLock { () -> AnyCancellable? in
            defer {
                reconnections[path]?.pending = nil
                reconnections[path]?.failures = 0
            }
            return reconnections[path]?.pending
        }
        pending?.cancel()
        return true
    }

    /// bluetoothd and the adapter are back: every peripheral waiting under a policy reconnects.
    func reconnectionsMayResume() {
        let waiting = lock.withLock {
            reconnections.filter { $0.value.pending == nil && !handedOver.contains($0.key) }.map(\.key)
        }
        for path in waiting where !isConnectedOrConnecting(path) { scheduleReconnect(path) }
    }

    private func isConnectedOrConnecting(_ path: DBusObjectPath) -> Bool {
        lock.withLock { connectedPaths[path] != nil || attempts[path] != nil }
    }

    /// Waits the policy's delay for the next attempt, then makes it.
    private func scheduleReconnect(_ path: DBusObjectPath) {
        guard let (policy, failures) = lock.withLock({ reconnections[path].map { ($0.policy, $0.failures) } }) else {
            return
        }
        let timer = loop.after(policy.delay(before: failures)) { [weak self] in self?.attemptReconnect(path) }
        let kept = lock.withLock { () -> Bool in
            guard reconnections[path] != nil else { return false }
            reconnections[path]?.pending = timer
            return true
        }
        if !kept { timer.cancel() }
    }

    /// One attempt: an ordinary connection attempt (with its events), whose end decides what follows.
    private func attemptReconnect(_ path: DBusObjectPath) {
        guard let state = lock.withLock({ reconnections[path] }) else { return }
        let peripheral = self.peripheral(at: path) ?? state.peripheral
        guard operationError() == nil, deviceProperties(path) != nil else {
            reconnectFailed(
                path,
                operationError()
                    ?? BluetoothError(.peripheralNotFound, "bluetoothd no longer knows \(state.peripheral.address)"))
            return
        }
        let subject = PassthroughSubject<Peripheral, BluetoothError>()
        let subscription = subject.sink(
            receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.reconnectFailed(path, error) }
            },
            receiveValue: { [weak self] peripheral in self?.reconnected(path, peripheral) })
        let kept = lock.withLock { () -> Bool in
            guard reconnections[path] != nil else { return false }
            reconnections[path]?.pending = subscription
            return true
        }
        guard kept else { return }
        if adoptIfReady(peripheral) {
            reconnected(path, peripheral)
        } else {
            joinAttempt(peripheral, id: nextID(), subject: subject, timeout: .seconds(30))
        }
    }

    private func reconnected(_ path: DBusObjectPath, _ peripheral: Peripheral) {
        let wanted = lock.withLock { () -> Bool in
            guard reconnections[path] != nil else { return false }
            reconnections[path]?.failures = 0
            reconnections[path]?.pending = nil
            return true
        }
        guard wanted else { return }
        connectionEvents.send(.autoConnected(peripheral))
        rearmNotifications(under: path, peripheral: peripheral)
    }

    private func reconnectFailed(_ path: DBusObjectPath, _ error: BluetoothError) {
        // Without bluetoothd or a powered adapter nothing can succeed: the attempt does not count, and
        // the next waits for them (reconnectionsMayResume).
        if operationError() != nil {
            lock.withLock { reconnections[path]?.pending = nil }
            return
        }
        let giveUp = lock.withLock { () -> Bool? in
            guard let state = reconnections[path] else { return nil }
            let failures = state.failures + 1
            reconnections[path]?.failures = failures
            reconnections[path]?.pending = nil
            if let maximum = state.policy.maximumAttempts, failures >= maximum { return true }
            return !state.policy.shouldRetry(error)
        }
        switch giveUp {
        case true?:
            cancelReconnection(path)
            failNotifications(
                under: path,
                with: BluetoothError(
                    .connectionFailed, "gave up reconnecting: \(error.message)", bluezName: error.bluezName,
                    bluezMessage: error.bluezMessage))
        case false?:
            scheduleReconnect(path)
        case nil:
            break
        }
    }
}
