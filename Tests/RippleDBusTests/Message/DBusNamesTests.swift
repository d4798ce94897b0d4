import CDBus
import Testing

@testable import RippleDBus

@Suite struct DBusNamesTests {
    static let longName = String(repeating: "a.", count: 127) + "ab"  // 256 bytes

    @Test func validBusNames() {
        for name in [
            "org.bluez", "org.freedesktop.DBus", ":1.42", ":1.0.7", "a-b.c_d", "_a.b", "-a.b", ":a-1.2-b", "A.B9",
            String(repeating: "a.", count: 127) + "a",
        ] {
            #expect(DBusNames.isValidBusName(name), "\(name)")
            #expect(throws: Never.self) { try DBusNames.validateBusName(name) }
            #expect(dbus_validate_bus_name(name, nil) != 0, "libdbus agrees on \(name)")
        }
    }

    @Test func invalidBusNames() {
        let cases: [(String, String)] = [
            ("", "it is empty"),
            ("org", "it needs at least two elements separated by '.'"),
            (":1", "it needs at least two elements separated by '.'"),
            (".org.bluez", "it has an empty element"),
            ("org..bluez", "it has an empty element"),
            ("org.bluez.", "it has an empty element"),
            (":.1", "it has an empty element"),
            ("org.1bluez", "an element begins with a digit"),
            ("1org.bluez", "an element begins with a digit"),
            ("org.blu ez", "byte 0x20 is not allowed (only A-Z a-z 0-9 _ -)"),
            ("org.bl:uez", "':' is not allowed (only A-Z a-z 0-9 _ -)"),
            (Self.longName, "it is 256 bytes long, more than 255"),
        ]
        for (name, reason) in cases {
            #expect(!DBusNames.isValidBusName(name))
            #expect(throws: DBusError.invalidArgument("invalid D-Bus bus name \"\(name)\": \(reason)")) {
                try DBusNames.validateBusName(name)
            }
        }
    }

    @Test func validInterfaceAndErrorNames() {
        for name in ["org.bluez.Device1", "org.freedesktop.DBus.Properties", "a._", "_1.b2", "org.bluez.Error.Failed"] {
            #expect(DBusNames.isValidInterfaceName(name))
            #expect(DBusNames.isValidErrorName(name))
            #expect(throws: Never.self) { try DBusNames.validateInterfaceName(name) }
            #expect(throws: Never.self) { try DBusNames.validateErrorName(name) }
            #expect(dbus_validate_interface(name, nil) != 0, "libdbus agrees on \(name)")
            #expect(dbus_validate_error_name(name, nil) != 0, "libdbus agrees on \(name)")
        }
    }

    @Test func invalidInterfaceAndErrorNames() {
        let cases: [(String, String)] = [
            ("", "it is empty"),
            ("Device1", "it needs at least two elements separated by '.'"),
            ("org.bluez-x.Device1", "'-' is not allowed (only A-Z a-z 0-9 _)"),
            ("org.1bluez", "an element begins with a digit"),
            ("org..bluez", "it has an empty element"),
            (":1.2", "':' is not allowed (only A-Z a-z 0-9 _)"),
            (Self.longName, "it is 256 bytes long, more than 255"),
        ]
        for (name, reason) in cases {
            #expect(!DBusNames.isValidInterfaceName(name))
            #expect(!DBusNames.isValidErrorName(name))
            #expect(throws: DBusError.invalidArgument("invalid D-Bus interface name \"\(name)\": \(reason)")) {
                try DBusNames.validateInterfaceName(name)
            }
            #expect(throws: DBusError.invalidArgument("invalid D-Bus error name \"\(name)\": \(reason)")) {
                try DBusNames.validateErrorName(name)
            }
            #expect(dbus_validate_interface(name, nil) == 0, "libdbus agrees on \(name)")
        }
    }

    @Test func memberNames() {
        for name in ["StartDiscovery", "_x", "Get2", "a"] {
            #expect(DBusNames.isValidMemberName(name))
            #expect(throws: Never.self) { try DBusNames.validateMemberName(name) }
            #expect(dbus_validate_member(name, nil) != 0, "libdbus agrees on \(name)")
        }
        let cases: [(String, String)] = [
            ("", "it is empty"),
            ("2Get", "an element begins with a digit"),
            ("Get.All", "'.' is not allowed (only A-Z a-z 0-9 _)"),
            ("Get-All", "'-' is not allowed (only A-Z a-z 0-9 _)"),
            (String(repeating: "m", count: 256), "it is 256 bytes long, more than 255"),
        ]
        for (name, reason) in cases {
            #expect(!DBusNames.isValidMemberName(name))
            #expect(throws: DBusError.invalidArgument("invalid D-Bus member name \"\(name)\": \(reason)")) {
                try DBusNames.validateMemberName(name)
            }
            #expect(dbus_validate_member(name, nil) == 0, "libdbus agrees on \(name)")
        }
    }
}
