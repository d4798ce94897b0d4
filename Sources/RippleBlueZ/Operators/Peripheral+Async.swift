import Ripple

extension Central {
    /// Connects to the peripheral with `address`: see ``connect(to:timeout:autoReconnect:)-(String,_,_)``.
    public func connect(address: String, timeout: Duration = .seconds(30), autoReconnect: ReconnectPolicy? = nil)
        async throws(BluetoothError) -> Peripheral
    {
        try await awaitFirst(
            connect(to: address, timeout: timeout, autoReconnect: autoReconnect), "connecting to \(address)")
    }
}

extension Peripheral {
    /// Reads `characteristic`: see ``read(_:timeout:)``.
    public func readValue(_ characteristic: CharacteristicReference) async throws(BluetoothError) -> [UInt8] {
        try await awaitFirst(read(characteristic), "reading \(characteristic)")
    }

    /// Reads `characteristic` as `type`: see ``read(_:as:timeout:)``.
    public func readValue<T: Readable>(_ characteristic: CharacteristicReference, as type: T.Type)
        async throws(BluetoothError) -> T
    {
        try await awaitFirst(read(characteristic, as: type), "reading \(characteristic)")
    }

    /// Writes `bytes` to `characteristic`: see ``write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    public func writeValue(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse
    )
        async throws(BluetoothError)
    {
        try await awaitFirst(write(bytes, to: characteristic, type: type), "writing \(characteristic)")
    }

    /// Writes `value`'s bytes to `characteristic`: see ``write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    public func writeValue<T: Writable>(
        _ value: T, to characteristic: CharacteristicReference, type: WriteType = .withResponse
    )
        async throws(BluetoothError)
    {
        try await writeValue(value.bluetoothBytes, to: characteristic, type: type)
    }

    /// Disconnects: see ``Central/disconnect(_:)``.
    public func disconnect() async throws(BluetoothError) {
        try await awaitFirst(disconnect(), "disconnecting \(address)")
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
    throw BluetoothError(.failed, "\(operation) ended without a value")
}
