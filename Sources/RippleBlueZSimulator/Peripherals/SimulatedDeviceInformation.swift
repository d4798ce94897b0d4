/// The PnP ID characteristic (0x2A50): who made the device and which product and version it is, seven
/// bytes: the vendor ID source, then the vendor ID, product ID and product version as little-endian
/// `UInt16`s.
public struct SimulatedPnPID: Sendable, Hashable {
    /// Where the vendor ID comes from.
    public enum VendorIDSource: UInt8, Sendable, Hashable {
        /// 0x01: a Bluetooth SIG company identifier.
        case bluetoothSIG = 0x01
        /// 0x02: a USB Implementer's Forum vendor ID.
        case usbImplementersForum = 0x02
    }

    /// Where ``vendorID`` comes from.
    public var vendorIDSource: VendorIDSource
    /// The vendor (0xFFFF is the Bluetooth SIG's identifier for tests).
    public var vendorID: UInt16
    /// The vendor's product.
    public var productID: UInt16
    /// The product's version (0xJJMN for version JJ.M.N).
    public var productVersion: UInt16

    /// A PnP ID.
    ///
    /// - Parameters:
    ///   - vendorIDSource: where ``vendorID`` comes from.
    ///   - vendorID: the vendor (0xFFFF is the Bluetooth SIG's identifier for tests).
    ///   - productID: the vendor's product.
    ///   - productVersion: the product's version (0xJJMN for version JJ.M.N).
    public init(
        vendorIDSource: VendorIDSource = .bluetoothSIG, vendorID: UInt16, productID: UInt16, productVersion: UInt16
    ) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    /// The characteristic value.
    public var bytes: [UInt8] {
        [vendorIDSource.rawValue] + ReadyMadeSupport.littleEndian(vendorID) + ReadyMadeSupport.littleEndian(productID)
            + ReadyMadeSupport.littleEndian(productVersion)
    }
}

/// What the Device Information service (0x180A) of a peripheral tells: each field present becomes a
/// read-only characteristic; text fields are UTF-8 without a terminator, as devices send them.
public struct SimulatedDeviceInformation: Sendable, Hashable {
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
    /// System ID (0x2A23): eight bytes, see ``systemID(for:)``.
    public var systemID: [UInt8]?
    /// PnP ID (0x2A50).
    public var pnpID: SimulatedPnPID?

    /// A description with the fields given.
    ///
    /// - Parameters:
    ///   - manufacturerName: Manufacturer Name String (0x2A29).
    ///   - modelNumber: Model Number String (0x2A24).
    ///   - serialNumber: Serial Number String (0x2A25).
    ///   - hardwareRevision: Hardware Revision String (0x2A27).
    ///   - firmwareRevision: Firmware Revision String (0x2A26).
    ///   - softwareRevision: Software Revision String (0x2A28).
    ///   - systemID: System ID (0x2A23): eight bytes, see ``systemID(for:)``.
    ///   - pnpID: PnP ID (0x2A50).
    public init(
        manufacturerName: String? = nil, modelNumber: String? = nil, serialNumber: String? = nil,
        hardwareRevision: String? = nil, firmwareRevision: String? = nil, softwareRevision: String? = nil,
        systemID: [UInt8]? = nil, pnpID: SimulatedPnPID? = nil
    ) {
        self.manufacturerName = manufacturerName
        self.modelNumber = modelNumber
        self.serialNumber = serialNumber
        self.hardwareRevision = hardwareRevision
        self.firmwareRevision = firmwareRevision
        self.softwareRevision = softwareRevision
        self.systemID = systemID
        self.pnpID = pnpID
    }

    /// The System ID many devices derive from their public address: the address as an IEEE EUI-64
    /// (`0xFFFE` inserted after the 24-bit OUI), least significant byte first, which makes the 40-bit
    /// manufacturer-defined identifier followed by the OUI as the characteristic wants them. For
    /// `AA:BB:CC:DD:EE:FF`: `[FF, EE, DD, FE, FF, CC, BB, AA]`.
    ///
    /// - Parameter address: the public address.
    /// - Returns: the eight bytes of the System ID.
    public static func systemID(for address: BluetoothAddress) -> [UInt8] {
        let bytes = address.bytes
        return [bytes[5], bytes[4], bytes[3], 0xFE, 0xFF, bytes[2], bytes[1], bytes[0]]
    }

    /// The characteristics, in the order devices commonly list them.
    var characteristics: [SimulatedCharacteristic] {
        let fields: [(BluetoothUUID, [UInt8]?)] = [
            (.manufacturerNameString, manufacturerName.map { Array($0.utf8) }),
            (.modelNumberString, modelNumber.map { Array($0.utf8) }),
            (.serialNumberString, serialNumber.map { Array($0.utf8) }),
            (.hardwareRevisionString, hardwareRevision.map { Array($0.utf8) }),
            (.firmwareRevisionString, firmwareRevision.map { Array($0.utf8) }),
            (.softwareRevisionString, softwareRevision.map { Array($0.utf8) }),
            (.systemID, systemID),
            (.pnpID, pnpID?.bytes),
        ]
        return fields.compactMap { uuid, value in
            value.map { SimulatedCharacteristic(uuid: uuid, flags: [.read], value: $0) }
        }
    }
}

extension SimulatedService {
    /// The Device Information service (0x180A): one read-only characteristic per field of `information`.
    ///
    /// - Parameter information: the fields.
    /// - Returns: the service.
    public static func deviceInformation(_ information: SimulatedDeviceInformation) -> SimulatedService {
        SimulatedService(uuid: .deviceInformation, characteristics: information.characteristics)
    }
}
