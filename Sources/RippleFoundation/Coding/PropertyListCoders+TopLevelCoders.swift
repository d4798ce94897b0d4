import Foundation
import Ripple

/// `PropertyListEncoder` encodes values into property-list `Data` for ``Ripple/Publisher/encode(encoder:)``,
/// as in Combine.
extension PropertyListEncoder: TopLevelEncoder {}

/// `PropertyListDecoder` decodes values from property-list `Data` for
/// ``Ripple/Publisher/decode(type:decoder:)``, as in Combine.
extension PropertyListDecoder: TopLevelDecoder {}
