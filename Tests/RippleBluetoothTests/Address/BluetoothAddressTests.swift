import Foundation
import RippleBluetooth
import Testing

struct BluetoothAddressTests {
    @Test func literalAndTextFormsAgree() throws {
        let literal: BluetoothAddress = "c0:ff:ee:00:00:01"
        #expect(literal == (BluetoothAddress("C0:FF:EE:00:00:01")))
        #expect(literal == (BluetoothAddress("C0_FF_EE_00_00_01")))
        #expect(literal.rawValue == 0xC0FF_EE00_0001)
        #expect(literal.bytes == [0xC0, 0xFF, 0xEE, 0x00, 0x00, 0x01])
        #expect(literal.description == "C0:FF:EE:00:00:01")
        #expect(literal.bluezPathComponent == "dev_C0_FF_EE_00_00_01")
        #expect(BluetoothAddress(bytes: literal.bytes) == literal)
        #expect(BluetoothAddress(bytes: [1, 2, 3]) == nil)
        #expect(BluetoothAddress(rawValue: 0xFF_0000_0000_0001).description == "00:00:00:00:00:01")
    }

    @Test(arguments: [
        "", "C0:FF:EE:00:00", "C0:FF:EE:00:00:01:02", "C0-FF-EE-00-00-01", "C0:FF:EE:00:00:0G",
        "C0:FF_EE:00:00:01", "C0FFEE000001", " C0:FF:EE:00:00:1",
    ])
    func textThatIsNotAnAddressThrows(text: String) {
        #expect(throws: BluetoothAddress.ParseError(text: text)) { try BluetoothAddress(text) }
    }

    @Test func parseErrorNamesTheText() {
        #expect(
            BluetoothAddress.ParseError(text: "nope").description
                == #""nope" is not a Bluetooth address (six hex bytes separated by colons, XX:XX:XX:XX:XX:XX)"#)
    }

    @Test func anInvalidLiteralStopsTheProgramNamingTheLiteral() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let address: BluetoothAddress = "C0:FF:EE"
            _ = address
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(#"invalid BluetoothAddress literal: "C0:FF:EE" is not a Bluetooth address"#))
    }

    @Test func ordersByValue() {
        let addresses: [BluetoothAddress] = ["C0:FF:EE:00:00:02", "0A:00:00:00:00:00", "C0:FF:EE:00:00:01"]
        #expect(
            addresses.sorted().map(\.description) == ["0A:00:00:00:00:00", "C0:FF:EE:00:00:01", "C0:FF:EE:00:00:02"])
    }

    @Test func codableAsText() throws {
        let address: BluetoothAddress = "c0:ff:ee:00:00:01"
        #expect(String(decoding: try JSONEncoder().encode([address]), as: UTF8.self) == #"["C0:FF:EE:00:00:01"]"#)
        #expect(
            try JSONDecoder().decode([BluetoothAddress].self, from: Data(#"["c0:ff:ee:00:00:01"]"#.utf8)) == [address])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([BluetoothAddress].self, from: Data(#"["c0:ff"]"#.utf8))
        }
    }
}
