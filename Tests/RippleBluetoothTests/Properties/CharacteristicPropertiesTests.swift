import RippleBluetooth
import Testing

struct CharacteristicPropertiesTests {
    @Test func bluezNamesRoundTripInBluetoothdsOrder() {
        let properties: CharacteristicProperties = [.notify, .read, .writeWithoutResponse, .write]
        #expect(properties.bluezNames == ["read", "write-without-response", "write", "notify"])
        #expect(CharacteristicProperties(bluezNames: ["notify", "read"]) == [.read, .notify])
        #expect(CharacteristicProperties(bluezNames: CharacteristicProperties.names.map(\.1))?.bluezNames.count == 16)
    }

    @Test func unknownNamesFailOrAreLeftOut() {
        #expect(CharacteristicProperties(bluezNames: ["read", "notfy"]) == nil)
        #expect(
            CharacteristicProperties(bluezNamesIgnoringUnknown: ["read", "notfy", "indicate"]) == [.read, .indicate])
    }

    @Test func canNotifyMeansNotifyOrIndicate() {
        #expect(CharacteristicProperties.notify.canNotify)
        #expect(CharacteristicProperties.indicate.canNotify)
        #expect(!CharacteristicProperties([.read, .write]).canNotify)
    }
}
