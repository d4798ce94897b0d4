import RippleBluetooth
import Testing

/// One descriptor-permission type for the peripheral role and the simulator, named as bluetoothd names them.
struct DescriptorPropertiesTests {
    @Test func bluezNamesRoundTripInBluetoothdsOrder() {
        let properties: DescriptorProperties = [.encryptWrite, .read, .write]
        #expect(properties.bluezNames == ["read", "write", "encrypt-write"])
        #expect(DescriptorProperties(bluezNames: ["write", "read"]) == [.read, .write])
        #expect(
            DescriptorProperties.names.map(\.1) == [
                "read", "write", "encrypt-read", "encrypt-write", "encrypt-authenticated-read",
                "encrypt-authenticated-write", "authorize",
            ])
        let all = DescriptorProperties(bluezNames: DescriptorProperties.names.map(\.1))
        #expect(all?.bluezNames == DescriptorProperties.names.map(\.1))
    }

    @Test func anUnknownNameFails() {
        #expect(DescriptorProperties(bluezNames: ["read", "notify"]) == nil)
        #expect(DescriptorProperties(bluezNames: []) == [])
    }
}
