/// The D-Bus specification's rules for bus, interface, member and error names.
///
/// Every name is at most 255 bytes of ASCII. The `validate…` functions throw
/// ``DBusError/invalidArgument(_:)`` naming the name and the rule it breaks; the `isValid…` ones answer
/// yes or no. The rules are at least as strict as libdbus's (which aborts the process on an invalid name).
public enum DBusNames {
    /// The longest name D-Bus allows, in bytes.
    public static let maximumLength = 255

    /// Validates a bus name: a unique name (`:1.42`: a colon, then two or more elements of
    /// `A-Z a-z 0-9 _ -` separated by dots) or a well-known name (`org.bluez`: two or more such elements,
    /// none beginning with a digit).
    ///
    /// - Parameter name: the name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the name and the rule it breaks.
    public static func validateBusName(_ name: String) throws(DBusError) {
        if let problem = busNameProblem(name) {
            throw .invalidArgument("invalid D-Bus bus name \"\(name)\": \(problem)")
        }
    }

    /// Validates an interface name (`org.bluez.Device1`): two or more elements of `A-Z a-z 0-9 _`
    /// separated by dots, none beginning with a digit.
    ///
    /// - Parameter name: the name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the name and the rule it breaks.
    public static func validateInterfaceName(_ name: String) throws(DBusError) {
        if let problem = dottedNameProblem(name) {
            throw .invalidArgument("invalid D-Bus interface name \"\(name)\": \(problem)")
        }
    }

    /// Validates an error name (`org.bluez.Error.Failed`): the interface-name rules.
    ///
    /// - Parameter name: the name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the name and the rule it breaks.
    public static func validateErrorName(_ name: String) throws(DBusError) {
        if let problem = dottedNameProblem(name) {
            throw .invalidArgument("invalid D-Bus error name \"\(name)\": \(problem)")
        }
    }

    /// Validates a member (method, signal or property) name (`StartDiscovery`): one element of
    /// `A-Z a-z 0-9 _`, not beginning with a digit.
    ///
    /// - Parameter name: the name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` naming the name and the rule it breaks.
    public static func validateMemberName(_ name: String) throws(DBusError) {
        if let problem = memberNameProblem(name) {
            throw .invalidArgument("invalid D-Bus member name \"\(name)\": \(problem)")
        }
    }

    /// Whether `name` is a valid bus name (see ``validateBusName(_:)``).
    ///
    /// - Parameter name: the name.
    /// - Returns: whether it is valid.
    public static func isValidBusName(_ name: String) -> Bool { busNameProblem(name) == nil }

    /// Whether `name` is a valid interface name (see ``validateInterfaceName(_:)``).
    ///
    /// - Parameter name: the name.
    /// - Returns: whether it is valid.
    public static func isValidInterfaceName(_ name: String) -> Bool { dottedNameProblem(name) == nil }

    /// Whether `name` is a valid error name (see ``validateErrorName(_:)``).
    ///
    /// - Parameter name: the name.
    /// - Returns: whether it is valid.
    public static func isValidErrorName(_ name: String) -> Bool { dottedNameProblem(name) == nil }

    /// Whether `name` is a valid member name (see ``validateMemberName(_:)``).
    ///
    /// - Parameter name: the name.
    /// - Returns: whether it is valid.
    public static func isValidMemberName(_ name: String) -> Bool { memberNameProblem(name) == nil }

    // MARK: - Rules

    private static func lengthProblem(_ name: String) -> String? {
        let count = name.utf8.count
        if count == 0 { return "it is empty" }
        if count > maximumLength { return "it is \(count) bytes long, more than \(maximumLength)" }
        return nil
    }

    static func memberNameProblem(_ name: String) -> String? {
        if let problem = lengthProblem(name) { return problem }
        return elementProblem(Substring(name), allowsHyphen: false, allowsLeadingDigit: false)
    }

    /// Interface and error names.
    static func dottedNameProblem(_ name: String) -> String? {
        if let problem = lengthProblem(name) { return problem }
        return elementsProblem(Substring(name), allowsHyphen: false, allowsLeadingDigit: false)
    }

    static func busNameProblem(_ name: String) -> String? {
        if let problem = lengthProblem(name) { return problem }
        if name.utf8.first == UInt8(ascii: ":") {
            return elementsProblem(name.dropFirst(), allowsHyphen: true, allowsLeadingDigit: true)
        }
        return elementsProblem(Substring(name), allowsHyphen: true, allowsLeadingDigit: false)
    }

    /// Two or more valid elements separated by single dots.
    private static func elementsProblem(_ text: Substring, allowsHyphen: Bool, allowsLeadingDigit: Bool) -> String? {
        let elements = text.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return "it needs at least two elements separated by '.'" }
        for element in elements {
            if let problem = elementProblem(element, allowsHyphen: allowsHyphen, allowsLeadingDigit: allowsLeadingDigit)
            {
                return problem
            }
        }
        return nil
    }

    private static func elementProblem(_ element: Substring, allowsHyphen: Bool, allowsLeadingDigit: Bool) -> String? {
        guard let first = element.utf8.first else { return "it has an empty element" }
        if !allowsLeadingDigit, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
            return "an element begins with a digit"
        }
        for byte in element.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                continue
            case UInt8(ascii: "-") where allowsHyphen:
                continue
            default:
                let allowed = allowsHyphen ? "A-Z a-z 0-9 _ -" : "A-Z a-z 0-9 _"
                return "\(DBusSignatureParser.describe(byte: byte)) is not allowed (only \(allowed))"
            }
        }
        return nil
    }
}
