import RippleBluetooth
import Testing

struct HexTests {
    @Test func digitsArePaddedAndCased() {
        #expect(Hex.digits(of: 0x2A, count: 4, uppercase: true) == "002A")
        #expect(Hex.digits(of: 0x2A, count: 4, uppercase: false) == "002a")
        #expect(Hex.digits(of: 0x1_2345, count: 4, uppercase: true) == "2345")
        #expect(Hex.digits(of: UInt64.max, count: 18, uppercase: true) == "00FFFFFFFFFFFFFFFF")
        #expect(Hex.digits(of: 0x0E as UInt8) == "0E")
        #expect(Hex.digits(of: 0xAB as UInt8, uppercase: false) == "ab")
    }

    @Test func byteStrings() {
        #expect(Hex.string([0x06, 0x48, 0xFF]) == "0648FF")
        #expect(Hex.string([0x06, 0x48], separator: " ") == "06 48")
        #expect(Hex.string([0xC0, 0xFF], separator: ":", uppercase: false) == "c0:ff")
        #expect(Hex.string([UInt8]()) == "")
    }

    @Test func digitValues() {
        #expect(["0", "9", "a", "f", "A", "F"].map { Hex.value(of: $0) } == [0, 9, 10, 15, 10, 15])
        #expect(["g", "G", " ", "é", "-"].map { Hex.value(of: $0) } == [nil, nil, nil, nil, nil])
    }

    @Test(arguments: ["0648", "0x0648", "06 48", "06:48", "06-48", "06_48", "0X0648"])
    func bytesAcceptCommonSpellings(text: String) throws {
        #expect(try Hex.bytes(text) == [0x06, 0x48])
    }

    @Test func mixedSeparatorsAndBadSpellings() throws {
        #expect(try Hex.bytes("0a 0b:0c-0d") == [0x0A, 0x0B, 0x0C, 0x0D])
        for bad in ["0", "0a0", "0 a", "zz", "0a,0b", "０a"] {
            #expect((try? Hex.bytes(bad)) == nil, "\(bad)")
        }
    }

    @Test func emptyTextIsNoBytes() throws {
        #expect(try Hex.bytes("") == [])
        #expect(try Hex.bytes("0x") == [])
    }

    @Test func badTextThrowsNamingTheOffset() {
        #expect(throws: HexParseError(text: "06G8", offset: 2)) { try Hex.bytes("06G8") }
        #expect(throws: HexParseError(text: "0x0Z", offset: 3)) { try Hex.bytes("0x0Z") }
        #expect(throws: HexParseError(text: "064", offset: 3)) { try Hex.bytes("064") }
        #expect(throws: HexParseError(text: "0 6", offset: 1)) { try Hex.bytes("0 6") }
        #expect(
            HexParseError(text: "064", offset: 3).description == #""064" is not hex bytes: the last byte has one digit"#
        )
        #expect(
            HexParseError(text: "06G8", offset: 2).description
                == #""06G8" is not hex bytes: character 2 is not a hex digit"#)
    }
}
