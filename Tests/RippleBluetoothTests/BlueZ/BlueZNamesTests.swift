import RippleBluetooth
import Testing

/// bluetoothd's names as the D-Bus specification requires them and as BlueZ's documents spell them.
struct BlueZNamesTests {
    static let interfaces = [
        BlueZInterface.adapter, BlueZInterface.device, BlueZInterface.battery, BlueZInterface.gattService,
        BlueZInterface.gattCharacteristic, BlueZInterface.gattDescriptor, BlueZInterface.gattManager,
        BlueZInterface.agentManager, BlueZInterface.agent, BlueZInterface.advertisingManager,
        BlueZInterface.advertisement,
    ]

    static let bluezErrors = [
        BlueZErrorName.failed, BlueZErrorName.notReady, BlueZErrorName.notConnected,
        BlueZErrorName.alreadyConnected, BlueZErrorName.notPermitted, BlueZErrorName.notAuthorized,
        BlueZErrorName.authenticationFailed, BlueZErrorName.authenticationRejected,
        BlueZErrorName.authenticationCanceled, BlueZErrorName.authenticationTimeout, BlueZErrorName.notSupported,
        BlueZErrorName.notAvailable, BlueZErrorName.inProgress, BlueZErrorName.alreadyExists,
        BlueZErrorName.doesNotExist, BlueZErrorName.invalidArguments, BlueZErrorName.invalidOffset,
        BlueZErrorName.invalidValueLength, BlueZErrorName.noSuchAdapter, BlueZErrorName.agentNotAvailable,
    ]

    static let busErrors = [
        BlueZErrorName.serviceUnknown, BlueZErrorName.nameHasNoOwner, BlueZErrorName.accessDenied,
        BlueZErrorName.unknownObject, BlueZErrorName.unknownMethod, BlueZErrorName.noReply,
        BlueZErrorName.timeout, BlueZErrorName.timedOut, BlueZErrorName.addressInUse,
    ]

    /// A D-Bus interface or error name: two or more elements of `[A-Za-z_][A-Za-z0-9_]*`, at most 255 bytes.
    static func isDBusName(_ name: String) -> Bool {
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && elements.count >= 2
            && elements.allSatisfy { element in
                let scalars = element.unicodeScalars
                guard let first = scalars.first, first == "_" || isLetter(first) else { return false }
                return scalars.allSatisfy { $0 == "_" || isLetter($0) || ("0"..."9").contains($0) }
            }
    }

    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    @Test func everyNameIsAValidDBusName() {
        for name in Self.interfaces + Self.bluezErrors + Self.busErrors + [BlueZInterface.serviceName] {
            #expect(Self.isDBusName(name), "\(name)")
        }
        #expect(!Self.isDBusName("org.bluez.1Adapter"))
        #expect(!Self.isDBusName("Adapter1"))
        #expect(!Self.isDBusName("org..bluez"))
    }

    @Test func bluetoothdsInterfacesAreVersionedAndItsErrorsPrefixed() {
        for name in Self.interfaces {
            #expect(name.hasPrefix("org.bluez.") && name.hasSuffix("1"), "\(name)")
        }
        for name in Self.bluezErrors {
            #expect(name.hasPrefix(BlueZErrorName.prefix) && name.count > BlueZErrorName.prefix.count, "\(name)")
        }
        for name in Self.busErrors { #expect(name.hasPrefix("org.freedesktop.DBus.Error."), "\(name)") }
        #expect(Set(Self.interfaces + Self.bluezErrors + Self.busErrors).count == 40, "no name is given twice")
        #expect(BlueZInterface.rootPath == "/org/bluez" && BlueZInterface.serviceName == "org.bluez")
        #expect(BlueZInterface.properties == "org.freedesktop.DBus.Properties")
        #expect(BlueZInterface.objectManager == "org.freedesktop.DBus.ObjectManager")
    }
}
