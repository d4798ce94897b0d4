import Ripple

// The operation operators below take one upstream value at a time (`flatMap(maxPublishers: .max(1))`, as in
// Combine): while one operation runs, the next upstream values wait in the upstream's buffer (a discovery's
// ``EventBuffering``, say). An operation runs as soon as its peripheral comes, whatever the demand, and its
// result waits in the operator until asked for; the operator then takes the next upstream value. Nothing is
// lost, and the results waiting are at most one per upstream value taken (OperatorSlowConsumerTests). After
// `first()`, each is a single operation.

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
    /// - Parameters:
    ///   - characteristic: the characteristic to read.
    ///   - timeout: the longest each read may take.
    /// - Returns: each peripheral's value.
    public func read(_ characteristic: CharacteristicReference, timeout: Duration = .seconds(30))
        -> AnyPublisher<[UInt8], BluetoothError>
    {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic, timeout: timeout) }.eraseToAnyPublisher()
    }

    /// Reads `characteristic` of each peripheral as `type`: see ``Peripheral/read(_:as:timeout:)``.
    ///
    /// An *event* stream of the values read, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic to read.
    ///   - type: what the characteristic's bytes encode.
    ///   - timeout: the longest each read may take.
    /// - Returns: each peripheral's decoded value.
    public func read<T: Readable>(
        _ characteristic: CharacteristicReference, as type: T.Type, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<T, BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.read(characteristic, as: type, timeout: timeout) }.eraseToAnyPublisher()
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
    ///   - timeout: the longest each write may take.
    /// - Returns: each peripheral, once its write has completed.
    public func write(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        flatMap(maxPublishers: .max(1)) { peripheral in
            peripheral.write(bytes, to: characteristic, type: type, timeout: timeout).map { peripheral }
        }.eraseToAnyPublisher()
    }

    /// Writes `value`'s bytes to `characteristic` of each peripheral, then passes the peripheral on: see
    /// ``Peripheral/write(_:to:type:timeout:)-(T,_,_,_)``.
    ///
    /// An *event* stream of the peripherals written to, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - value: the value to write.
    ///   - characteristic: the characteristic to write.
    ///   - type: the kind of write.
    ///   - timeout: the longest each write may take.
    /// - Returns: each peripheral, once its write has completed.
    public func write<Value: Writable>(
        _ value: Value, to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Peripheral, BluetoothError> {
        write(value.bluetoothBytes, to: characteristic, type: type, timeout: timeout)
    }

    /// Writes `bytes` as a request to each peripheral and emits its reply: see
    /// ``Peripheral/writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``.
    ///
    /// An *event* stream of the replies, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - bytes: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest each write and its reply may take together.
    /// - Returns: each peripheral's reply.
    public func writeAndListen(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        flatMap(maxPublishers: .max(1)) {
            $0.writeAndListen(bytes, to: characteristic, reply: reply, type: type, timeout: timeout)
        }.eraseToAnyPublisher()
    }

    /// Writes `value`'s bytes as a request to each peripheral and emits its reply: see
    /// ``Peripheral/writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``.
    ///
    /// An *event* stream of the replies, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest each write and its reply may take together.
    /// - Returns: each peripheral's reply.
    public func writeAndListen<Value: Writable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        writeAndListen(value.bluetoothBytes, to: characteristic, reply: reply, type: type, timeout: timeout)
    }

    /// Writes `bytes` as a request to each peripheral and emits its reply decoded as `replyType`: see
    /// ``Peripheral/writeAndListen(_:to:reply:as:type:timeout:)-([UInt8],_,_,_,_,_)``.
    ///
    /// An *event* stream of the replies, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - bytes: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - replyType: what each reply's bytes encode.
    ///   - type: the kind of write.
    ///   - timeout: the longest each write and its reply may take together.
    /// - Returns: each peripheral's decoded reply.
    public func writeAndListen<Reply: Readable>(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        as replyType: Reply.Type, type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Reply, BluetoothError> {
        flatMap(maxPublishers: .max(1)) {
            $0.writeAndListen(bytes, to: characteristic, reply: reply, as: replyType, type: type, timeout: timeout)
        }.eraseToAnyPublisher()
    }

    /// Writes `value`'s bytes as a request to each peripheral and emits its reply decoded as `replyType`:
    /// see ``Peripheral/writeAndListen(_:to:reply:as:type:timeout:)-(Value,_,_,_,_,_)``.
    ///
    /// An *event* stream of the replies, one per upstream peripheral, in order.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - replyType: what each reply's bytes encode.
    ///   - type: the kind of write.
    ///   - timeout: the longest each write and its reply may take together.
    /// - Returns: each peripheral's decoded reply.
    public func writeAndListen<Value: Writable, Reply: Readable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        as replyType: Reply.Type, type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Reply, BluetoothError> {
        writeAndListen(
            value.bluetoothBytes, to: characteristic, reply: reply, as: replyType, type: type, timeout: timeout)
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

    /// Disconnects each peripheral: see ``Central/disconnect(_:timeout:)``.
    ///
    /// An *event* stream: one value per upstream peripheral, once its link is down.
    ///
    /// - Parameter timeout: the longest to wait for bluetoothd's answer, for each peripheral.
    /// - Returns: a value per peripheral disconnected.
    public func disconnect(timeout: Duration = .seconds(30)) -> AnyPublisher<Void, BluetoothError> {
        flatMap(maxPublishers: .max(1)) { $0.disconnect(timeout: timeout) }.eraseToAnyPublisher()
    }
}
