import RippleBluetooth
import Testing

/// One address-type vocabulary for the client (``PeripheralDiscovery/addressType``) and the simulator,
/// spelled as bluetoothd's `Device1.AddressType`.
struct BluetoothAddressTypeTests {
    @Test func theTypesAreBluetoothdsNames() {
        #expect(BluetoothAddressType.allCases.map(\.rawValue) == ["public", "random"])
        #expect(BluetoothAddressType(rawValue: "random") == .random)
        #expect(BluetoothAddressType(rawValue: "static") == nil)
    }
}
