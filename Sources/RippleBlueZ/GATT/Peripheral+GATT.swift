import Ripple
import RippleDBus
import Synchronization

extension Peripheral {
    /// Its GATT services as bluetoothd resolved them (empty until connected and resolved).
    public var services: [GATTService] { central.core.services(of: path) }

    /// The ATT MTU bluetoothd negotiated for the peripheral's link, as the characteristic reports it
    /// (nil when the characteristic is not found or bluetoothd does not say).
    ///
    /// - Parameter characteristic: a characteristic of the peripheral.
    /// - Returns: the MTU in bytes, or nil.
    public func mtu(of characteristic: CharacteristicReference) -> Int? {
        guard case .success(let found) = central.core.characteristic(characteristic, of: self) else { return nil }
        return central.core.mirror.withLock { mirror in
            mirror.tree.properties(of: found.path, interface: BlueZ.characteristic)?["MTU"]?.uint16.map(Int.init)
        }
    }

    /// Reads the characteristic's value (`ReadValue`; bluetoothd reads long values whole): emits the
    /// bytes, then finishes.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// The read waits for its turn in the peripheral's operation queue (one GATT operation at a time,
    /// in the order asked for, so bluetoothd never answers `InProgress`) and fails with
    /// ``BluetoothError/Kind/timeout`` when not answered within `timeout` of its start. An operation whose
    /// caller stopped waiting (its timeout passed, or it was cancelled) keeps its turn until bluetoothd
    /// answers it, so the one behind it may wait longer than its own `timeout` before it starts. Fails with ``BluetoothError/Kind/notConnected`` when the peripheral is not
    /// connected or disconnects during the read, ``BluetoothError/Kind/attributeNotFound``,
    /// ``BluetoothError/Kind/notPermitted``, ``BluetoothError/Kind/attError(_:)`` and the other errors of
    /// bluetoothd. The read's value never reaches this characteristic's listeners as a notification.
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the bytes, then the end; fails with a ``BluetoothError``.
    public func read(_ characteristic: CharacteristicReference, timeout: Duration = .seconds(30)) -> AnyPublisher<
        [UInt8], BluetoothError
    > {
        let core = central.core
        let peripheral = self
        return core.queued(
            on: path, "reading \(characteristic) of \(address)", timeout: timeout, urgent: isInConnectionTask
        ) { () -> Result<AnyPublisher<[UInt8], BluetoothError>, BluetoothError> in
            core.characteristic(characteristic, of: peripheral).map { found in
                Deferred { () -> AnyPublisher<[UInt8], BluetoothError> in
                    // Counted before the call can leave: its echo may come back before any subscription event.
                    // It ends once: with its value, its failure, or a cancellation (which also follows a value
                    // when the subscriber takes just the first).
                    core.readStarted(found.path, reference: characteristic, of: peripheral)
                    let ended = Atomic(false)
                    let end: @Sendable ([UInt8]?) -> Void = { value in
                        if !ended.exchange(true, ordering: .acquiringAndReleasing) {
                            core.perform { core.readEnded(found.path, value: value) }
                        }
                    }
                    return core.readValue(
                        at: found.path, interface: BlueZ.characteristic,
                        operation: "reading \(characteristic) of \(peripheral.address)"
                    )
                    .handleEvents(
                        receiveOutput: { end($0) },
                        receiveCompletion: { _ in end(nil) },
                        receiveCancel: { end(nil) }
                    )
                    .catch { error in
                        core.retryOnMovedAttribute(error, characteristic, of: peripheral, was: found.path) { moved in
                            core.readValue(
                                at: moved.path, interface: BlueZ.characteristic,
                                operation: "reading \(characteristic) of \(peripheral.address)")
                        }
                    }
                    .eraseToAnyPublisher()
                }.eraseToAnyPublisher()
            }
        }
    }

    /// Reads the characteristic and decodes it as `type`; fails also with
    /// ``BluetoothError/Kind/invalidValue(_:)`` when the bytes are not a `type`.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - characteristic: the characteristic.
    ///   - type: what the bytes encode.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the decoded value, then the end; fails with a ``BluetoothError``.
    public func read<T: Readable>(
        _ characteristic: CharacteristicReference, as type: T.Type, timeout: Duration = .seconds(30)
    )
        -> AnyPublisher<T, BluetoothError>
    {
        read(characteristic, timeout: timeout).decoded(as: type)
    }

