import Ripple
import RippleDBus
import RippleLoop

extension Peripheral {
    /// The characteristic's notifications (or indications), each as bytes, until cancelled: an *event*
    /// stream.
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
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - buffering: the listener's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the listener's notifications are counted (received, delivered, dropped).
    /// - Returns: the notifications' values, in arrival order.
    public func listen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        NotificationPublisher(
            peripheral: self, characteristic: characteristic, buffering: buffering, statistics: statistics,
            transport: transport
        ).eraseToAnyPublisher()
    }

    /// The characteristic's notifications decoded as `type`, an *event* stream: see
    /// ``listen(to:buffering:transport:statistics:)``. A notification that is not a `type` ends the stream with
    /// ``BluetoothError/Kind/invalidValue(_:)``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - type: what each notification's bytes encode.
    ///   - buffering: the listener's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the listener's notifications are counted (received, delivered, dropped).
    /// - Returns: the decoded notifications, in arrival order.
    public func listen<T: Readable>(
        to characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<T, BluetoothError> {
        listen(to: characteristic, buffering: buffering, transport: transport, statistics: statistics)
            .decoded(as: type)
    }

    /// Every notification of the peripheral in one *event* stream, each tagged with its characteristic: a
    /// ``listen(to:buffering:transport:statistics:)`` of each of `characteristics` (by default every
    /// characteristic that notifies or indicates when the subscription starts), merged in arrival order.
    ///
    /// Each listener has a buffer of its own (`buffering`); all of them are counted in `statistics`. Under
    /// slow demand the merge holds one notification per listener besides its buffer (counted as delivered:
    /// it has left the listener), so a subscriber sees up to `capacity + 1` per characteristic. Fails
    /// as soon as one of the listeners fails (the link drops, bluetoothd refuses one of them); pass
    /// `characteristics` to leave out those that need pairing or that you do not want.
    ///
    /// - Parameters:
    ///   - characteristics: the characteristics to listen to; `nil` for every one that notifies or indicates.
    ///   - buffering: each listener's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the listeners' notifications are counted, all together.
    /// - Returns: the notifications, each with its characteristic, in arrival order.
    public func listenToAll(
        _ characteristics: [CharacteristicReference]? = nil, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
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
                peripheral.listen(to: reference, buffering: buffering, transport: transport, statistics: statistics)
                    .map { GATTNotification(characteristic: reference.uuid, service: reference.service, value: $0) }
            }
            return Publishers.MergeMany(streams).eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// The characteristic's notifications for many subscribers, an *event* stream: nothing starts until
    /// `connect()`, then every subscriber gets each notification that arrives after it subscribed.
    ///
    /// One listener feeds them all; each subscriber has a buffer of its own (`buffering`), so a slow one
    /// neither slows the others nor loses anything silently: its drops are counted in `statistics`, with
    /// every other subscriber's, or its stream fails with ``BluetoothError/Kind/bufferOverflow``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - buffering: each subscriber's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the subscribers' notifications are counted, all together.
    /// - Returns: a connectable publisher: `connect()` starts listening, cancelling what it returned stops.
    public func connectableListen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> some ConnectablePublisher<[UInt8], BluetoothError> {
        let context = DeliveryContext.loop(central.core.loop)
        return listen(to: characteristic, transport: transport).multicast {
            EventSubject(
                buffering: buffering, statistics: statistics, context: context, name: "connectableListen")
        }
    }
}
