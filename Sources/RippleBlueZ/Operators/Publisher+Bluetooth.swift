import Ripple

// The operators below take one upstream value at a time (`flatMap(maxPublishers: .max(1))`), so they add no
// buffer of their own: while one operation runs, the next upstream values wait in the upstream's buffer (a
// discovery's ``EventBuffering``, say). After `first()`, each is a single operation.

extension Publisher where Output == PeripheralDiscovery, Failure == BluetoothError {
    /// Connects to each discovered peripheral, one at a time, on `central`: see
    /// ``Central/connect(to:timeout:autoReconnect:)-(PeripheralDiscovery,_,_)``. Typically after `first()`.
    ///
    /// An *event* stream of the connected peripherals, in the discoveries' order: discoveries that arrive
    /// during a connection wait in the upstream's buffer.
    ///
    /// - Parameters:
    ///   - central: the central that connects.
    ///   - timeout: the longest each connection may take.
    ///   - autoReconnect: how each link is re-established when it drops; `nil` for never.
    /// - Returns: each connected peripheral, once it is ready.
    public func connect(on central: Central, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil)
        -> AnyPublisher<Peripheral, BluetoothError>
    {
        flatMap(maxPublishers: .max(1)) { central.connect(to: $0, timeout: timeout, autoReconnect: autoReconnect) }
            .eraseToAnyPublisher()
    }
}

extension Publisher where Output == Peripheral, Failure == BluetoothError {
    /// Reads `characteristic` of each peripheral: see ``Peripheral/read(_:timeout:)``.
    ///
    /// An *event* stream of the values read, one per upstream peripheral, in order.
    ///
    /// - Parameter characteristic: the characteristic to read.
    /// - Returns: each peripheral's value.
    public func read(_ characteristic: CharacteristicReference) -> AnyPublisher<[UInt8], BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic) }.eraseToAnyPublisher()
    }

    /// Reads `characteristic` of each peripheral as `type`: see ``Peripheral/read(_:as:timeout:)``.
    ///
    /// An *event* stream of the values read, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic to read.
    ///   - type: what the characteristic's bytes encode.
    /// - Returns: each peripheral's decoded value.
    public func read<T: Readable>(_ characteristic: CharacteristicReference, as type: T.Type) -> AnyPublisher<
        T, BluetoothError
    > {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic, as: type) }.eraseToAnyPublisher()
    }

    /// Writes `bytes` to `characteristic` of each peripheral, then passes the peripheral on: see
    /// ``Peripheral/write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    ///
    /// An *event* stream of the peripherals written to, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - bytes: the value to write.
    ///   - characteristic: the characteristic to write.
    ///   - type: the kind of write.
    /// - Returns: each peripheral, once its write has completed.
    public func write(_ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse)
        -> AnyPublisher<Peripheral, BluetoothError>
    {
        flatMap(maxPublishers: .max(1)) { peripheral in
            peripheral.write(bytes, to: characteristic, type: type).map { peripheral }
        }.eraseToAnyPublisher()
    }

    /// The notifications of `characteristic` of each peripheral, merged in arrival order: see
    /// ``Peripheral/listen(to:buffering:transport:statistics:)``.
    ///
    /// An *event* stream: each peripheral's listener has a buffer of its own (`buffering`), and all of them
    /// are counted in `statistics`; under slow demand the merge holds one more notification per listener.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - buffering: each listener's buffer and what happens when it is full.
    ///   - statistics: where the listeners' notifications are counted, all together.
    /// - Returns: the notifications' values.
    public func listen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        flatMap { $0.listen(to: characteristic, buffering: buffering, statistics: statistics) }.eraseToAnyPublisher()
    }

    /// The notifications of `characteristic` of each peripheral as `type`, merged in arrival order: see
    /// ``Peripheral/listen(to:as:buffering:transport:statistics:)``.
    ///
    /// An *event* stream: each peripheral's listener has a buffer of its own (`buffering`), and all of them
    /// are counted in `statistics`; under slow demand the merge holds one more notification per listener.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - type: what each notification's bytes encode.
    ///   - buffering: each listener's buffer and what happens when it is full.
    ///   - statistics: where the listeners' notifications are counted, all together.
    /// - Returns: the decoded notifications.
    public func listen<T: Readable>(
        to characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default,
        statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<T, BluetoothError> {
        flatMap { $0.listen(to: characteristic, as: type, buffering: buffering, statistics: statistics) }
            .eraseToAnyPublisher()
    }

    /// Disconnects each peripheral: see ``Central/disconnect(_:)``.
    ///
    /// An *event* stream: one value per upstream peripheral, once its link is down.
    ///
    /// - Returns: a value per peripheral disconnected.
    public func disconnect() -> AnyPublisher<Void, BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.disconnect() }.eraseToAnyPublisher()
    }
}
