/// A D-Bus object path, such as `/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF`, always valid.
///
/// The rules (D-Bus specification): it begins with `/`; elements of `A-Z a-z 0-9 _`, at least one
/// character each, are separated by single slashes; no trailing slash except for the root path `/`.
/// Paths order by their bytes, which puts every path right before its descendants.
public struct DBusObjectPath: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The path as D-Bus writes it.
    public let rawValue: String

    /// The root path, `/`.
    public static let root = DBusObjectPath(unchecked: "/")

    /// Validates `string` as an object path.
    ///
    /// - Parameter string: the path.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the path and the rule it breaks.
    public init(_ string: String) throws(DBusError) {
        if let problem = Self.problem(in: string) {
            throw .invalidArgument("invalid D-Bus object path \"\(string)\": \(problem)")
        }
        self.rawValue = string
    }

    /// A path known to be valid (checked by the caller or by libdbus).
    init(unchecked string: String) {
        self.rawValue = string
    }

    /// Whether `string` is a valid object path.
    ///
    /// - Parameter string: the text.
    /// - Returns: whether it is a valid object path.
    public static func isValid(_ string: String) -> Bool {
        problem(in: string) == nil
    }

    /// Whether `element` may be one element of an object path (non-empty, only `A-Z a-z 0-9 _`).
    ///
    /// - Parameter element: the text.
    /// - Returns: whether it is a valid element.
    public static func isValidElement(_ element: String) -> Bool {
        !element.isEmpty && element.utf8.allSatisfy(isElementCharacter)
    }

    /// The path, as D-Bus writes it.
    public var description: String { rawValue }

    /// Whether this is the root path, `/`.
    public var isRoot: Bool { rawValue == "/" }

    /// The elements between the slashes: `["org", "bluez", "hci0"]` for `/org/bluez/hci0`, `[]` for `/`.
    public var elements: [String] {
        rawValue.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The last element (`"hci0"` for `/org/bluez/hci0`), or nil for the root path.
    public var lastElement: String? {
        guard !isRoot, let slash = rawValue.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return String(rawValue[rawValue.utf8.index(after: slash)...])
    }

    /// The path with one more element: `/org/bluez` appending `"hci0"` is `/org/bluez/hci0`.
    ///
    /// - Parameter element: the element.
    /// - Returns: the longer path.
    /// - Throws: ``DBusError/invalidArgument(_:)`` when `element` is empty or has a character other than `A-Z a-z 0-9
    ///   _` (a slash included: append elements one at a time).
    public func appending(_ element: String) throws(DBusError) -> DBusObjectPath {
        guard Self.isValidElement(element) else {
            throw .invalidArgument(
                "invalid D-Bus object path element \"\(element)\": it must be non-empty and only have A-Z a-z 0-9 _")
        }
        return DBusObjectPath(unchecked: isRoot ? "/" + element : rawValue + "/" + element)
    }

    /// The path one element up (`/org/bluez` for `/org/bluez/hci0`, `/` for `/org`), or nil for the root.
    public var parent: DBusObjectPath? {
        guard !isRoot, let slash = rawValue.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        if slash == rawValue.utf8.startIndex {
            return .root
        }
        return DBusObjectPath(unchecked: String(rawValue[..<slash]))
    }

    /// Whether `other` lies strictly below this path: `/org/bluez` is an ancestor of `/org/bluez/hci0` but
    /// not of itself nor of `/org/bluez2`; the root is an ancestor of every other path.
    ///
    /// - Parameter other: another path.
    /// - Returns: whether `other` lies below this path.
    public func isAncestor(of other: DBusObjectPath) -> Bool {
        let mine = rawValue.utf8
        let theirs = other.rawValue.utf8
        if isRoot {
            return !other.isRoot
        }
        guard theirs.count > mine.count, theirs.starts(with: mine) else { return false }
        return theirs[theirs.index(theirs.startIndex, offsetBy: mine.count)] == UInt8(ascii: "/")
    }

    /// Whether this path lies strictly below `other` (see ``isAncestor(of:)``).
    ///
    /// - Parameter other: another path.
    /// - Returns: whether this path lies below `other`.
    public func isDescendant(of other: DBusObjectPath) -> Bool {
        other.isAncestor(of: self)
    }

    /// Whether this path is `prefix` or lies below it: the object-manager test of whether an object
    /// belongs to the subtree rooted at `prefix`.
    ///
    /// - Parameter prefix: the subtree's root.
    /// - Returns: whether this path is in the subtree.
    public func hasPrefix(_ prefix: DBusObjectPath) -> Bool {
        self == prefix || prefix.isAncestor(of: self)
    }

    /// Orders by the paths' bytes: a path comes right before its descendants (`/` sorts before every
    /// element character).
    ///
    /// - Parameters:
    ///   - lhs: a path.
    ///   - rhs: another.
    /// - Returns: whether `lhs` sorts first.
    public static func < (lhs: DBusObjectPath, rhs: DBusObjectPath) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// Why `string` is not a valid object path, or nil when it is.
    static func problem(in string: String) -> String? {
        let bytes = string.utf8
        guard let first = bytes.first else { return "it is empty" }
        guard first == UInt8(ascii: "/") else { return "it does not begin with '/'" }
        if bytes.count == 1 {
            return nil
        }
        var previousWasSlash = true
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if previousWasSlash {
                    return "it has an empty element (\"//\")"
                }
                previousWasSlash = true
            } else if isElementCharacter(byte) {
                previousWasSlash = false
            } else {
                return "\(DBusSignatureParser.describe(byte: byte)) is not allowed (only A-Z a-z 0-9 _ and '/')"
            }
        }
        if previousWasSlash {
            return "it ends with '/'"
        }
        return nil
    }

    private static func isElementCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
