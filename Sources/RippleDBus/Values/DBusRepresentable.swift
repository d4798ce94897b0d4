/// A Swift type with a D-Bus type: it converts to a ``DBusValue`` and decodes from one of exactly its type.
///
/// Conforming: `UInt8` (`y`), `Bool` (`b`), `Int16` (`n`), `UInt16` (`q`), `Int32` (`i`), `UInt32` (`u`),
/// `Int64` (`x`), `UInt64` (`t`), `Double` (`d`), `String` (`s`), ``DBusObjectPath`` (`o`),
/// ``DBusSignature`` (`g`), ``DBusFileDescriptor`` (`h`), ``DBusValue`` (`v`: wrapped in a variant,
/// decoded by unwrapping one), arrays of representable elements (`[UInt8]` is `ay`, carried as
/// ``DBusValue/bytes(_:)``) and dictionaries of representable keys and values. Decoding never converts:
/// an `Int32` does not decode from a `uint32` value nor from a variant holding an `int32`.
public protocol DBusRepresentable: Sendable {
    /// The D-Bus type of this Swift type's values.
    static var dbusType: DBusType { get }

    /// Decodes a value of exactly ``dbusType``.
    ///
    /// - Parameter dbusValue: the value.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` naming this type's signature, the value's and
    ///   where inside the value the mismatch was (`""` at the top, `"element 3"`, `"key \"RSSI\""`, joined with ` › `
    ///   when nested).
    init(dbusValue: DBusValue) throws(DBusDecodingError)

    /// The value as D-Bus carries it.
    var dbusValue: DBusValue { get }
}

extension DBusDecodingError {
    /// The type mismatch of a value of `found`'s type where `Expected` was wanted, at the top of the value.
    static func mismatch<Expected: DBusRepresentable>(_: Expected.Type, found: DBusValue) -> DBusDecodingError {
        .typeMismatch(expected: Expected.dbusType.signature, found: found.type.signature, at: "")
    }

    /// The error located one level further out: a type mismatch's path gets `location` in front
    /// (`"argument 1"` + `"key \"RSSI\""` is `"argument 1 › key \"RSSI\""`); other errors are unchanged.
    func located(at location: String) -> DBusDecodingError {
        guard case .typeMismatch(let expected, let found, let path) = self else { return self }
        return .typeMismatch(expected: expected, found: found, at: path.isEmpty ? location : "\(location) › \(path)")
    }
}
