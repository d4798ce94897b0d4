import Foundation
import Ripple

/// `JSONEncoder` encodes values into JSON `Data` for ``Ripple/Publisher/encode(encoder:)``, as in Combine.
extension JSONEncoder: TopLevelEncoder {}

/// `JSONDecoder` decodes values from JSON `Data` for ``Ripple/Publisher/decode(type:decoder:)``, as in
/// Combine.
extension JSONDecoder: TopLevelDecoder {}
