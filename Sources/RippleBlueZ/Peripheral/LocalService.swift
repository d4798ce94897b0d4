/// A GATT service this machine serves, as a value: its type and its characteristics.
///
/// ```swift
/// let heartRate = LocalService(.heartRate) {
///     LocalCharacteristic(.heartRateMeasurement, properties: [.notify])
///     LocalCharacteristic(.bodySensorLocation, properties: [.read], value: [0x01])
/// }
/// ```
public struct LocalService: Sendable {
    /// The service's type.
    public var uuid: BluetoothUUID
    /// Whether it is a primary service.
    public var isPrimary: Bool
    /// Its characteristics, in order.
    public var characteristics: [LocalCharacteristic]

    /// A service of type `uuid` with `characteristics`.
    ///
    /// - Parameters:
    ///   - uuid: the service's type.
    ///   - isPrimary: whether it is a primary service (true by default).
    ///   - characteristics: its characteristics, in order.
    public init(_ uuid: BluetoothUUID, isPrimary: Bool = true, characteristics: [LocalCharacteristic]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }

    /// A service of type `uuid` whose characteristics a result builder lists.
    ///
    /// - Parameters:
    ///   - uuid: the service's type.
    ///   - isPrimary: whether it is a primary service (true by default).
    ///   - characteristics: the characteristics, one per line.
    public init(
        _ uuid: BluetoothUUID, isPrimary: Bool = true,
        @LocalAttributesBuilder<LocalCharacteristic> characteristics: () -> [LocalCharacteristic]
    ) {
        self.init(uuid, isPrimary: isPrimary, characteristics: characteristics())
    }
}

/// Answers a read of a served characteristic: the bytes from the request's offset, or an ATT error.
public typealias LocalReadHandler = @Sendable (ReadRequest) async throws(ATTError) -> [UInt8]

/// A GATT characteristic this machine serves, as a value: its type, properties, first value, descriptors,
/// and optionally a handler that answers reads.
///
/// Without a handler, reads are answered from the characteristic's current value, which
/// ``PeripheralManager/setValue(_:for:)`` and ``PeripheralManager/send(_:on:)`` change.
public struct LocalCharacteristic: Sendable {
    /// The characteristic's type.
    public var uuid: BluetoothUUID
    /// What it allows and requires.
    public var properties: CharacteristicProperties
    /// Its value at first.
    public var value: [UInt8]
    /// Its descriptors (bluetoothd adds the Client Characteristic Configuration descriptor itself).
    public var descriptors: [LocalDescriptor]
    /// Answers reads instead of the current value, when set.
    public var onRead: LocalReadHandler?

    /// A characteristic of type `uuid`.
    ///
    /// - Parameters:
    ///   - uuid: the characteristic's type.
    ///   - properties: what it allows and requires.
    ///   - value: its value at first.
    ///   - descriptors: its descriptors.
    ///   - onRead: answers reads instead of the current value (it gets the offset, the MTU and the
    ///     central); nil serves the current value.
    public init(
        _ uuid: BluetoothUUID, properties: CharacteristicProperties, value: [UInt8] = [],
        descriptors: [LocalDescriptor] = [], onRead: LocalReadHandler? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
        self.descriptors = descriptors
        self.onRead = onRead
    }

    /// A characteristic whose first value is `value`'s Bluetooth bytes.
    ///
    /// - Parameters:
    ///   - uuid: the characteristic's type.
    ///   - properties: what it allows and requires.
    ///   - value: its first value.
    ///   - descriptors: its descriptors.
    public init<Value: Writable>(
        _ uuid: BluetoothUUID, properties: CharacteristicProperties, value: Value, descriptors: [LocalDescriptor] = []
    ) {
        self.init(uuid, properties: properties, value: value.bluetoothBytes, descriptors: descriptors)
    }
}

/// A GATT descriptor this machine serves: its type, properties and (fixed) value.
public struct LocalDescriptor: Sendable {
    /// The descriptor's type.
    public var uuid: BluetoothUUID
    /// What it allows and requires.
    public var properties: DescriptorProperties
    /// Its value, answered to reads; writes replace it.
    public var value: [UInt8]

    /// A descriptor of type `uuid`.
    ///
    /// - Parameters:
    ///   - uuid: the descriptor's type.
    ///   - properties: what it allows (read by default).
    ///   - value: its value.
    public init(_ uuid: BluetoothUUID, properties: DescriptorProperties = [.read], value: [UInt8]) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
    }

    /// A Characteristic User Description (0x2901) of `text`.
    ///
    /// - Parameter text: the description.
    /// - Returns: the descriptor.
    public static func userDescription(_ text: String) -> LocalDescriptor {
        LocalDescriptor(BluetoothUUID(UInt16(0x2901)), value: Array(text.utf8))
    }
}

/// Builds a list of services or characteristics from one per line, with `if`, `for` and optional parts.
@resultBuilder
public enum LocalAttributesBuilder<Element> {
    /// One element.
    ///
    /// - Parameter element: the element.
    /// - Returns: it, as a list.
    public static func buildExpression(_ element: Element) -> [Element] { [element] }

    /// Several elements.
    ///
    /// - Parameter elements: the elements.
    /// - Returns: them.
    public static func buildExpression(_ elements: [Element]) -> [Element] { elements }

    /// The lines of a block, joined.
    ///
    /// - Parameter parts: the lines' lists.
    /// - Returns: their concatenation.
    public static func buildBlock(_ parts: [Element]...) -> [Element] { parts.flatMap { $0 } }

    /// An `if` without `else`.
    ///
    /// - Parameter part: the block's list when the condition held.
    /// - Returns: it, or nothing.
    public static func buildOptional(_ part: [Element]?) -> [Element] { part ?? [] }

    /// The first branch of an `if`/`else`.
    ///
    /// - Parameter part: the branch's list.
    /// - Returns: it.
    public static func buildEither(first part: [Element]) -> [Element] { part }

    /// The second branch of an `if`/`else`.
    ///
    /// - Parameter part: the branch's list.
    /// - Returns: it.
    public static func buildEither(second part: [Element]) -> [Element] { part }

    /// A `for` loop.
    ///
    /// - Parameter parts: each iteration's list.
    /// - Returns: their concatenation.
    public static func buildArray(_ parts: [[Element]]) -> [Element] { parts.flatMap { $0 } }
}
