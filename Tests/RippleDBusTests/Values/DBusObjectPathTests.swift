import CDBus
import Testing

@testable import RippleDBus

@Suite struct DBusObjectPathTests {
    static let valid = ["/", "/a", "/org/bluez", "/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF", "/_/0/Z9", "/a/b/c/d/e"]

    static let invalid: [(String, String)] = [
        ("", "it is empty"),
        ("a", "it does not begin with '/'"),
        ("org/bluez", "it does not begin with '/'"),
        ("//", "it has an empty element (\"//\")"),
        ("/a//b", "it has an empty element (\"//\")"),
        ("/a/", "it ends with '/'"),
        ("/a-b", "'-' is not allowed (only A-Z a-z 0-9 _ and '/')"),
        ("/a.b", "'.' is not allowed (only A-Z a-z 0-9 _ and '/')"),
        ("/a b", "byte 0x20 is not allowed (only A-Z a-z 0-9 _ and '/')"),
        ("/é", "byte 0xc3 is not allowed (only A-Z a-z 0-9 _ and '/')"),
    ]

    @Test(arguments: valid)
    func validPathKeepsItsText(_ text: String) throws {
        let path = try DBusObjectPath(text)
        #expect(path.rawValue == text)
        #expect(path.description == text)
        #expect(DBusObjectPath.isValid(text))
        #expect(dbus_validate_path(text, nil) != 0, "libdbus agrees")
    }

    @Test(arguments: invalid)
    func invalidPathThrowsItsReason(_ text: String, _ reason: String) {
        #expect(throws: DBusError.invalidArgument("invalid D-Bus object path \"\(text)\": \(reason)")) {
            try DBusObjectPath(text)
        }
        #expect(!DBusObjectPath.isValid(text))
        #expect(dbus_validate_path(text, nil) == 0, "libdbus agrees")
    }

    @Test func elementsLastElementAndParent() throws {
        let device = try DBusObjectPath("/org/bluez/hci0/dev_AA")
        #expect(device.elements == ["org", "bluez", "hci0", "dev_AA"])
        #expect(device.lastElement == "dev_AA")
        #expect(device.parent == (try DBusObjectPath("/org/bluez/hci0")))
        #expect(device.parent?.parent?.parent == (try DBusObjectPath("/org")))
        #expect(device.parent?.parent?.parent?.parent == .root)
        #expect(DBusObjectPath.root.parent == nil)
        #expect(DBusObjectPath.root.elements == [])
        #expect(DBusObjectPath.root.lastElement == nil)
        #expect(DBusObjectPath.root.isRoot)
        #expect(!device.isRoot)
    }

    @Test func appendingValidatesTheElement() throws {
        #expect(try DBusObjectPath.root.appending("org").rawValue == "/org")
        #expect(try DBusObjectPath("/org").appending("bluez").appending("hci0").rawValue == "/org/bluez/hci0")
        let reason = "it must be non-empty and only have A-Z a-z 0-9 _"
        #expect(throws: DBusError.invalidArgument("invalid D-Bus object path element \"a/b\": \(reason)")) {
            try DBusObjectPath.root.appending("a/b")
        }
        #expect(throws: DBusError.invalidArgument("invalid D-Bus object path element \"\": \(reason)")) {
            try DBusObjectPath.root.appending("")
        }
        #expect(DBusObjectPath.isValidElement("dev_AA_01"))
        #expect(!DBusObjectPath.isValidElement("dev-AA"))
        #expect(!DBusObjectPath.isValidElement(""))
    }

    @Test func ancestryForObjectManagers() throws {
        let bluez = try DBusObjectPath("/org/bluez")
        let adapter = try DBusObjectPath("/org/bluez/hci0")
        let other = try DBusObjectPath("/org/bluez2")
        #expect(bluez.isAncestor(of: adapter))
        #expect(!bluez.isAncestor(of: bluez))
        #expect(!bluez.isAncestor(of: other))
        #expect(!adapter.isAncestor(of: bluez))
        #expect(!bluez.isAncestor(of: try DBusObjectPath("/org")))
        #expect(DBusObjectPath.root.isAncestor(of: bluez))
        #expect(!DBusObjectPath.root.isAncestor(of: .root))
        #expect(adapter.isDescendant(of: bluez))
        #expect(adapter.isDescendant(of: .root))
        #expect(!bluez.isDescendant(of: adapter))
        #expect(adapter.hasPrefix(bluez))
        #expect(bluez.hasPrefix(bluez))
        #expect(!other.hasPrefix(bluez))
        #expect(adapter.hasPrefix(.root))
        #expect(DBusObjectPath.root.hasPrefix(.root))
    }

    @Test func pathsSortBeforeTheirDescendants() throws {
        let paths = try ["/org/bluez0", "/org/bluez/hci0", "/", "/org/bluez", "/org/bluez/hci0/dev_A", "/org/bluez_x"]
            .map { (text: String) throws(RippleDBus.DBusError) in try DBusObjectPath(text) }
        #expect(
            paths.sorted().map(\.rawValue) == [
                "/", "/org/bluez", "/org/bluez/hci0", "/org/bluez/hci0/dev_A", "/org/bluez0", "/org/bluez_x",
            ])
        #expect(DBusObjectPath.root < (try DBusObjectPath("/a")))
        #expect(!(DBusObjectPath.root < .root))
    }
}
