import Ripple

// The async forms follow one naming rule: the publisher form's verb, then the noun it acts on
// (`connectPeripheral`, `readValue`, `writeValue`, `writeValueAndListen`, `disconnectPeripheral`,
// `pairPeripheral`, `disconnectCentral`; a publisher named by its noun alone takes the verb `read`:
// `readDeviceInformation`), with the publisher form's labels and `timeout:` otherwise. So no async method
// shares a base name with a publisher method, and `peripheral.disconnect().sink { … }` means the publisher
// inside async code too. Cancelling the awaiting task cancels the operation and throws
// ``BluetoothError/Kind/cancelled``. Every single-value operation of `Central`, `Peripheral` and
// `PeripheralManager` has its async form here; streams have none, as a stream is not one value to await:
// iterate their `values` (or `notifications(of:)`) instead.

extension Central {
    /// Connects to the peripheral with `address` and returns it once ready: the async form of
    /// ``connect(to:timeout:autoReconnect:)-(BluetoothAddress,_,_)``.
    ///
    /// - Parameters:
    ///   - address: the peripheral's Bluetooth address.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: the reconnection policy to put the peripheral under once connected.
    /// - Returns: the connected peripheral.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled (the attempt is cancelled too).
    public func connectPeripheral(
        to address: BluetoothAddress, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) async throws(BluetoothError) -> Peripheral {
        try await awaitFirst(
            connect(to: address, timeout: timeout, autoReconnect: autoReconnect), "connecting to \(address)")
    }

    /// Connects to the peripheral of `discovery` and returns it once ready: the async form of
    /// ``connect(to:timeout:autoReconnect:)-(PeripheralDiscovery,_,_)``.
    ///
    /// - Parameters:
    ///   - discovery: the discovered peripheral.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: the reconnection policy to put the peripheral under once connected.
    /// - Returns: the connected peripheral.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func connectPeripheral(
        to discovery: PeripheralDiscovery, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) async throws(BluetoothError) -> Peripheral {
        try await connectPeripheral(to: discovery.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Connects to `peripheral` and returns it once ready: the async form of
    /// ``connect(to:timeout:autoReconnect:)-(Peripheral,_,_)``.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral to connect.
    ///   - timeout: the attempt's time limit, retries included.
    ///   - autoReconnect: the reconnection policy to put the peripheral under once connected.
    /// - Returns: the connected peripheral.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func connectPeripheral(
        to peripheral: Peripheral, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil
    ) async throws(BluetoothError) -> Peripheral {
        try await connectPeripheral(to: peripheral.address, timeout: timeout, autoReconnect: autoReconnect)
    }

    /// Disconnects `peripheral`: the async form of ``disconnect(_:timeout:)``.
    ///
    /// - Parameters:
    ///   - peripheral: the peripheral to disconnect.
    ///   - timeout: the longest to wait for bluetoothd's answer.
    /// - Throws: bluetoothd's error as a ``BluetoothError``; ``BluetoothError/Kind/timeout`` when it has not
    ///   answered within `timeout`; ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func disconnectPeripheral(_ peripheral: Peripheral, timeout: Duration = .seconds(30))
        async throws(BluetoothError)
    {
        try await awaitFirst(disconnect(peripheral, timeout: timeout), "disconnecting \(peripheral.address)")
    }
}

extension Peripheral {
    /// Reads `characteristic`: the async form of ``read(_:timeout:)``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic to read.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the characteristic's bytes.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func readValue(_ characteristic: CharacteristicReference, timeout: Duration = .seconds(30))
        async throws(BluetoothError) -> [UInt8]
    {
        try await awaitFirst(read(characteristic, timeout: timeout), "reading \(characteristic)")
    }

    /// Reads `characteristic` as `type`: the async form of ``read(_:as:timeout:)``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic to read.
    ///   - type: what the characteristic's bytes encode.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the decoded value.
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/invalidValue(_:)`` when
    ///   the bytes are not a `type`); ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func readValue<T: Readable>(
        _ characteristic: CharacteristicReference, as type: T.Type, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> T {
        try await awaitFirst(read(characteristic, as: type, timeout: timeout), "reading \(characteristic)")
    }

