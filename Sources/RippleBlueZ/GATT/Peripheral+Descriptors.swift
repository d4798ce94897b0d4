import Ripple
import RippleDBus

extension Peripheral {
    /// Reads the descriptor `descriptor` of `characteristic` (`GattDescriptor1.ReadValue`): emits its
    /// bytes, then finishes. Fails with ``BluetoothError/Kind/attributeNotFound`` when the characteristic
    /// has no such descriptor, and otherwise as ``read(_:timeout:)`` does.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the descriptor's bytes, then the end; fails with a ``BluetoothError``.
    public func read(
        descriptor: BluetoothUUID, of characteristic: CharacteristicReference, timeout: Duration = .seconds(30)
    )
        -> AnyPublisher<[UInt8], BluetoothError>
    {
        let core = central.core
        let peripheral = self
        let description = "reading descriptor \(descriptor) of \(characteristic) of \(address)"
        return core.queued(on: path, description, timeout: timeout, urgent: isInConnectionTask) {
            () -> Result<AnyPublisher<[UInt8], BluetoothError>, BluetoothError> in
            core.descriptor(descriptor, of: characteristic, peripheral: peripheral).map { found in
                core.readValue(
                    at: found.path, interface: BlueZ.descriptor,
                    operation: description)
            }
        }
    }

    /// Writes `bytes` to the descriptor `descriptor` of `characteristic` (`GattDescriptor1.WriteValue`):
    /// emits once written, then finishes. bluetoothd refuses writes to the Client Characteristic
    /// Configuration descriptor (``BluetoothError/Kind/notPermitted``): use ``listen(to:buffering:transport:statistics:)``.
    /// Fails otherwise as ``read(descriptor:of:timeout:)`` does.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - bytes: the bytes to write.
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - timeout: the longest the write may take, from its turn in the queue.
    /// - Returns: one value once written, then the end; fails with a ``BluetoothError``.
    public func write(
        _ bytes: [UInt8], toDescriptor descriptor: BluetoothUUID, of characteristic: CharacteristicReference,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<Void, BluetoothError> {
        let core = central.core
        let peripheral = self
        let description = "writing descriptor \(descriptor) of \(characteristic) of \(address)"
        return core.queued(on: path, description, timeout: timeout, urgent: isInConnectionTask) {
            () -> Result<AnyPublisher<Void, BluetoothError>, BluetoothError> in
            core.descriptor(descriptor, of: characteristic, peripheral: peripheral).map { found in
                core.writeValue(
                    bytes, at: found.path, interface: BlueZ.descriptor, options: [:],
                    operation: description)
            }
        }
    }

    /// Reads the descriptor and decodes it as `type`; fails also with
    /// ``BluetoothError/Kind/invalidValue(_:)`` when the bytes are not a `type`.
    ///
    /// A *single-value* publisher: at most one value, then it finishes (or fails).
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor's UUID.
    ///   - characteristic: the characteristic it belongs to.
    ///   - type: what the bytes encode.
    ///   - timeout: the longest the read may take, from its turn in the queue.
    /// - Returns: the decoded value, then the end; fails with a ``BluetoothError``.
    public func read<T: Readable>(
        descriptor: BluetoothUUID, of characteristic: CharacteristicReference, as type: T.Type,
        timeout: Duration = .seconds(30)
    ) -> AnyPublisher<T, BluetoothError> {
        read(descriptor: descriptor, of: characteristic, timeout: timeout).decoded(as: type)
    }
}

extension CentralCore {
    /// The descriptor `uuid` of the characteristic `reference` names on `peripheral`.
    func descriptor(_ uuid: BluetoothUUID, of reference: CharacteristicReference, peripheral: Peripheral)
        -> Result<GATTDescriptor, BluetoothError>
    {
        characteristic(reference, of: peripheral).flatMap { found in
            guard let descriptor = found.descriptors.first(where: { $0.uuid == uuid }) else {
                return .failure(
                    BluetoothError(
                        .attributeNotFound, "\(reference) of \(peripheral.address) has no descriptor \(uuid)"))
            }
            return .success(descriptor)
        }
    }
}
