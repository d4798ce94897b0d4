// ripple-dbus-fuzz: feeds arbitrary bytes to `DBusMessage(wireBytes:)`; whatever decodes must re-encode and
// decode again to an equal message. Nothing may trap on the way.
//
// `ripple-dbus-fuzz --write-seeds <dir>` writes a seed corpus of valid messages. Otherwise:
// - built with `-sanitize=fuzzer,address -DRIPPLE_FUZZ` (Scripts/fuzz), it hands its arguments to libFuzzer
//   (`LLVMFuzzerRunDriver`: SwiftPM gives every executable its own `main`, so libFuzzer's cannot be used);
// - built normally (`swift build`), it runs the check once over each file it is given, to replay a crash
//   without the fuzzer.
import RippleDBus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The property under test, for one input.
func checkRoundTrip(_ bytes: [UInt8]) {
    guard let message = try? DBusMessage(wireBytes: bytes) else { return }
    let encoded: [UInt8]
    do {
        encoded = try message.wireBytes()
    } catch {
        failRoundTrip("a decoded message could not be encoded again: \(error)\n\(message)")
    }
    do {
        let decoded = try DBusMessage(wireBytes: encoded)
        if decoded != message {
            failRoundTrip("the message changed through a round trip:\n\(message)\n\(decoded)")
        }
    } catch {
        failRoundTrip("an encoded message could not be decoded again: \(error)\n\(message)")
    }
}

func failRoundTrip(_ reason: String) -> Never {
    let line = Array("ripple-dbus-fuzz: \(reason)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// Valid messages of the shapes BlueZ and the bus send, as the fuzzer's starting points.
func seedMessages() throws -> [DBusMessage] {
    let adapter = try DBusObjectPath("/org/bluez/hci0")
    let device = try adapter.appending("dev_AA_BB_CC_DD_EE_FF")
    var call = try DBusMessage.methodCall(
        destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1", member: "SetDiscoveryFilter",
        body: [
            .stringVariantDictionary([
                "Transport": .string("le"), "RSSI": .int16(-90), "DuplicateData": .boolean(false),
            ])
        ])
    call.serial = 3
    call.sender = ":1.42"
    let properties: [String: DBusValue] = [
        "Address": .string("AA:BB:CC:DD:EE:FF"), "RSSI": .int16(-60), "Paired": .boolean(false),
        "UUIDs": .array(.string, [.string("0000180f-0000-1000-8000-00805f9b34fb")]),
        "ManufacturerData": .dictionary(
            key: .uint16, value: .variant,
            [
                DBusDictionaryEntry(key: .uint16(76), value: .variant(.bytes([2, 21, 0xff, 0])))
            ]),
        "TxPower": .int16(4), "Class": .uint32(0x1f00), "Modalias": .string("usb:v1D6Bp0246d0537"),
    ]
    var managedObjects = DBusMessage.methodReturn(
        replyingTo: call,
        body: [
            .dictionary(
                key: .objectPath, value: .dictionary(key: .string, value: .dictionary(key: .string, value: .variant)),
                [
                    DBusDictionaryEntry(
                        key: .objectPath(device),
                        value: .dictionary(
                            key: .string, value: .dictionary(key: .string, value: .variant),
                            [
                                DBusDictionaryEntry(
                                    key: .string("org.bluez.Device1"), value: .stringVariantDictionary(properties)),
                                DBusDictionaryEntry(
                                    key: .string("org.freedesktop.DBus.Properties"),
                                    value: .stringVariantDictionary([:])),
                            ]))
                ])
        ])
    managedObjects.serial = 9
    var propertiesChanged = try DBusMessage.signal(
        path: device, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
        body: [
            .string("org.bluez.Device1"), .stringVariantDictionary(["RSSI": .int16(-58)]),
            .array(.string, [.string("Name")]),
        ])
    propertiesChanged.serial = 10
    var error = try DBusMessage.error(
        replyingTo: call, name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
    error.serial = 11
    var everything = try DBusMessage.signal(
        path: .root, interface: "org.example.Fuzz", member: "Everything",
        body: [
            .byte(0xff), .boolean(true), .int16(.min), .uint16(.max), .int32(-1), .uint32(.max), .int64(.min),
            .uint64(.max),
            .double(-0.0), .string("héllo 🌍"), .objectPath(device), .signature(try DBusSignature("a(oa{sv})v")),
            .array(.double, [.double(.nan), .double(.infinity)]), .array(.structure([.int32, .string]), []),
            .structure([
                .variant(.variant(.variant(.bytes([1, 2, 3])))), .array(.array(.byte), [.bytes([]), .bytes([9])]),
            ]),
            .dictionary(
                key: .int64, value: .array(.boolean),
                [DBusDictionaryEntry(key: .int64(7), value: .array(.boolean, [.boolean(true)]))]),
        ])
    everything.serial = 12
    everything.destination = ":1.7"
    everything.noReplyExpected = true
    everything.autoStart = false
    return [call, managedObjects, propertiesChanged, error, everything]
}

/// Writes one seed file per seed message into `directory` (which must exist).
func writeSeeds(to directory: String) throws {
    for (index, message) in try seedMessages().enumerated() {
        let bytes = try message.wireBytes()
        let path = "\(directory)/seed-\(index)"
        guard let file = fopen(path, "wb") else { failRoundTrip("cannot create \(path)") }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        guard written == bytes.count else { failRoundTrip("cannot write \(path)") }
    }
}

#if RIPPLE_FUZZ
/// libFuzzer's entry point for a program with its own `main` (SwiftPM gives every executable one).
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

@main
enum DBusMessageFuzzer {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 2, arguments[0] == "--write-seeds" {
            try writeSeeds(to: arguments[1])
            return
        }
        #if RIPPLE_FUZZ
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                checkRoundTrip(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            })
        #else
        guard !arguments.isEmpty else {
            print("usage: ripple-dbus-fuzz --write-seeds <directory> | <input file>...")
            return
        }
        for path in arguments {
            try replay(path)
        }
        #endif
    }

    /// Runs the check once over the bytes of the file at `path`.
    static func replay(_ path: String) throws {
        guard let file = fopen(path, "rb") else { failRoundTrip("cannot open \(path)") }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        fclose(file)
        checkRoundTrip(bytes)
        print("\(path): \(bytes.count) bytes, round trip holds")
    }
}