    /// Writes `bytes` to `characteristic`: the async form of ``write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    ///
    /// - Parameters:
    ///   - bytes: the value to write.
    ///   - characteristic: the characteristic to write.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func writeValue(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) {
        try await awaitFirst(
            write(bytes, to: characteristic, type: type, timeout: timeout), "writing \(characteristic)")
    }

    /// Writes `value`'s bytes to `characteristic`: the async form of
    /// ``write(_:to:type:timeout:)-(T,_,_,_)``.
    ///
    /// - Parameters:
    ///   - value: the value to write.
    ///   - characteristic: the characteristic to write.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func writeValue<T: Writable>(
        _ value: T, to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) {
        try await writeValue(value.bluetoothBytes, to: characteristic, type: type, timeout: timeout)
    }

    /// Writes `bytes` as a request and returns the reply's bytes: the async form of
    /// ``writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - bytes: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the reply's bytes.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func writeValueAndListen(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> [UInt8] {
        try await awaitFirst(
            writeAndListen(bytes, to: characteristic, reply: reply, type: type, timeout: timeout),
            "writing \(characteristic) and listening to \(reply)")
    }

    /// Writes `value`'s bytes as a request and returns the reply's bytes: the async form of
    /// ``writeAndListen(_:to:reply:type:timeout:)-([UInt8],_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the reply's bytes.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func writeValueAndListen<Value: Writable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> [UInt8] {
        try await awaitFirst(
            writeAndListen(value.bluetoothBytes, to: characteristic, reply: reply, type: type, timeout: timeout),
            "writing \(characteristic) and listening to \(reply)")
    }

    /// Writes `value`'s bytes as a request and returns the reply decoded as `replyType`: the async form of
    /// ``writeAndListen(_:to:reply:as:type:timeout:)-(Value,_,_,_,_,_)``.
    ///
    /// - Parameters:
    ///   - value: the request.
    ///   - characteristic: where the request is written.
    ///   - reply: the characteristic whose next notification is the reply.
    ///   - replyType: what the reply's bytes encode.
    ///   - type: the kind of write.
    ///   - timeout: the longest the write and the reply may take together.
    /// - Returns: the decoded reply.
    /// - Throws: ``BluetoothError`` as the publisher fails; ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func writeValueAndListen<Value: Writable, Reply: Readable>(
        _ value: Value, to characteristic: CharacteristicReference, reply: CharacteristicReference,
        as replyType: Reply.Type, type: WriteType = .withResponse, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> Reply {
        try await awaitFirst(
            writeAndListen(
                value.bluetoothBytes, to: characteristic, reply: reply, as: replyType, type: type, timeout: timeout),
            "writing \(characteristic) and listening to \(reply)")
    }

    /// Reads the descriptor `descriptor` of `characteristic`: the async form of
    /// ``read(descriptor:of:timeout:)``.
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the descriptor's bytes.
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/attributeNotFound`` when
    ///   the characteristic has no such descriptor); ``BluetoothError/Kind/cancelled`` when the task is
    ///   cancelled.
    public func readValue(
        descriptor: BluetoothUUID, of characteristic: CharacteristicReference, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> [UInt8] {
        try await awaitFirst(
            read(descriptor: descriptor, of: characteristic, timeout: timeout),
            "reading descriptor \(descriptor) of \(characteristic)")
    }

    /// Reads the descriptor `descriptor` of `characteristic` as `type`: the async form of
    /// ``read(descriptor:of:as:timeout:)``.
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - type: what the descriptor's bytes encode.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the decoded value.
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/invalidValue(_:)`` when
    ///   the bytes are not a `type`); ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func readValue<T: Readable>(
        descriptor: BluetoothUUID, of characteristic: CharacteristicReference, as type: T.Type,
        timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) -> T {
        try await awaitFirst(
            read(descriptor: descriptor, of: characteristic, as: type, timeout: timeout),
            "reading descriptor \(descriptor) of \(characteristic)")
    }

    /// Writes `bytes` to the descriptor `descriptor` of `characteristic`: the async form of
    /// ``write(_:toDescriptor:of:timeout:)``.
    ///
    /// - Parameters:
    ///   - bytes: the bytes to write.
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/notPermitted`` for the
    ///   Client Characteristic Configuration descriptor); ``BluetoothError/Kind/cancelled`` when the task is
    ///   cancelled.
    public func writeValue(
        _ bytes: [UInt8], toDescriptor descriptor: BluetoothUUID, of characteristic: CharacteristicReference,
        timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) {
        try await awaitFirst(
            write(bytes, toDescriptor: descriptor, of: characteristic, timeout: timeout),
            "writing descriptor \(descriptor) of \(characteristic)")
    }

    /// Reads the Device Information service's characteristics that the peripheral has: the async form of
    /// ``deviceInformation(timeout:)``.
    ///
    /// - Parameter timeout: the longest all the reads may take together.
    /// - Returns: what the characteristics say (nil fields for those the peripheral lacks).
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/attributeNotFound`` when
    ///   the peripheral has no Device Information service); ``BluetoothError/Kind/cancelled`` when the task
    ///   is cancelled.
    public func readDeviceInformation(timeout: Duration = .seconds(30)) async throws(BluetoothError)
        -> DeviceInformation
    {
        try await awaitFirst(deviceInformation(timeout: timeout), "reading the device information of \(address)")
    }

    /// Pairs with the peripheral (at once when it is paired already): the async form of
    /// ``pair(timeout:)``.
    ///
    /// Cancelling the task, or `timeout` passing, cancels the pairing in bluetoothd too
    /// (`Device1.CancelPairing()`): the peripheral stays unpaired. The cancellation is best effort: its own
    /// failure is ignored (`DoesNotExist` when the pairing ended meanwhile).
    ///
    /// - Parameter timeout: the longest the pairing may take.
    /// - Throws: ``BluetoothError`` as the publisher fails (``BluetoothError/Kind/insufficientAuthentication``
    ///   when the pairing is rejected or fails, ``BluetoothError/Kind/timeout`` after `timeout`);
    ///   ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func pairPeripheral(timeout: Duration = .seconds(60)) async throws(BluetoothError) {
        try await awaitFirst(pair(timeout: timeout), "pairing with \(address)")
    }

    /// Disconnects: the async form of ``disconnect(timeout:)``.
    ///
    /// - Parameter timeout: the longest to wait for bluetoothd's answer.
    /// - Throws: bluetoothd's error as a ``BluetoothError``; ``BluetoothError/Kind/timeout`` when it has not
    ///   answered within `timeout`; ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func disconnectPeripheral(timeout: Duration = .seconds(30)) async throws(BluetoothError) {
        try await central.disconnectPeripheral(self, timeout: timeout)
    }

    /// The notifications of `characteristic` as an asynchronous sequence, an *event* stream: see
    /// ``listen(to:buffering:transport:statistics:)``. The iteration throws the stream's
    /// ``BluetoothError``; ending it (or cancelling its task) stops listening.
    ///
    /// Notifications that arrive while the loop's body runs (or awaits) wait in the listener's buffer, so
    /// the loop sees every one within `buffering`'s capacity; past it, the drops are counted in
    /// `statistics` or the iteration throws ``BluetoothError/Kind/bufferOverflow``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - buffering: the listener's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the listener's notifications are counted (received, delivered, dropped).
    /// - Returns: the notifications' values, in arrival order.
    public func notifications(
        of characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> AsyncThrowingPublisher<AnyPublisher<[UInt8], BluetoothError>> {
        listen(to: characteristic, buffering: buffering, transport: transport, statistics: statistics).values
    }

    /// The notifications of `characteristic` decoded as `type`, as an asynchronous sequence, an *event*
    /// stream: see ``notifications(of:buffering:transport:statistics:)`` and
    /// ``listen(to:as:buffering:transport:statistics:)``.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic that notifies or indicates.
    ///   - type: what each notification's bytes encode.
    ///   - buffering: the listener's buffer and what happens when it is full.
    ///   - transport: how bluetoothd delivers the notifications.
    ///   - statistics: where the listener's notifications are counted (received, delivered, dropped).
    /// - Returns: the decoded notifications, in arrival order.
    public func notifications<T: Readable>(
        of characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default,
        transport: NotificationTransport = .automatic, statistics: NotificationStatistics = NotificationStatistics()
    ) -> AsyncThrowingPublisher<AnyPublisher<T, BluetoothError>> {
        listen(to: characteristic, as: type, buffering: buffering, transport: transport, statistics: statistics)
            .values
    }
}

