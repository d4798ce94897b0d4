extension DBusMessage {
    /// Decodes the first arguments of the body as the given types, in order:
    /// `let (path, properties) = try message.decodeArguments(as: DBusObjectPath.self, [String: DBusValue].self)`.
    /// Arguments after them are ignored.
    ///
    /// - Parameter types: the types, one per argument.
    /// - Returns: the arguments, as those types.
    /// - Throws: ``DBusDecodingError/missingArguments(expected:found:)`` when the body has fewer arguments than types,
    ///   and ``DBusDecodingError/typeMismatch(expected:found:at:)`` located at `"argument N"` (and further inside it)
    ///   for the first argument of another type.
    public func decodeArguments<each T: DBusRepresentable>(
        as types: repeat (each T).Type
    ) throws(DBusDecodingError) -> (repeat each T) {
        var expected = 0
        for _ in repeat each types {
            expected += 1
        }
        guard body.count >= expected else {
            throw .missingArguments(expected: expected, found: body.count)
        }
        var index = 0
        return (repeat try decodeNextArgument(each types, index: &index))
    }

    private func decodeNextArgument<T: DBusRepresentable>(
        _ type: T.Type, index: inout Int
    ) throws(DBusDecodingError) -> T {
        defer { index += 1 }
        return try decodeArgument(type, at: index)
    }

    /// Decodes the argument at `index` (from 0) as `type`.
    ///
    /// - Parameters:
    ///   - type: the type.
    ///   - index: the argument's position, from 0.
    /// - Returns: the argument.
    /// - Throws: ``DBusDecodingError/missingArguments(expected:found:)`` when the body has no argument at `index`
    ///   (expected `index + 1`), ``DBusDecodingError/invalidValue(_:)`` for a negative index, and
    ///   ``DBusDecodingError/typeMismatch(expected:found:at:)`` located at `"argument N"` when it has another type.
    public func decodeArgument<T: DBusRepresentable>(
        _ type: T.Type, at index: Int
    ) throws(DBusDecodingError) -> T {
        guard index >= 0 else { throw .invalidValue("argument index \(index) is negative") }
        guard index < body.count else {
            throw .missingArguments(expected: index + 1, found: body.count)
        }
        do {
            return try T(dbusValue: body[index])
        } catch {
            throw error.located(at: "argument \(index)")
        }
    }
}
