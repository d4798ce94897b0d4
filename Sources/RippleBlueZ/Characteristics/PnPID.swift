/// A PnP ID (characteristic 0x2A50 of the Device Information service): who made the device and which
/// product and version it is.
public struct PnPID: Readable, Writable, Sendable, Hashable, CustomStringConvertible {
    /// Who assigned ``vendorID``.
    public enum VendorIDSource: Sendable, Hashable {
        /// The Bluetooth SIG (a company identifier).
        case bluetoothSIG
        /// The USB Implementer's Forum.
        case usbImplementersForum
        /// A value the specification reserves, kept as sent.
        case reserved(UInt8)

        init(_ value: UInt8) {
            switch value {
            case 1: self = .bluetoothSIG
            case 2: self = .usbImplementersForum
            default: self = .reserved(value)
            }
        }

        var rawValue: UInt8 {
            switch self {
            case .bluetoothSIG: 1
            case .usbImplementersForum: 2
            case .reserved(let value): value
            }
        }
    }

    /// Who assigned the vendor identifier.
    public var vendorIDSource: VendorIDSource
    /// The vendor.
    public var vendorID: UInt16
    /// The vendor's product.
    public var productID: UInt16
    /// The product's version.
    public var productVersion: UInt16

    /// A PnP ID with these fields.
    ///
    /// - Parameters:
    ///   - vendorIDSource: who assigned the vendor identifier.
    ///   - vendorID: the vendor.
    ///   - productID: the vendor's product.
    ///   - productVersion: the product's version.
    public init(vendorIDSource: VendorIDSource, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    /// Decodes the characteristic's 7 bytes.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: ``ValueDecodingError`` when there are not exactly 7 bytes.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, typeName: "PnPID")
        vendorIDSource = VendorIDSource(try reader.read(UInt8.self))
        vendorID = try reader.read(UInt16.self)
        productID = try reader.read(UInt16.self)
        productVersion = try reader.read(UInt16.self)
        try reader.expectEnd()
    }

    /// The 7 bytes.
    public var bluetoothBytes: [UInt8] {
        var writer = ByteWriter()
        writer.append(vendorIDSource.rawValue)
        writer.append(vendorID)
        writer.append(productID)
        writer.append(productVersion)
        return writer.bytes
    }

    /// "vendor 0x004C, product 0x0001, version 0x0142".
    public var description: String {
        func hex(_ value: UInt16) -> String { "0x" + Hex.digits(of: UInt64(value), count: 4, uppercase: true) }
        return "vendor \(hex(vendorID)), product \(hex(productID)), version \(hex(productVersion))"
    }
}