extension PeripheralManager {
    /// Disconnects `central`: the async form of ``disconnect(_:timeout:)``.
    ///
    /// - Parameters:
    ///   - central: the central.
    ///   - timeout: the longest to wait for bluetoothd's answer.
    /// - Throws: bluetoothd's error as a ``BluetoothError``; ``BluetoothError/Kind/timeout`` when it has not
    ///   answered within `timeout`; ``BluetoothError/Kind/cancelled`` when the task is cancelled.
    public func disconnectCentral(_ central: ConnectedCentral, timeout: Duration = .seconds(30))
        async throws(BluetoothError)
    {
        try await awaitFirst(disconnect(central, timeout: timeout), "disconnecting \(central.address)")
    }
}

/// The first value of `publisher`, as a typed error.
private func awaitFirst<P: Publisher>(_ publisher: P, _ operation: String) async throws(BluetoothError) -> P.Output
where P.Failure == BluetoothError, P.Output: Sendable {
    do {
        for try await value in publisher.first().values { return value }
    } catch let error as BluetoothError {
        throw error
    } catch {
        throw BluetoothError(.cancelled, "\(operation) was cancelled")
    }
    // Cancelling the task cancels the subscription, and the sequence ends without a value.
    if Task.isCancelled { throw BluetoothError(.cancelled, "\(operation) was cancelled") }
    throw BluetoothError(.failed, "\(operation) ended without a value")
}
