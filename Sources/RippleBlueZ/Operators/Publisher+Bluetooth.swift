import Ripple

extension Publisher where Output == PeripheralDiscovery, Failure == BluetoothError {
    /// Connects to each discovered peripheral, one at a time, on `central`: see
    /// ``Central/connect(to:timeout:autoReconnect:)-(PeripheralDiscovery,_,_)``. Typically after `first()`.
    public func connect(on central: Central, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil)
        -> AnyPublisher<Peripheral, BluetoothError>
    {
        flatMap(maxPublishers: .max(1)) { central.connect(to: $0, timeout: timeout, autoReconnect: autoReconnect) }
            .eraseToAnyPublisher()
    }
}

extension Publisher where Output == Peripheral, Failure == BluetoothError {
    /// Reads `characteristic` of each peripheral: see ``Peripheral/read(_:timeout:)``.
    public func read(_ characteristic: CharacteristicReference) -> AnyPublisher<[UInt8], BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic) }.eraseToAnyPublisher()
    }

    /// Reads `characteristic` of each peripheral as `type`: see ``Peripheral/read(_:as:timeout:)``.
    public func read<T: Readable>(_ characteristic: CharacteristicReference, as type: T.Type) -> AnyPublisher<
        T, BluetoothError
    > {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic, as: type) }.eraseToAnyPublisher()
    }

    /// Writes `bytes` to `characteristic` of each peripheral, then passes the peripheral on: see
    /// ``Peripheral/write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    public func write(_ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse)
        -> AnyPublisher<Peripheral, BluetoothError>
    {
        flatMap(maxPublishers: .max(1)) { peripheral in
            peripheral.write(bytes, to: characteristic, type: type).map { peripheral }
        }.eraseToAnyPublisher()
    }

    /// The notifications of `characteristic` of each peripheral: see ``Peripheral/listen(to:buffering:transport:statistics:)``.
    public func listen(to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default)
        -> AnyPublisher<[UInt8], BluetoothError>
    {
        flatMap { $0.listen(to: characteristic, buffering: buffering) }.eraseToAnyPublisher()
    }

    /// The notifications of `characteristic` of each peripheral as `type`: see ``Peripheral/listen(to:as:buffering:transport:)``.
    public func listen<T: Readable>(
        to characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default
    ) -> AnyPublisher<T, BluetoothError> {
        flatMap { $0.listen(to: characteristic, as: type, buffering: buffering) }.eraseToAnyPublisher()
    }

    /// Disconnects each peripheral: see ``Central/disconnect(_:)``.
    public func disconnect() -> AnyPublisher<Void, BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.disconnect() }.eraseToAnyPublisher()
    }
}
