import Testing

@testable import RippleDBus

@Suite struct DBusErrorTests {
    @Test func remoteErrorDescribesItselfWithAndWithoutMessage() {
        #expect(DBusError.remote(name: "org.bluez.Error.Failed", message: "").description == "org.bluez.Error.Failed")
        #expect(
            DBusError.remote(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local").description
                == "org.bluez.Error.Failed: le-connection-abort-by-local")
        #expect(DBusError.remote(name: "a.B", message: "c").remoteName == "a.B")
        #expect(DBusError.timedOut.remoteName == nil)
    }

    @Test func decodingErrorsNameBothSignaturesAndWhere() {
        #expect(
            DBusDecodingError.typeMismatch(expected: "a{sv}", found: "as", at: "").description
                == "expected D-Bus signature 'a{sv}', found 'as'")
        #expect(
            DBusError.decoding(.typeMismatch(expected: "n", found: "s", at: "argument 1")).description
                == "expected D-Bus signature 'n', found 's' at argument 1")
        #expect(
            DBusDecodingError.missingArguments(expected: 2, found: 1).description
                == "expected 2 D-Bus arguments, found 1")
    }
}