    /// Writes `bytes` to the characteristic (`WriteValue` with type `request` or `command`): emits once
    /// bluetoothd has written them (acknowledged, for ``WriteType/withResponse``), then finishes.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// A write with response may be longer than the link's MTU allows in one packet: bluetoothd writes
    /// it in parts (a long write), up to the 512 bytes an attribute holds. A write without response must fit in one packet (MTU − 3 bytes); a
    /// longer one fails at once with ``BluetoothError/Kind/invalidArgument``. Waits for its turn in the
    /// peripheral's operation queue and fails otherwise as ``read(_:timeout:)`` does.
    ///
    /// - Parameters:
    ///   - bytes: the bytes to write.
    ///   - characteristic: the characteristic.
    ///   - type: with or without response.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Returns: one value once written (a write without response: once sent), then the end; fails with a
    ///   ``BluetoothError``.
    public func write(
        _ bytes: [UInt8], to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Void, BluetoothError> {
        let core = central.core
        let peripheral = self
        return core.queued(
            on: path, "writing \(characteristic) of \(address)", timeout: timeout, urgent: isInConnectionTask
        ) { () -> Result<AnyPublisher<Void, BluetoothError>, BluetoothError> in
            let found: GATTCharacteristic
            switch core.characteristic(characteristic, of: peripheral) {
            case .success(let value): found = value
            case .failure(let error): return .failure(error)
            }
            let operation = "writing \(characteristic) of \(peripheral.address)"
            if bytes.count > maximumAttributeValueLength {
                return .failure(.valueTooLong(bytes.count, during: operation))
            }
            if type == .withoutResponse, let mtu = peripheral.mtu(of: characteristic), bytes.count > mtu - 3 {
                return .failure(
                    BluetoothError(
                        .invalidArgument,
                        "\(operation): \(bytes.count) bytes do not fit in one write without response (MTU \(mtu) allows \(mtu - 3))"
                    ))
            }
            let options: [String: DBusValue] = ["type": .string(type == .withResponse ? "request" : "command")]
            return .success(
                core.writeValue(
                    bytes, at: found.path, interface: BlueZ.characteristic, options: options, operation: operation
                )
                .catch { error in
                    core.retryOnMovedAttribute(error, characteristic, of: peripheral, was: found.path) { moved in
                        core.writeValue(
                            bytes, at: moved.path, interface: BlueZ.characteristic, options: options,
                            operation: operation)
                    }
                }
                .eraseToAnyPublisher())
        }
    }

    /// Writes `value`'s bytes: see ``write(_:to:type:timeout:)-([UInt8],_,_,_)``.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - value: the value to write.
    ///   - characteristic: the characteristic.
    ///   - type: with or without response.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Returns: one value once written, then the end; fails with a ``BluetoothError``.
    public func write<T: Writable>(
        _ value: T, to characteristic: CharacteristicReference, type: WriteType = .withResponse,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Void, BluetoothError> {
        write(value.bluetoothBytes, to: characteristic, type: type, timeout: timeout)
    }

    /// Disconnects: see ``Central/disconnect(_:timeout:)``.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameter timeout: the longest to wait for bluetoothd's answer.
    /// - Returns: one value once disconnected, then the end; fails with bluetoothd's error or
    ///   ``BluetoothError/Kind/timeout``.
    public func disconnect(timeout: Duration = .seconds(30)) -> AnyPublisher<Void, BluetoothError> {
        central.disconnect(self, timeout: timeout)
    }
}

extension CentralCore {
    /// When bluetoothd answers that the object is unknown — its database changed and the characteristic
    /// moved — looks the characteristic up again by its reference and runs `retry` on it once; any other
    /// error (or a characteristic that is gone or did not move) stays the answer.
    func retryOnMovedAttribute<Output: Sendable>(
        _ error: BluetoothError, _ reference: CharacteristicReference, of peripheral: Peripheral,
        was path: DBusObjectPath,
        _ retry: (GATTCharacteristic) -> AnyPublisher<Output, BluetoothError>
    ) -> AnyPublisher<Output, BluetoothError> {
        guard
            error.bluezName == "org.freedesktop.DBus.Error.UnknownObject"
                || error.bluezName == "org.freedesktop.DBus.Error.UnknownMethod",
            case .success(let moved) = characteristic(reference, of: peripheral), moved.path != path
        else { return Fail(error: error).eraseToAnyPublisher() }
        return retry(moved)
    }

    /// `ReadValue` on the attribute at `path`: its bytes, or bluetoothd's error as a ``BluetoothError``.
    func readValue(at path: DBusObjectPath, interface: String, operation: String) -> AnyPublisher<
        [UInt8], BluetoothError
    > {
        connection.call(
            destination: BlueZ.service, path: path, interface: interface, member: "ReadValue",
            arguments: [.stringVariantDictionary([:])]
        )
        .mapError { BluetoothError($0, during: operation) }
        .tryMap { message throws(BluetoothError) -> [UInt8] in
            guard let bytes = message.body.first?.bytes else {
                throw BluetoothError(
                    .failed, "\(operation): bluetoothd answered with \(message.signature) instead of ay")
            }
            return bytes
        }
        .mapError { $0 as? BluetoothError ?? BluetoothError(.failed, "\(operation) failed: \($0)") }
        .eraseToAnyPublisher()
    }

    /// `WriteValue` of `bytes` on the attribute at `path`.
    func writeValue(
        _ bytes: [UInt8], at path: DBusObjectPath, interface: String, options: [String: DBusValue], operation: String
    ) -> AnyPublisher<Void, BluetoothError> {
        connection.call(
            destination: BlueZ.service, path: path, interface: interface, member: "WriteValue",
            arguments: [.bytes(bytes), .stringVariantDictionary(options)]
        )
        .map { _ in () }
        .mapError { BluetoothError($0, during: operation) }
        .eraseToAnyPublisher()
    }
}

extension Publisher where Output == [UInt8], Failure == BluetoothError {
    /// Each value decoded as `type`; a value that is not a `type` ends the stream with
    /// ``BluetoothError/Kind/invalidValue(_:)``.
    func decoded<T: Readable>(as type: T.Type) -> AnyPublisher<T, BluetoothError> {
        tryMap { bytes throws(BluetoothError) -> T in try T.decoded(from: bytes) }
            .mapError { $0 as? BluetoothError ?? BluetoothError(.failed, "\($0)") }
            .eraseToAnyPublisher()
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
