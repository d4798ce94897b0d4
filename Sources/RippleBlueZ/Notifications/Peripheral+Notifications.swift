import Ripple
import RippleDBus

extension Peripheral {
    /// The characteristic's notifications (or indications), each as bytes, until cancelled.
    ///
    /// Listeners of one characteristic in this process share one bluetoothd session, opened with the
    /// first and ended after the last, so cancelling one never silences another: an `AcquireNotify`
    /// socket where the characteristic and `transport` allow it, else `StartNotify` (see
    /// ``NotificationTransport``). Each
    /// listener has its own bounded buffer (`buffering`) between the notifications and its subscriber's
    /// demand, and `statistics` counts what arrived, was delivered and was dropped. Fails with
    /// ``BluetoothError/Kind/notConnected`` when the link drops, with bluetoothd's error when it refuses
    /// to notify (``BluetoothError/Kind/notPermitted``, …), and with
    /// ``BluetoothError/Kind/bufferOverflow`` under ``NotificationBufferPolicy/failStream``.
    public func listen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        NotificationPublisher(
            peripheral: self, characteristic: characteristic, buffering: buffering, statistics: statistics,
            transport: transport
        ).eraseToAnyPublisher()
    }

    /// The characteristic's notifications decoded as `type`: see ``listen(to:buffering:transport:statistics:)``. A
    /// notification that is not a `type` ends the stream with ``BluetoothError/Kind/invalidValue(_:)``.
    public func listen<T: Readable>(
        to characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic
    ) -> AnyPublisher<T, BluetoothError> {
        listen(to: characteristic, buffering: buffering, transport: transport).decoded(as: type)
    }

    /// Every notification of the peripheral in one stream, each tagged with its characteristic: a
    /// ``listen(to:buffering:transport:statistics:)`` of each of `characteristics` (by default every
    /// characteristic that notifies or indicates when the subscription starts), merged in arrival order.
    ///
    /// Fails as soon as one of the listeners fails (the link drops, bluetoothd refuses one of them);
    /// pass `characteristics` to leave out those that need pairing or that you do not want.
    public func listenToAll(
        _ characteristics: [CharacteristicReference]? = nil, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic
    ) -> AnyPublisher<GATTNotification, BluetoothError> {
        let peripheral = self
        return Deferred { () -> AnyPublisher<GATTNotification, BluetoothError> in
            if let error = peripheral.central.core.gattError(peripheral) {
                return Fail(error: error).eraseToAnyPublisher()
            }
            let chosen =
                characteristics
                ?? peripheral.services.flatMap { service in
                    service.characteristics.filter(\.canNotify).map {
                        CharacteristicReference($0.uuid, in: service.uuid)
                    }
                }
            let streams = chosen.map { reference in
                peripheral.listen(to: reference, buffering: buffering, transport: transport)
                    .map { GATTNotification(characteristic: reference.uuid, service: reference.service, value: $0) }
            }
            return Publishers.MergeMany(streams).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// The characteristic's notifications for many subscribers: nothing starts until `connect()`, then
    /// every subscriber gets each notification.
    public func connectableListen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic
    ) -> Publishers.Multicast<AnyPublisher<[UInt8], BluetoothError>, PassthroughSubject<[UInt8], BluetoothError>> {
        listen(to: characteristic, buffering: buffering, transport: transport).multicast { PassthroughSubject() }
    }

    /// Subscribes to `reply`'s notifications, writes `bytes` to `characteristic` once subscribed, then
    /// emits the first notification after the write and finishes (a request/response control point).
    public func writeAndListen(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        let peripheral = self
        let started = PassthroughSubject<Void, Never>()
        // Subscribed before the listener, so that a session already started (which reports at once) is seen.
        let writeThenNothing = started.first().setFailureType(to: BluetoothError.self)
            .flatMap { peripheral.write(bytes, to: characteristic, type: type) }
            .flatMap { Empty<[UInt8], BluetoothError>() }
        let listener = NotificationPublisher(
            peripheral: self, characteristic: reply, buffering: .default, statistics: NotificationStatistics(),
            onStarted: { started.send(()) })
        return writeThenNothing.merge(with: listener).first().eraseToAnyPublisher()
    }

}
