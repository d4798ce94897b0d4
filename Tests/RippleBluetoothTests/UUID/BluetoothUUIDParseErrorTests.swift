import Testing

@testable import RippleBluetooth

@Suite struct BluetoothUUIDParseErrorTests {
    private func reason(parsing string: String) -> BluetoothUUID.ParseError.Reason? {
        do {
            _ = try BluetoothUUID(string)
            return nil
        } catch {
            #expect(error.string == string)
            return error.reason
        }
    }

    @Test func empty() {
        #expect(reason(parsing: "") == .empty)
        #expect(reason(parsing: "0x") == .empty)
    }

    @Test func lengths() {
        #expect(reason(parsing: "1") == .invalidLength(1))
        #expect(reason(parsing: "180") == .invalidLength(3))
        #expect(reason(parsing: "0x180") == .invalidLength(3))
        #expect(reason(parsing: "180d1") == .invalidLength(5))
        #expect(reason(parsing: " 180d") == .invalidLength(5))
        #expect(reason(parsing: "0000180d-0000-1000-8000-00805f9b34f") == .invalidLength(35))
        #expect(reason(parsing: "{0000180d-0000-1000-8000-00805f9b34fb}") == .invalidLength(38))
    }

    @Test func characters() {
        #expect(reason(parsing: "18G0") == .invalidCharacter("G", offset: 2))
        #expect(reason(parsing: "0x18g0") == .invalidCharacter("g", offset: 4))
        #expect(reason(parsing: "0x0x18") == .invalidCharacter("x", offset: 3))
        #expect(reason(parsing: "180-") == .invalidCharacter("-", offset: 3))
        #expect(reason(parsing: "0000180d-0000-1000-8000-00805f9b34fz") == .invalidCharacter("z", offset: 35))
        #expect(reason(parsing: "0000180d-0000-1000-8000-00805f9b34-b") == .misplacedHyphens)
        #expect(reason(parsing: "0000180d00001000800000805f9b34f-") == .invalidCharacter("-", offset: 31))
        // Fullwidth digits are hex digits to Character.hexDigitValue, but not to a UUID.
        #expect(reason(parsing: "18０D") == .invalidCharacter("０", offset: 2))
        #expect(reason(parsing: "18éD") == .invalidCharacter("é", offset: 2))
    }

    @Test func hyphens() {
        #expect(reason(parsing: "0000180d0-000-1000-8000-00805f9b34fb") == .misplacedHyphens)
        #expect(reason(parsing: "0000180d-0000-1000-800000805f9b34fb0") == .misplacedHyphens)
    }

    @Test func prefixBeforeAFullForm() {
        #expect(reason(parsing: "0x0000180d-0000-1000-8000-00805f9b34fb") == .unexpectedPrefix)
        #expect(reason(parsing: "0x0000180d00001000800000805f9b34fb") == .unexpectedPrefix)
    }

    @Test func failableInitialiserReturnsNil() {
        #expect(BluetoothUUID(uuidString: "nope") == nil)
        #expect(BluetoothUUID(uuidString: "") == nil)
    }

    @Test func descriptionNamesTheStringAndWhy() {
        #expect(
            BluetoothUUID.ParseError(string: "18G0", reason: .invalidCharacter("G", offset: 2)).description
                == "\"18G0\" is not a Bluetooth UUID: 'G' at offset 2 is not a hexadecimal digit"
        )
        #expect(
            BluetoothUUID.ParseError(string: "180", reason: .invalidLength(3)).description
                == "\"180\" is not a Bluetooth UUID: 3 characters; expected 4 or 8 hex digits, 32 hex digits, or 36 characters with hyphens"
        )
        #expect(
            BluetoothUUID.ParseError(string: "", reason: .empty).description
                == "\"\" is not a Bluetooth UUID: it is empty"
        )
        #expect(
            BluetoothUUID.ParseError(string: "x", reason: .misplacedHyphens).description
                == "\"x\" is not a Bluetooth UUID: the hyphens are not in the 8-4-4-4-12 places"
        )
        #expect(
            BluetoothUUID.ParseError(string: "x", reason: .unexpectedPrefix).description
                == "\"x\" is not a Bluetooth UUID: a 0x prefix is allowed only before 4 or 8 hex digits"
        )
    }
}
