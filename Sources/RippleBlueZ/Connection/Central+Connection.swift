import Ripple
import RippleDBus

extension Central {
    /// Connects to the peripheral of `discovery`: see ``connect(to:timeout:autoReconnect:)-(BluetoothAddress,_,_)``.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - discovery: the discovery of the peripheral.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: how to reconnect after the link drops; nil for never.
    /// - Returns: the peripheral once GATT is usable, then the end; fails with a ``BluetoothError``.
    public func connect(
        to discovery: PeripheralDiscovery, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        connect(to: discovery.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Connects to `peripheral`: see ``connect(to:timeout:autoReconnect:)-(BluetoothAddress,_,_)``.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: how to reconnect after the link drops; nil for never.
    /// - Returns: the peripheral once GATT is usable, then the end; fails with a ``BluetoothError``.
    public func connect(
        to peripheral: Peripheral, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        connect(to: peripheral.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Connects to the peripheral with Bluetooth address `address` (seen in a scan, or stored by
    /// bluetoothd from before) and emits it once GATT is usable, then finishes.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// "Usable" means the whole database bluetoothd announces is there: the attempt succeeds after
    /// bluetoothd has answered `Device1.Connect()` (or signalled `Connected`), signalled
    /// `ServicesResolved`, and — because bluetoothd may signal that before the GATT objects it announces
    /// (bluez issue 1489) — answered one more request for its objects, which it sends only after every
    /// pending signal. Then the connection tasks run (``onConnect(_:perform:)``). An operation issued
    /// once `connect` has emitted sees every service, characteristic and descriptor.
    ///
    /// Transient failures of `Connect()` ("le-connection-abort-by-local", "Input/output error",
    /// `InProgress`) are retried within `timeout`, as ``ConnectRetryPolicy`` describes. The attempt fails
    /// with ``BluetoothError/Kind/connectionFailed`` and bluetoothd's reason when `Connect()` fails
    /// otherwise, when the link drops (`Connected = false`) or the device is removed before it is ready,
    /// and with ``BluetoothError/Kind/timeout`` after `timeout` (the attempt is then cancelled with
    /// `Disconnect()`; the error carries the last transient failure, if any). A successful `Connect()`
    /// answer counts as connected even when bluetoothd never signals `Connected = true`. A peripheral
    /// bluetoothd has connected and resolved already (by another program) is taken as it is, after the
    /// same request for its objects. Subscribers connecting to the same peripheral share one attempt;
    /// when the last cancels, the attempt is cancelled. Discovery pauses meanwhile. Fails at once with
    /// the state's error when the adapter is not powered on, and with
    /// ``BluetoothError/Kind/peripheralNotFound`` when bluetoothd does not know the address.
    ///
    /// With `autoReconnect`, the peripheral stays under that ``ReconnectPolicy`` once connected: when
    /// its link drops, the central reconnects it and re-arms its listeners (they wait meanwhile, and see
    /// no error); ``disconnect(_:timeout:)`` ends the policy.
    ///
    /// When it emits, ``Peripheral/isConnected`` is true and ``connectedPeripherals`` lists the
    /// peripheral.
    ///
    /// - Parameters:
    ///   - address: the peripheral's Bluetooth address.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: the reconnection policy to put the peripheral under once connected.
    /// - Returns: the peripheral once ready, then the end.
    public func connect(
        to address: BluetoothAddress, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        let core = self.core
        return Deferred { () -> AnyPublisher<Peripheral, BluetoothError> in
            if let error = core.operationError() { return Fail(error: error).eraseToAnyPublisher() }
            guard let path = core.devicePath(address: address), let peripheral = core.peripheral(at: path) else {
                return Fail(
                    error: BluetoothError(.peripheralNotFound, "bluetoothd does not know \(address): discover it first")
                )
                .eraseToAnyPublisher()
            }
            return OperationPublisher<Peripheral>(
                startsOnDemand: false, makeID: { core.nextID() },
                begin: { subscription in
                    core.perform {
                        core.joinAttempt(peripheral, subscription, timeout: timeout, policy: autoReconnect)
                    }
                },
                leave: { subscription in core.perform { core.leaveAttempt(path, id: subscription.id) } }
            ).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Disconnects `peripheral` (or cancels a connection attempt to it, and ends its reconnection
    /// policy); emits once bluetoothd has answered `Device1.Disconnect()`, then finishes.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// The peripheral leaves ``connectedPeripherals`` at once, its listeners end with
    /// ``BluetoothError/Kind/notConnected`` and ``ConnectionEvent/disconnected(_:_:)`` (reason
    /// ``DisconnectReason/local``) comes; when it emits, ``Peripheral/isConnected`` is false. Succeeds
    /// when it is not connected too. When bluetoothd has not answered within `timeout`, the publisher
    /// fails with ``BluetoothError/Kind/timeout``; the disconnection itself goes on (the central has
    /// already let the peripheral go, and takes bluetoothd's answer when it comes).
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral to disconnect.
    ///   - timeout: the longest to wait for bluetoothd's answer.
    /// - Returns: one value once disconnected, then the end; fails with bluetoothd's error.
    public func disconnect(_ peripheral: Peripheral, timeout: Duration = .seconds(30)) -> AnyPublisher<
        Void, BluetoothError
    > {
        let core = self.core
        return OperationPublisher<Void>(
            startsOnDemand: false, makeID: { core.nextID() },
            begin: { subscription in core.perform { core.disconnect(peripheral, subscription) } },
            leave: { _ in }
        )
        .timeout(
            .nanoseconds(timeout.clampedNanoseconds), scheduler: core.loop,
            customError: { .timeout("disconnecting \(peripheral.address) (no answer within \(timeout))") }
        )
        .eraseToAnyPublisher()
    }

    /// Each connection event of this central (connecting, connected, ready, failed, disconnected,
    /// auto-connected), from now on: an *event* stream.
    ///
    /// Each subscriber has a buffer of 4,096 events (``EventBuffering/default``) between what happens and
    /// what it demands: nothing is lost within it, even under a `for await` loop whose body awaits. A
    /// subscriber that falls further behind is finished (the stream cannot fail), its drops counted in
    /// ``connectionEventStatistics``; ``connectionEvents(buffering:statistics:)`` chooses another buffer.
    public var connectionEvents: AnyPublisher<ConnectionEvent, Never> {
        core.connectionEvents.eraseToAnyPublisher()
    }

    /// The connection events with a buffer and counts of the subscriber's choosing: an *event* stream
    /// (see ``connectionEvents``).
    ///
    /// - Parameters:
    ///   - buffering: each subscriber's buffer and its policy when full (under
    ///     ``EventBufferPolicy/failStream`` the stream finishes: it cannot fail).
    ///   - statistics: where the subscribers' events are counted: received, delivered, dropped.
    /// - Returns: the events from now on.
    public func connectionEvents(buffering: EventBuffering, statistics: EventStatistics = EventStatistics())
        -> AnyPublisher<ConnectionEvent, Never>
    {
        core.connectionEvents.publisher(buffering: buffering, statistics: statistics)
    }

    /// The counts of ``connectionEvents``' subscribers: what arrived, was delivered and was dropped.
    public var connectionEventStatistics: EventStatistics { core.connectionEvents.statistics }

    /// The peripherals connected and ready now, then after each change: a *state* stream.
    ///
    /// A new subscriber gets the list now first; a slow one gets the latest list, never a stale one. When
    /// ``connect(to:timeout:autoReconnect:)-(BluetoothAddress,_,_)`` emits, the list holds the peripheral; when
    /// ``disconnect(_:timeout:)`` emits, it does not.
    public var connectedPeripherals: AnyPublisher<[Peripheral], Never> {
        core.connectedPeripherals.eraseToAnyPublisher()
    }

    /// The peripherals being connected now (an attempt under way: its retries, the services' resolution,
    /// the connection tasks), then after each change: a *state* stream (see ``connectedPeripherals``).
    public var connectingPeripherals: AnyPublisher<[Peripheral], Never> {
        core.connectingPeripherals.eraseToAnyPublisher()
    }

    /// The peripherals bluetoothd knows on the central's adapter now — stored ones, connected ones
    /// (also by other programs), and those seen recently — without a scan, by address.
    public var knownPeripherals: [Peripheral] {
        guard let adapter else { return [] }
        let paths = core.mirror.withLock { mirror in
            mirror.tree.objects(implementing: BlueZ.device).filter {
                mirror.tree.properties(of: $0, interface: BlueZ.device)?["Adapter"]?.objectPath == adapter.path
            }
        }
        return paths.compactMap(core.peripheral(at:)).sorted { $0.address < $1.address }
    }

    /// The peripheral with `address` if bluetoothd knows it (see ``knownPeripherals``).
    ///
    /// - Parameter address: its Bluetooth address.
    /// - Returns: its handle, or nil when bluetoothd does not know it on the central's adapter.
    public func peripheral(address: BluetoothAddress) -> Peripheral? {
        core.devicePath(address: address).flatMap(core.peripheral(at:))
    }
}
