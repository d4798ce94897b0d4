import Ripple
import RippleDBus
import RippleLoop

extension SimulatedDevice {
    // MARK: Connect

    /// `Device1.Connect()`, in bluetoothd's order for LE: after the peripheral's connection delay
    /// `Connected` becomes true and the call is answered (the device is no longer temporary); then, after
    /// the delay again (the GATT discovery), the GATT objects are exported, `UUIDs` gains the services and
    /// `ServicesResolved` becomes true. The objects of an earlier connection stay cached, and with them
    /// `ServicesResolved` comes at once. A peripheral out of range (or not connectable) fails after the
    /// simulator's connect timeout, as bluetoothd's LE connection attempt does.
    func connect(_ invocation: DBusMethodInvocation) {
        guard let core else { return Self.gone(invocation) }
        guard adapter.isPowered else { return fail(invocation, .notReady) }
        if pairing != nil { return fail(invocation, .inProgress) }
        switch linkState {
        case .connecting: return fail(invocation, .inProgress)
        case .connected:
            _ = invocation.reply()
            return
        case .disconnected: break
        }
        var extraDelay: Duration = .zero
        var silent = false
        switch faults.take(.connect) {
        case .fail(let error)?:
            return fail(invocation, error)
        case .failAfter(let delay, let error)?:
            linkState = .connecting(
                invocation,
                pending: core.loop.after(delay) { [weak self] in
                    self?.finishConnecting(with: error)
                })
            return
        case .disconnect(let reason)?:
            return fail(
                invocation,
                .failed(reason == .remote ? "le-connection-abort-by-remote" : "le-connection-abort-by-local"))
        case .delay(let delay)?:
            extraDelay = delay
        case .connectWithoutConnectedSignal?:
            silent = true
        case nil:
            break
        }
        guard isInRange, peripheral.isConnectable else {
            linkState = .connecting(
                invocation,
                pending: core.loop.after(core.configuration.connectTimeout) { [weak self] in
                    self?.finishConnecting(with: .failed("le-connection-abort-by-local"))
                })
            return
        }
        linkState = .connecting(
            invocation,
            pending: core.loop.after(peripheral.connectionDelay + extraDelay) { [weak self] in
                self?.linkEstablished(silent: silent)
            })
        adapter.connectionAttemptChanged()
    }

    /// The link is up: `Connected` (unless the fault hides it), the answer to `Connect()`, then the
    /// GATT discovery.
    private func linkEstablished(silent: Bool) {
        guard case .connecting(let invocation, _) = linkState, let core else { return }
        let link = PeripheralLink(
            devicePath: path, address: peripheral.address, connection: core.connection, loop: core.loop,
            mtu: peripheral.mtu, faults: faults, statistics: core.statistics, outbox: core.outbox)
        link.dropLink = { [weak self] reason in self?.peripheralDisconnected(reason: reason) }
        expiry = nil
        hasConnected = true
        // With the database cached from an earlier connection there is nothing to discover.
        let discovery = core.loop.after(gatt.hasCachedObjects ? .zero : peripheral.connectionDelay) { [weak self] in
            self?.servicesResolved(link: link)
        }
        linkState = .connected(link, silent: silent, resolving: discovery)
        if !silent { set("Connected", .boolean(true)) }
        _ = invocation.reply()
        adapter.connectionAttemptChanged()
    }

    /// The GATT discovery is over: the objects are exported, then `UUIDs` and `ServicesResolved`, then
    /// bluetoothd's plugins do their part (`Name`, `Appearance`, `Modalias`, `Battery1`).
    private func servicesResolved(link: PeripheralLink) {
        guard case .connected(let current, let silent, _) = linkState, current === link, let core else { return }
        if let outbox = core.outbox { return servicesResolvedAsBluetoothd(link: link, silent: silent, outbox: outbox) }
        do {
            try gatt.attach(link)
        } catch {
            core.report("could not export the GATT database of \(peripheral.address): \(error)")
            linkState = .connected(link, silent: silent, resolving: nil)
            tearDown(reason: .local)
            return
        }
        linkState = .connected(link, silent: silent, resolving: nil)
        // Once resolved, `UUIDs` is the database's primary services (claimed ones too), sorted; what was
        // only advertised is no longer listed. Both change in one signal.
        let uuids = Set(gatt.serviceUUIDs).map(\.uuidString).sorted()
        do {
            try object?.updateProperties(
                of: BlueZInterface.device,
                ["UUIDs": .array(.string, uuids.map(DBusValue.string)), "ServicesResolved": .boolean(true)])
        } catch {
            core.report("could not resolve the services of \(peripheral.address): \(error)")
        }
        runBluetoothdPlugins()
    }

