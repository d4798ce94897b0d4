import Testing

@testable import RippleDBus

extension DBusObjectPath {
    /// A path from a literal the test knows to be valid (an invalid one records an issue and gives the root).
    static func test(_ string: String) -> DBusObjectPath {
        guard let path = try? DBusObjectPath(string) else {
            Issue.record("invalid path \(string)")
            return .root
        }
        return path
    }
}

extension DBusSignature {
    /// A signature from a literal the test knows to be valid (an invalid one records an issue and gives
    /// the empty signature).
    static func test(_ string: String) -> DBusSignature {
        guard let signature = try? DBusSignature(string) else {
            Issue.record("invalid signature \(string)")
            return .empty
        }
        return signature
    }
}
