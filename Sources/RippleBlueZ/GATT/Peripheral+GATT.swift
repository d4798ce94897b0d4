import Ripple
import RippleDBus

extension Peripheral {
    /// Its GATT services as bluetoothd resolved them (empty until connected and resolved).
    public var services: [GATTService] { central.core.services(of: path) }

    /// The ATT MTU bluetoothd negotiated for the characteristic's link, if known.
    public func mtu(of characteristic: CharacteristicReference) -> Int? {
        guard case let .success(found) = central.core.characteristic(characteristic, of: self) else { return nil }
        return central.core.lock.withLock {
            central.core.tree.properties(of: found.path, interface: BlueZ.characteristic)?["MTU"]?.uint16.map(Int.init)
        }
    }

    /// Reads the characteristic's value (`ReadValue`; bluetoothd reads long values whole): emits the
    /// bytes, then finishes. Fails with ``BluetoothError/Kind/notConnected`` when the peripheral is not
    /// connected or disconnects during the read, ``BluetoothError/Kind/attributeNotFound``,
    /// ``BluetoothError/Kind/notPermitted``, ``BluetoothError/Kind/attError(_:)`` and the other errors of
    /// bluetoothd. The read's value never reaches this characteristic's listeners as a notification.
    public func read(_ characteristic: CharacteristicReference) -> AnyPublisher<[UInt8], BluetoothError> {
        let core = central.core
        let peripheral = self
        return Deferred { () -> AnyPublisher<[UInt8], BluetoothError> in
            let found: GATTCharacteristic
            switch core.characteristic(characteristic, of: peripheral) {
            case let .success(value): found = value
            case let .failure(error): return Fail(error: error).eraseToAnyPublisher()
            }
            let operation = "reading \(characteristic) of \(peripheral.address)"
            return core.connection.call(
                destination: BlueZ.service, path: found.path, interface: BlueZ.characteristic, member: "ReadValue",
                arguments: [.stringVariantDictionary([:])]
            )
            .mapError { BluetoothError($0, during: operation) }
            .tryMap { message throws(BluetoothError) -> [UInt8] in
                guard let bytes = message.body.first?.bytes else {
                    throw BluetoothError(.failed, "\(operation): bluetoothd answered with \(message.signature) instead of ay")
                }
                return bytes
            }
            .mapError { $0 as? BluetoothError ?? BluetoothError(.failed, "\(operation) failed: \($0)") }
            .handleEvents(
                receiveSubscription: { _ in core.readStarted(found.path) },
                receiveOutput: { core.readEnded(found.path, value: $0) },
                receiveCompletion: { if case .failure = $0 { core.readEnded(found.path, value: nil) } },
                receiveCancel: { core.readEnded(found.path, value: nil) })
            .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Reads the characteristic and decodes it as `type`; fails also with
    /// ``BluetoothError/Kind/invalidValue(_:)`` when the bytes are not a `type`.
    public func read<T: Readable>(_ characteristic: CharacteristicReference, as type: T.Type) -> AnyPublisher<T, BluetoothError> {
        read(characteristic).tryMap { bytes throws(BluetoothError) -> T in try T.decoded(from: bytes) }
            .mapError { $0 as? BluetoothError ?? BluetoothError(.failed, "\($0)") }
            .eraseToAnyPublisher()
    }

    /// Writes `bytes` to the characteristic (`WriteValue` with type `request` or `command`): emits once
    /// bluetoothd has written them (acknowledged, for ``WriteType/withResponse``), then finishes. Fails as
    /// ``read(_:)`` does.
    public func write(_ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse)
        -> AnyPublisher<Void, BluetoothError>
    {
        let core = central.core
        let peripheral = self
        return Deferred { () -> AnyPublisher<Void, BluetoothError> in
            let found: GATTCharacteristic
            switch core.characteristic(characteristic, of: peripheral) {
            case let .success(value): found = value
            case let .failure(error): return Fail(error: error).eraseToAnyPublisher()
            }
            let options: [String: DBusValue] = ["type": .string(type == .withResponse ? "request" : "command")]
            return core.connection.call(
                destination: BlueZ.service, path: found.path, interface: BlueZ.characteristic, member: "WriteValue",
                arguments: [.bytes(bytes), .stringVariantDictionary(options)]
            )
            .map { _ in () }
            .mapError { BluetoothError($0, during: "writing \(characteristic) of \(peripheral.address)") }
            .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Writes `value`'s bytes: see ``write(_:to:type:)-([UInt8],_,_)``.
    public func write<T: Writable>(_ value: T, to characteristic: CharacteristicReference, type: WriteType = .withResponse)
        -> AnyPublisher<Void, BluetoothError>
    {
        write(value.bluetoothBytes, to: characteristic, type: type)
    }

    /// The characteristic's notifications (or indications), each as bytes, until cancelled.
    ///
    /// Listeners of one characteristic in this process share one bluetoothd session (`StartNotify`
    /// with the first, `StopNotify` after the last), so cancelling one never silences another. Each
    /// listener has its own bounded buffer (`buffering`) between the notifications and its subscriber's
    /// demand, and `statistics` counts what arrived, was delivered and was dropped. Fails with
    /// ``BluetoothError/Kind/notConnected`` when the link drops, with bluetoothd's error when it refuses
    /// to notify (``BluetoothError/Kind/notPermitted``, …), and with
    /// ``BluetoothError/Kind/bufferOverflow`` under ``NotificationBufferPolicy/failStream``.
    public func listen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default,
        statistics: NotificationStatistics = NotificationStatistics()
    ) -> AnyPublisher<[UInt8], BluetoothError> {
        NotificationPublisher(
            peripheral: self, characteristic: characteristic, buffering: buffering, statistics: statistics
        ).eraseToAnyPublisher()
    }

    /// The characteristic's notifications decoded as `type`: see ``listen(to:buffering:statistics:)``. A
    /// notification that is not a `type` ends the stream with ``BluetoothError/Kind/invalidValue(_:)``.
    public func listen<T: Readable>(
        to characteristic: CharacteristicReference, as type: T.Type, buffering: NotificationBuffering = .default
    ) -> AnyPublisher<T, BluetoothError> {
        listen(to: characteristic, buffering: buffering)
            .tryMap { bytes throws(BluetoothError) -> T in try T.decoded(from: bytes) }
            .mapError { $0 as? BluetoothError ?? BluetoothError(.failed, "\($0)") }
            .eraseToAnyPublisher()
    }

    /// The characteristic's notifications for many subscribers: nothing starts until `connect()`, then
    /// every subscriber gets each notification.
    public func connectableListen(
        to characteristic: CharacteristicReference, buffering: NotificationBuffering = .default
    ) -> Publishers.Multicast<AnyPublisher<[UInt8], BluetoothError>, PassthroughSubject<[UInt8], BluetoothError>> {
        listen(to: characteristic, buffering: buffering).multicast { PassthroughSubject() }
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

    /// Disconnects: see ``Central/disconnect(_:)``.
    public func disconnect() -> AnyPublisher<Void, BluetoothError> {
        central.disconnect(self)
    }
}

extension Readable {
    /// Decodes `bytes`, as a ``BluetoothError``.
    static func decoded(from bytes: [UInt8]) throws(BluetoothError) -> Self {
        do {
            return try Self(bluetoothBytes: bytes)
        } catch {
            throw .invalidValue(error)
        }
    }
}
