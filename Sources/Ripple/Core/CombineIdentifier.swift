import Synchronization

/// A unique identifier for a subscription or subscriber, as Combine's.
///
/// `CombineIdentifier()` draws a fresh process-wide number; `CombineIdentifier(object)` identifies an
/// object by its address.
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
    private static let counter = Atomic<UInt64>(0)
    private let rawValue: UInt64

    /// Creates an identifier distinct from every other one created this way.
    public init() {
        rawValue = Self.counter.add(1, ordering: .relaxed).newValue
    }

    /// Creates the identifier of `obj`: its address, as in Combine, so equal for the same instance and
    /// distinct for live distinct instances.
    ///
    /// - Parameter obj: The instance to identify.
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    /// The identifier as a hexadecimal number.
    public var description: String {
        "0x" + String(rawValue, radix: 16)
    }
}

/// A type that has a ``CombineIdentifier``; classes get one from their identity.
public protocol CustomCombineIdentifierConvertible {
    /// This value's identifier.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identifier of this instance.
    public var combineIdentifier: CombineIdentifier {
        CombineIdentifier(self)
    }
}
