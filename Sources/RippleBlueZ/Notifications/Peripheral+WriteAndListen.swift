import Ripple
import RippleLoop

extension Peripheral {
    /// Writes a request and emits the reply that the peripheral notifies (a request/response control
    /// point): a *single-value* publisher.
    ///
    /// It subscribes to `reply`'s notifications first, writes `bytes` to `characteristic` once the
    /// listener has started, then emits the first notification after the write and finishes. It fails
    /// with the write's error, the listener's error, or ``BluetoothError/Kind/timeout`` when no reply
    /// has come within `timeout` of the subscription.
    ///
    /// - Parameters:
    ///   - bytes: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the reply's bytes, then the end.
    public func writeAndListen(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        let peripheral = self
        let started = PassthroughSubject<Void, Never>()
        // Subscribed before the listener, so that a session already started (which reports at once) is seen.
        let writeThenNothing = started.first().setFailureType(to: BluetoothError.self)
            .flatMap { peripheral.write(bytes, to: characteristic, type: type, timeout: timeout) }
            .flatMap { Empty<[UInt8], BluetoothError>() }
        let listener = NotificationPublisher(
            peripheral: self, characteristic: reply, buffering: .default, statistics: NotificationStatistics(),
            onStarted: { started.send(()) })
        let operation = "writing \(characteristic) of \(address) and listening to \(reply)"
        return writeThenNothing.merge(with: listener).first()
            .timeout(
                .nanoseconds(timeout.clampedNanoseconds), scheduler: central.core.loop,
                customError: { BluetoothError(.timeout, "\(operation) (no reply within \(timeout))") }
            )
            .eraseToAnyPublisher()
    }

    /// Writes `value`'s bytes as a request and emits the reply's bytes, a *single-value* publisher: see
    /// ``writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the reply's bytes, then the end.
    public func writeAndListen<Value: Writable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        writeAndListen(value.bluetoothBytes, to: characteristic, reply: reply, type: type, timeout: timeout)
    }

    /// Writes `bytes` as a request and emits the reply decoded as `replyType`, a *single-value* publisher: see
    /// ``writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``. A reply that is not a `replyType`
    /// fails with ``BluetoothError/Kind/invalidValue(_:)``.
    ///
    /// - Parameters:
    ///   - bytes: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - replyType: what the reply's bytes encode.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the decoded reply, then the end.
    public func writeAndListen<Reply: Readable>(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        as replyType: Reply.Type, type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Reply, BluetoothError> {
        writeAndListen(bytes, to: characteristic, reply: reply, type: type, timeout: timeout).decoded(as: replyType)
    }

    /// Writes `value`'s bytes as a request and emits the reply decoded as `replyType`, a *single-value*
    /// publisher: see
    /// ``writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``. A reply that is not a `replyType`
    /// fails with ``BluetoothError/Kind/invalidValue(_:)``.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - replyType: what the reply's bytes encode.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the decoded reply, then the end.
    public func writeAndListen<Value: Writable, Reply: Readable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        as replyType: Reply.Type, type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Reply, BluetoothError> {
        writeAndListen(value.bluetoothBytes, to: characteristic, reply: reply, type: type, timeout: timeout)
            .decoded(as: replyType)
    }
}
