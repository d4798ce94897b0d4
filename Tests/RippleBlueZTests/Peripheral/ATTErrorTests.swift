import RippleDBus
import Testing

@testable import RippleBlueZ

/// How an app's answers travel to bluetoothd 5.66, and how a write's bytes decode.
struct ATTErrorTests {
    @Test func eachCodeIsRepliedAsTheD_BusErrorBluetoothdMapsBackToIt() {
        let replies: [(ATTError, String, String)] = [
            (.readNotPermitted, "org.bluez.Error.NotPermitted", "ATT error 0x02"),
            (.writeNotPermitted, "org.bluez.Error.NotPermitted", "ATT error 0x03"),
            (.requestNotSupported, "org.bluez.Error.NotSupported", "ATT error 0x06"),
            (.invalidOffset, "org.bluez.Error.InvalidOffset", "ATT error 0x07"),
            (.insufficientAuthorization, "org.bluez.Error.NotAuthorized", "ATT error 0x08"),
            (.invalidAttributeValueLength, "org.bluez.Error.InvalidValueLength", "ATT error 0x0d"),
            (.application(0x80), "org.bluez.Error.Failed", "0x80"),
            (.application(0x9F), "org.bluez.Error.Failed", "0x9f"),
            // Codes bluetoothd cannot carry become its "unlikely error".
            (.unlikely, "org.bluez.Error.Failed", "0x0e"),
            (ATTError(code: 0x05), "org.bluez.Error.Failed", "0x0e"),
        ]
        for (error, name, message) in replies {
            #expect(error.bluezReply.name == name, "\(error)")
            #expect(error.bluezReply.message == message, "\(error)")
        }
        #expect(ATTError.application(0x7F) == .unlikely)
        #expect(ATTError.application(0xA0) == .unlikely)
        #expect(ATTError.application(0x81).description == "ATT error 0x81")
    }

    @Test func aWriteDecodesThroughReadableOrSaysWhyNot() throws {
        let request = WriteRequest(
            value: [0x34, 0x12], offset: 0, mtu: 23,
            device: try DBusObjectPath("/org/bluez/hci1/dev_00_1A_7D_DA_71_13"),
            wantsResponse: false, responder: WriteResponder(invocation: nil))
        #expect(try request.decode(as: UInt16.self) == 0x1234)
        #expect(request.centralAddress == "00:1A:7D:DA:71:13")
        #expect(throws: BluetoothError.self) { try request.decode(as: UInt32.self) }
        // Without an invocation (a write without response) answering does nothing, once.
        #expect(request.respond())
        #expect(!request.respond(.failure(.unlikely)))
    }

    @Test func aReadRequestComesFromBluetoothdsOptions() throws {
        let device = try DBusObjectPath("/org/bluez/hci1/dev_00_1A_7D_DA_71_13")
        let request = ReadRequest(options: [
            "offset": .variant(.uint16(4)), "mtu": .variant(.uint16(185)), "device": .variant(.objectPath(device)),
            "link": .variant(.string("LE")),
        ])
        #expect(request == ReadRequest(offset: 4, mtu: 185, device: device))
        #expect(ReadRequest(options: [:]) == ReadRequest(offset: 0, mtu: 23, device: nil))
    }
}