    /// The GATT discovery is over, in the shuffled order: the changes come in bluetoothd's order (device.c
    /// `gatt_client_ready_cb`): `UUIDs` (register_gatt_services), the GATT objects
    /// (btd_gatt_client_ready), `ServicesResolved` (device_svc_resolved); the plugins act on a later turn,
    /// once their own reads are answered. The outbox then sends them in any order GDBus may.
    private func servicesResolvedAsBluetoothd(link: PeripheralLink, silent: Bool, outbox: SignalOutbox) {
        linkState = .connected(link, silent: silent, resolving: nil)
        let uuids = Set(gatt.serviceUUIDs).map(\.uuidString).sorted()
        set("UUIDs", .array(.string, uuids.map(DBusValue.string)))
        do {
            try gatt.attach(link)
        } catch {
            core?.report("could not export the GATT database of \(peripheral.address): \(error)")
            tearDown(reason: .local)
            return
        }
        set("ServicesResolved", .boolean(true))
        outbox.after(turns: 1) { [weak self] in
            guard let self, case .connected(let current, _, nil) = self.linkState, current === link else { return }
            self.runBluetoothdPlugins()
        }
    }

    /// Ends a connection attempt that never got a link with `error`.
    func finishConnecting(with error: BlueZError) {
        guard case .connecting(let invocation, _) = linkState else { return }
        linkState = .disconnected
        _ = invocation.fail(error.dbusError)
        restartExpiry()
        adapter.connectionAttemptChanged()
    }

    // MARK: Disconnect

    /// `Device1.Disconnect()`: cancels an attempt under way, or tears the link down (reason "local")
    /// and answers once it is down; answers at once when not connected.
    func disconnect(_ invocation: DBusMethodInvocation) {
        switch faults.take(.disconnect) {
        case .fail(let error)?: return fail(invocation, error)
        case .failAfter(let delay, let error)?:
            core?.loop.later(delay) { _ = invocation.fail(error.dbusError) }
            return
        case .delay(let delay)?:
            guard let core else { return Self.gone(invocation) }
            core.loop.later(delay) { [weak self] in self?.disconnectNow(invocation) }
            return
        default:
            disconnectNow(invocation)
        }
    }

    private func disconnectNow(_ invocation: DBusMethodInvocation) {
        switch linkState {
        case .connecting:
            finishConnecting(with: .failed("le-connection-abort-by-local"))
        case .connected:
            tearDown(reason: .local, answering: invocation)
            return
        case .disconnected:
            break
        }
        _ = invocation.reply()
    }

    /// The peripheral (or the radio) drops the link.
    func peripheralDisconnected(reason: DisconnectReason) {
        switch linkState {
        case .connecting:
            finishConnecting(
                with: .failed(reason == .timeout ? "le-connection-abort-by-local" : "le-connection-abort-by-remote"))
        case .connected:
            tearDown(reason: reason)
        case .disconnected:
            break
        }
    }

    /// Tears a link down in bluetoothd's order: `Battery1` gone, `ServicesResolved` false (when they were resolved; the
    /// GATT objects stay, cached), `Disconnected(reason)` (when the configuration asks for it, as
    /// bluetoothd 5.83 and later), `Connected` false.
    ///
    /// A `Disconnect()` that asked for it (`answering`) is answered just before `Connected` turns false, as
    /// bluetoothd 5.66 answers it.
    func tearDown(reason: DisconnectReason, answering disconnect: DBusMethodInvocation? = nil) {
        guard case .connected(_, let silent, let resolving) = linkState else {
            _ = disconnect?.reply()
            return
        }
        linkState = .disconnected
        removeBatteryInterface()
        if resolving == nil {
            set("ServicesResolved", .boolean(false))
            gatt.detach()
        }
        if core?.configuration.signalsDisconnectionReasons == true {
            _ = try? object?.emitSignal(
                interface: BlueZInterface.device, member: "Disconnected",
                arguments: [.string(reason.name), .string(reason.message)])
        }
        _ = disconnect?.reply()
        if !silent || object?.property("Connected", of: BlueZInterface.device) == .boolean(true) {
            set("Connected", .boolean(false))
        }
        restartExpiry()
        updateAdvertising()
        adapter.connectionAttemptChanged()
    }

    // MARK: Pairing

