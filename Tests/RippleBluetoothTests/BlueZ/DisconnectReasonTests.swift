import Foundation
import RippleBluetooth
import Testing

/// bluetoothd's disconnect reasons: names and messages as bluetoothd sends them, found by name, coded as
/// the name.
struct DisconnectReasonTests {
    @Test func bluetoothdsReasonsHaveItsNamesAndMessages() {
        #expect(
            DisconnectReason.all.map(\.name) == [
                "org.bluez.Reason.Unknown", "org.bluez.Reason.Timeout", "org.bluez.Reason.Local",
                "org.bluez.Reason.Remote", "org.bluez.Reason.Authentication", "org.bluez.Reason.Suspend",
            ])
        #expect(
            DisconnectReason.all.map(\.message) == [
                "Unspecified", "Connection timeout", "Connection terminated by local host",
                "Connection terminated by remote user", "Connection terminated due to authentication failure",
                "Connection terminated by local host for suspend",
            ])
        #expect(DisconnectReason.remote.description == "Connection terminated by remote user")
    }

    @Test func aKnownNameGivesTheReasonAndAnUnknownOneNothing() {
        for reason in DisconnectReason.all {
            #expect(DisconnectReason(name: reason.name) == reason)
        }
        #expect(DisconnectReason(name: "org.bluez.Reason.Later") == nil)
        #expect(DisconnectReason(name: "remote") == nil)
    }

    @Test func aReasonIsCodedAsItsName() throws {
        let encoded = try JSONEncoder().encode(DisconnectReason.all)
        #expect(
            String(decoding: encoded, as: UTF8.self)
                == "[" + DisconnectReason.all.map { "\"\($0.name)\"" }.joined(separator: ",") + "]")
        #expect(try JSONDecoder().decode([DisconnectReason].self, from: encoded) == DisconnectReason.all)
        let later = try JSONDecoder().decode(DisconnectReason.self, from: Data("\"org.bluez.Reason.Later\"".utf8))
        #expect(later == DisconnectReason(name: "org.bluez.Reason.Later", message: "Unspecified"))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DisconnectReason.self, from: Data("7".utf8)) }
    }
}
