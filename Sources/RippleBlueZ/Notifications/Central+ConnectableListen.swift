import Ripple

extension Central {
    /// The notifications of `characteristic` of the peripheral with `address`, for subscribers that come
    /// before the peripheral is connected: an *event* stream that nothing starts until `connect()`, and
    /// that then listens each time the peripheral is ready (connected now, or later).
    ///
    /// This is LittleBlueTooth's `connectableListenPublisher` shape: make the channel and subscribe to it
    /// first, then connect the channel, then connect the peripheral (in any pipeline). Each time the
    /// peripheral becomes ready (``ConnectionEvent/ready(_:)``) a listener starts on it and feeds every
    /// subscriber, each with a buffer of its own (`buffering`, drops counted in `statistics`). A link that
    /// drops ends that listener only: the channel waits for the next connection. Any other failure of the
    /// listener (bluetoothd refuses to notify, a value that is not a `type`) ends the channel's streams.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - address: the peripheral's Bluetooth address.
    ///   - type: what each notification's bytes encode.
    ///   - buffering: each subscriber's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the subscribers' notifications are counted, all together.
    /// - Returns: a connectable publisher: `connect()` arms it, cancelling what it returned disarms it.
    public func connectableListen<T: Readable>(
        to characteristic: CharacteristicReference, of address: BluetoothAddress, as type: T.Type,
        buffering: NotificationBuffering = .default, transport: NotificationTransport = .automatic,
        statistics: NotificationStatistics = NotificationStatistics()
    ) -> some ConnectablePublisher<T, BluetoothError> {
        let context = DeliveryContext.loop(core.loop)
        return readyPeripherals(address)
            .map { peripheral in
                peripheral.listen(to: characteristic, as: type, transport: transport)
                    .catch { error in
                        // The link dropped: the next connection starts a new listener.
                        error.kind == .notConnected
                            ? Empty<T, BluetoothError>().eraseToAnyPublisher()
                            : Fail<T, BluetoothError>(error: error).eraseToAnyPublisher()
                    }
            }
            .switchToLatest()
            .multicast {
                EventSubject(buffering: buffering, statistics: statistics, context: context, name: "connectableListen")
            }
    }

    /// The notifications' bytes of `characteristic` of the peripheral with `address`, for subscribers that
    /// come before the peripheral is connected: an *event* stream, each subscriber with a buffer of its own
    /// (`buffering`, drops counted in `statistics`), as
    /// ``connectableListen(to:of:as:buffering:transport:statistics:)`` describes.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - address: the peripheral's Bluetooth address.
    ///   - buffering: each subscriber's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the subscribers' notifications are counted, all together.
    /// - Returns: a connectable publisher: `connect()` arms it, cancelling what it returned disarms it.
    public func connectableListen(
        to characteristic: CharacteristicReference, of address: BluetoothAddress,
        buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> some ConnectablePublisher<[UInt8], BluetoothError> {
        connectableListen(
            to: characteristic, of: address, as: [UInt8].self, buffering: buffering, transport: transport,
            statistics: statistics)
    }

    /// The peripheral with `address` each time it becomes ready, from now on: first if it is connected now,
    /// then at each ``ConnectionEvent/ready(_:)`` (subscribed first, so that none falls in between).
    private func readyPeripherals(_ address: BluetoothAddress) -> AnyPublisher<Peripheral, BluetoothError> {
        let later = connectionEvents.compactMap { event -> Peripheral? in
            guard case .ready(let peripheral) = event, peripheral.address == address else { return nil }
            return peripheral
        }
        let now = connectedPeripherals.first().flatMap { peripherals in
            peripherals.filter { $0.address == address }.publisher
        }
        return later.merge(with: now).setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
    }
}
