#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Data: Readable, Writable {
    /// Takes `bytes` as they are; never throws.
    ///
    /// - Parameter bytes: the characteristic's (or descriptor's) value.
    /// - Throws: never (``Readable`` requires the signature).
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        self.init(bytes)
    }

    /// The bytes as they are.
    public var bluetoothBytes: [UInt8] { Array(self) }
}
