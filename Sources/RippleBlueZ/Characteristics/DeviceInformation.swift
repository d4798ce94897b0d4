import Ripple
import RippleLoop

/// What a peripheral's Device Information service (0x180A) says about it: each field is nil when the
/// peripheral does not have that characteristic.
public struct DeviceInformation: Sendable, Hashable {
    /// Manufacturer Name String (0x2A29).
    public var manufacturerName: String?
    /// Model Number String (0x2A24).
    public var modelNumber: String?
    /// Serial Number String (0x2A25).
    public var serialNumber: String?
    /// Hardware Revision String (0x2A27).
    public var hardwareRevision: String?
    /// Firmware Revision String (0x2A26).
    public var firmwareRevision: String?
    /// Software Revision String (0x2A28).
    public var softwareRevision: String?
    /// PnP ID (0x2A50).
    public var pnpID: PnPID?

    /// Nothing known.
    public init() {}

    /// The string characteristics, in the order they are read.
    static let strings: [BluetoothUUID] = [
        .manufacturerNameString, .modelNumberString, .serialNumberString, .hardwareRevisionString,
        .firmwareRevisionString, .softwareRevisionString,
    ]

    /// Stores `value` as the string characteristic `uuid` says.
    mutating func set(_ uuid: BluetoothUUID, _ value: String) {
        switch uuid {
        case .manufacturerNameString: manufacturerName = value
        case .modelNumberString: modelNumber = value
        case .serialNumberString: serialNumber = value
        case .hardwareRevisionString: hardwareRevision = value
        case .firmwareRevisionString: firmwareRevision = value
        case .softwareRevisionString: softwareRevision = value
        default: break
        }
    }
}

extension Peripheral {
    /// Reads the Device Information service's characteristics that the peripheral has, one after the
    /// other: emits what they say, then finishes. Fails with ``BluetoothError/Kind/attributeNotFound``
    /// when the peripheral has no Device Information service, with
    /// ``BluetoothError/Kind/invalidValue(_:)`` when a value is not what it should be (a string that is
    /// not UTF-8, a PnP ID of the wrong size), with ``BluetoothError/Kind/timeout`` when the reads have not
    /// all been answered within `timeout`, and as ``read(_:timeout:)`` does. A *single-value* publisher.
    ///
    /// - Parameter timeout: the longest all the reads may take together, from the subscription.
    /// - Returns: a publisher of the peripheral's device information.
    public func deviceInformation(timeout: Duration = .seconds(30)) -> AnyPublisher<DeviceInformation, BluetoothError> {
        let peripheral = self
        return Deferred { () -> AnyPublisher<DeviceInformation, BluetoothError> in
            if let error = peripheral.central.core.gattError(peripheral) {
                return Fail(error: error).eraseToAnyPublisher()
            }
            guard let service = peripheral.services.first(where: { $0.uuid == .deviceInformation }) else {
                return Fail(
                    error: BluetoothError(.attributeNotFound, "\(peripheral.address) has no Device Information service")
                )
                .eraseToAnyPublisher()
            }
            let present = Set(service.characteristics.map(\.uuid))
            typealias Step = @Sendable (inout DeviceInformation) -> Void
            var reads: [AnyPublisher<Step, BluetoothError>] = []
            for uuid in DeviceInformation.strings where present.contains(uuid) {
                reads.append(
                    peripheral.read(
                        CharacteristicReference(uuid, in: .deviceInformation), as: String.self, timeout: timeout
                    )
                    .map { value -> Step in { $0.set(uuid, value) } }.eraseToAnyPublisher())
            }
            if present.contains(.pnpID) {
                reads.append(
                    peripheral.read(
                        CharacteristicReference(.pnpID, in: .deviceInformation), as: PnPID.self, timeout: timeout
                    )
                    .map { value -> Step in { $0.pnpID = value } }.eraseToAnyPublisher())
            }
            return Publishers.Sequence<[AnyPublisher<Step, BluetoothError>], BluetoothError>(sequence: reads)
                .flatMap(maxPublishers: .max(1)) { $0 }
                .reduce(DeviceInformation()) { information, step in
                    var information = information
                    step(&information)
                    return information
                }
                .timeout(
                    .nanoseconds(timeout.clampedNanoseconds), scheduler: peripheral.central.core.loop,
                    customError: {
                        BluetoothError(
                            .timeout, "reading the device information of \(peripheral.address): not done in \(timeout)")
                    }
                )
                .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }
}