    /// `Device1.Pair()`: pairs (just works) after the connection delay: `Paired`, `Bonded` become true.
    func pair(_ invocation: DBusMethodInvocation) {
        guard let core else { return Self.gone(invocation) }
        guard adapter.isPowered else { return fail(invocation, .notReady) }
        if pairing != nil { return fail(invocation, .inProgress) }
        if isPaired { return fail(invocation, .alreadyExists) }
        guard isInRange, peripheral.isConnectable else {
            pairing = Pairing(
                invocation: invocation,
                pending: core.loop.after(core.configuration.connectTimeout) { [weak self] in
                    self?.finishPairing(with: .failed("Page Timeout"))
                })
            return
        }
        var delay = peripheral.connectionDelay
        switch faults.take(.pair) {
        case .fail(let error)?: return fail(invocation, error)
        case .failAfter(let after, let error)?:
            pairing = Pairing(
                invocation: invocation,
                pending: core.loop.after(after) { [weak self] in self?.finishPairing(with: error) })
            return
        case .delay(let extra)?: delay += extra
        case .disconnect(let reason)?:
            pairing = Pairing(
                invocation: invocation,
                pending: core.loop.after(delay) { [weak self] in
                    self?.peripheralDisconnected(reason: reason)
                    self?.finishPairing(with: .authenticationFailed)
                })
            return
        default: break
        }
        let sender = invocation.call.sender
        pairing = Pairing(
            invocation: invocation, pending: core.loop.after(delay) { [weak self] in self?.authenticate(for: sender) })
    }

    /// The pairing method's question to the caller's agent (or the default agent), then the end of the
    /// pairing by its answer.
    private func authenticate(for sender: String?) {
        guard pairing != nil, let core else { return }
        let member: String
        var arguments: [DBusValue] = [.objectPath(path)]
        switch peripheral.pairingMethod {
        case .justWorks:
            return finishPairing(with: nil)
        case .confirmPasskey(let passkey):
            member = "RequestConfirmation"
            arguments.append(.uint32(passkey))
        case .enterPasskey:
            member = "RequestPasskey"
        case .displayPasskey(let passkey):
            member = "DisplayPasskey"
            arguments += [.uint32(passkey), .uint16(0)]
        }
        guard let agent = core.agents.agent(for: sender) else { return finishPairing(with: .authenticationFailed) }
        let method = peripheral.pairingMethod
        // bluetoothd's own calls flush what GDBus holds first (g_dbus_send_message_with_reply).
        core.outbox?.flushAll()
        let question = core.connection.call(
            destination: agent.name, path: agent.path, interface: BlueZInterface.agent, member: member,
            arguments: arguments
        ).sink(
            receiveCompletion: { [weak self] completion in
                guard case .failure = completion else { return }
                if case .confirmPasskey = method {
                    self?.finishPairing(with: .authenticationRejected)
                } else {
                    self?.finishPairing(with: .authenticationFailed)
                }
            },
            receiveValue: { [weak self] reply in
                if case .enterPasskey(let expected) = method, reply.body.first?.uint32 != expected {
                    self?.finishPairing(with: .authenticationFailed)
                } else {
                    self?.finishPairing(with: nil)
                }
            })
        pairing?.pending = question
        pairing?.askedAgent = agent
    }

    private func finishPairing(with error: BlueZError?) {
        guard let invocation = pairing?.invocation else { return }
        pairing = nil
        if let error {
            _ = invocation.fail(error.dbusError)
            return
        }
        isPaired = true
        expiry = nil
        try? object?.updateProperties(of: BlueZInterface.device, ["Paired": .boolean(true), "Bonded": .boolean(true)])
        _ = invocation.reply()
    }

    /// `Device1.CancelPairing()`, as bluetoothd 5.66's `cancel_pairing`: `DoesNotExist` with no pairing under
    /// way; otherwise the agent whose question is unanswered gets `Agent1.Cancel()` (its answer, should it
    /// come, is dropped), the `Pair()` call is answered with `AuthenticationCanceled`, and the device stays
    /// unpaired.
    func cancelPairing() throws(DBusError) {
        cancelPairingCalls += 1
        guard let cancelled = pairing else { throw BlueZError.doesNotExist.dbusError }
        pairing = nil
        cancelled.pending?.cancel()
        if let agent = cancelled.askedAgent, let connection = core?.connection,
            var message = try? DBusMessage.methodCall(
                destination: agent.name, path: agent.path, interface: BlueZInterface.agent, member: "Cancel")
        {
            // agent_cancel sends it with g_dbus_send_message, which flushes what GDBus holds first.
            core?.outbox?.flushAll()
            message.noReplyExpected = true
            try? connection.send(message)
        }
        _ = cancelled.invocation.fail(
            BlueZError(name: BlueZErrorName.authenticationCanceled, message: "Authentication Canceled").dbusError)
    }

    private func fail(_ invocation: DBusMethodInvocation, _ error: BlueZError) {
        _ = invocation.fail(error.dbusError)
    }
}
