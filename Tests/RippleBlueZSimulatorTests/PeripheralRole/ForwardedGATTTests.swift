import RippleDBus
import Testing

@testable import RippleBlueZSimulator

/// bluetoothd 5.66's reading of an application's D-Bus errors as ATT errors (src/gatt-database.c).
struct ForwardedGATTTests {
    @Test func applicationErrorsBecomeTheATTErrorsBluetoothdAnswers() {
        func code(_ name: String, _ message: String = "", refusal: UInt8 = 0x02) -> UInt8 {
            ForwardedGATT.attCode(of: .remote(name: name, message: message), refusal: refusal)
        }
        #expect(code("org.bluez.Error.Failed", "0x80") == 0x80)
        #expect(code("org.bluez.Error.Failed", "0x9f") == 0x9F)
        #expect(code("org.bluez.Error.Failed", "129") == 0x81)
        #expect(code("org.bluez.Error.Failed", "0x0e") == 0x0E)
        #expect(code("org.bluez.Error.Failed", "0xa0") == 0x0E)
        #expect(code("org.bluez.Error.Failed", "something went wrong") == 0x80)
        #expect(code("org.bluez.Error.NotSupported") == 0x06)
        #expect(code("org.bluez.Error.NotAuthorized") == 0x08)
        #expect(code("org.bluez.Error.InvalidValueLength") == 0x0D)
        #expect(code("org.bluez.Error.InvalidOffset") == 0x07)
        #expect(code("org.bluez.Error.InProgress") == 0xFE)
        #expect(code("org.bluez.Error.NotPermitted", refusal: 0x02) == 0x02)
        #expect(code("org.bluez.Error.NotPermitted", refusal: 0x03) == 0x03)
        #expect(code("org.freedesktop.DBus.Error.NoReply") == 0x0E)
        #expect(ForwardedGATT.attCode(of: .timedOut, refusal: 0x02) == 0x0E)
    }

    @Test func anAdvertisementTooLongOrOfAnUnknownTypeIsRefused() throws {
        let fits = try AdvertisementData([
            "Type": .variant(.string("peripheral")), "LocalName": .variant(.string("Level")),
            "ServiceUUIDs": .variant(.array(.string, [.string("52495050-0000-4000-8000-000000000000")])),
        ])
        #expect(fits.encodedLength == 28)
        #expect(throws: BlueZError.self) {
            try AdvertisementData([
                "Type": .variant(.string("peripheral")), "LocalName": .variant(.string("Ripple Level")),
                "ServiceUUIDs": .variant(.array(.string, [.string("52495050-0000-4000-8000-000000000000")])),
                "Appearance": .variant(.uint16(0x0340)),
            ])
        }
        #expect(throws: BlueZError.self) { try AdvertisementData(["Type": .variant(.string("beacon"))]) }
        #expect(throws: BlueZError.self) {
            try AdvertisementData([
                "Type": .variant(.string("peripheral")), "Includes": .variant(.array(.string, [.string("rsi")])),
            ])
        }
    }
}
