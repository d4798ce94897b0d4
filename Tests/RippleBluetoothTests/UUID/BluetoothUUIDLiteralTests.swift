import Foundation
import RippleBluetooth
import Testing

/// A user's constants, in the shape the seed libraries wrote them (`CBUUID(string:)` as a `static let`).
enum LabUUIDs {
    static let service: BluetoothUUID = "5249504C-1AB0-4000-8000-000000000001"
    static let command: BluetoothUUID = "5249504c1ab040008000000000000002"
    static let heartRate: BluetoothUUID = "180D"
    static let vendor: BluetoothUUID = "0xFEE0"
}

struct BluetoothUUIDLiteralTests {
    @Test func stringLiteralsTakeEveryAcceptedForm() {
        #expect(LabUUIDs.heartRate == .heartRate)
        #expect(LabUUIDs.vendor == BluetoothUUID(0xFEE0))
        #expect(LabUUIDs.service.uuidString == "5249504c-1ab0-4000-8000-000000000001")
        #expect(LabUUIDs.command.description == "5249504C-1AB0-4000-8000-000000000002")
    }

    @Test func anInvalidLiteralStopsTheProgramNamingTheLiteral() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let uuid: BluetoothUUID = "180G"
            _ = uuid
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(#"invalid BluetoothUUID literal: "180G" is not a Bluetooth UUID"#))
    }

    @Test func stringsArrivingAtRunTimeThrowInstead() {
        let text = ["180G"].joined()
        #expect(throws: BluetoothUUID.ParseError(string: "180G", reason: .invalidCharacter("G", offset: 3))) {
            try BluetoothUUID(text)
        }
    }

    @Test func codableAsTheFullString() throws {
        let uuids: [BluetoothUUID] = [.heartRate, LabUUIDs.service]
        let encoded = String(decoding: try JSONEncoder().encode(uuids), as: UTF8.self)
        #expect(encoded == #"["0000180d-0000-1000-8000-00805f9b34fb","5249504c-1ab0-4000-8000-000000000001"]"#)
        #expect(
            try JSONDecoder().decode([BluetoothUUID].self, from: Data(#"["180d","0x2A37"]"#.utf8)) == [
                .heartRate, 0x2A37,
            ])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([BluetoothUUID].self, from: Data(#"["nope"]"#.utf8))
        }
    }
}
