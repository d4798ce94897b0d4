import RippleDBus

/// The options of a GATT `ReadValue`/`WriteValue`/`Acquire*` call, parsed as bluetoothd parses them:
/// `offset` must be a `q` and `type` an `s` (else InvalidArguments); other keys are ignored.
struct GATTOptions: Sendable {
    var offset = 0
    var type: String?

    init(_ value: DBusValue?) throws(BlueZError) {
        guard let value else { return }
        guard let entries = value.dictionaryEntries else { throw .invalidArguments }
        for entry in entries {
            guard let key = entry.key.string else { throw .invalidArguments }
            let option = entry.value.unwrappingVariants
            switch key.lowercased() {
            case "offset":
                guard let offset = option.uint16 else { throw .invalidArguments }
                self.offset = Int(offset)
            case "type":
                guard let type = option.string else { throw .invalidArguments }
                self.type = type.lowercased()
            default:
                break
            }
        }
    }
}

/// bluetoothd's GATT interface names.
enum GATTInterface {
    static let service = BlueZInterface.gattService
    static let characteristic = BlueZInterface.gattCharacteristic
    static let descriptor = BlueZInterface.gattDescriptor
    static let properties = BlueZInterface.properties
    /// The Client Characteristic Configuration descriptor.
    static let cccd = BluetoothUUID(0x2902)
}

/// A four-digit lower-case hexadecimal handle, as bluetoothd's paths end (`char000b`).
func handleComponent(_ prefix: String, _ handle: UInt16) -> String {
    prefix + Hex.digits(of: UInt64(handle), count: 4, uppercase: false)
}

/// Emits `PropertiesChanged` for `Value` of `interface` on `object` with `value`, whether or not it
/// changed (bluetoothd signals every read and every notification).
func emitValueChanged(_ object: DBusExportedObject, interface: String, value: [UInt8]) {
    _ = try? object.setProperty("Value", of: interface, to: .bytes(value))
    _ = try? object.emitSignal(
        .propertiesChanged,
        arguments: [.string(interface), .stringVariantDictionary(["Value": .bytes(value)]), .array(.string, [])])
}
