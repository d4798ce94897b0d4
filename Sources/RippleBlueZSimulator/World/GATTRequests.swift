/// A read of a characteristic or descriptor, as its read handler sees it.
public struct GATTReadRequest: Sendable {
    /// The offset the client asked for (`ReadValue`'s "offset" option, 0 by default).
    public let offset: Int
    /// The attribute's stored value.
    public let storedValue: [UInt8]
    /// The ATT MTU of the connection.
    public let mtu: Int
    /// The unique bus name of the client that called `ReadValue`, when known.
    public let client: String?

    /// A request (for handlers under test).
    ///
    /// - Parameters:
    ///   - offset: the offset the client asked for (`ReadValue`'s "offset" option, 0 by default).
    ///   - storedValue: the attribute's stored value.
    ///   - mtu: the ATT MTU of the connection.
    ///   - client: the unique bus name of the client that called `ReadValue`, when known.
    public init(offset: Int = 0, storedValue: [UInt8], mtu: Int = 23, client: String? = nil) {
        self.offset = offset
        self.storedValue = storedValue
        self.mtu = mtu
        self.client = client
    }
}

/// How a write reached the peripheral (`WriteValue`'s "type" option, or the socket of `AcquireWrite`).
public enum GATTWriteKind: String, Sendable, Hashable, Codable {
    /// A Write Request: the peripheral answers it ("request").
    case request
    /// A Write Command, without response ("command", and every write through `AcquireWrite`).
    case command
    /// A reliable (prepared, then executed) write ("reliable").
    case reliable
}

/// A write of a characteristic or descriptor, as its write handler sees it.
public struct GATTWriteRequest: Sendable {
    /// The bytes written.
    public let value: [UInt8]
    /// The offset the client asked for (0 by default).
    public let offset: Int
    /// How the write was made.
    public let kind: GATTWriteKind
    /// The attribute's stored value before the write.
    public let storedValue: [UInt8]
    /// The ATT MTU of the connection.
    public let mtu: Int
    /// The unique bus name of the client, when known (nil for writes through an `AcquireWrite` socket).
    public let client: String?

    /// A request (for handlers under test).
    ///
    /// - Parameters:
    ///   - value: the bytes written.
    ///   - offset: the offset the client asked for (0 by default).
    ///   - kind: how the write was made.
    ///   - storedValue: the attribute's stored value before the write.
    ///   - mtu: the ATT MTU of the connection.
    ///   - client: the unique bus name of the client, when known (nil for writes through an `AcquireWrite` socket).
    public init(
        value: [UInt8], offset: Int = 0, kind: GATTWriteKind = .request, storedValue: [UInt8] = [], mtu: Int = 23,
        client: String? = nil
    ) {
        self.value = value
        self.offset = offset
        self.kind = kind
        self.storedValue = storedValue
        self.mtu = mtu
        self.client = client
    }
}

/// What a write handler decides: the value the attribute stores afterwards and the notifications the
/// peripheral sends in answer.
public struct GATTWriteResponse: Sendable {
    /// The value stored after the write; nil keeps the default (the written bytes placed at the offset).
    public var storedValue: [UInt8]?
    /// Notifications (or indications) the peripheral sends after answering the write, in order.
    public var notifications: [SimulatedNotification]

    /// A response storing `storedValue` (nil: the written bytes) and sending `notifications`.
    ///
    /// - Parameters:
    ///   - storedValue: the value stored after the write; nil keeps the default (the written bytes placed at the
    ///     offset).
    ///   - notifications: notifications (or indications) the peripheral sends after answering the write, in order.
    public init(storedValue: [UInt8]? = nil, notifications: [SimulatedNotification] = []) {
        self.storedValue = storedValue
        self.notifications = notifications
    }

    /// Accept the write as written, send nothing.
    public static let accept = GATTWriteResponse()
}

/// A value a peripheral notifies, on the characteristic written to or on another one of the same
/// peripheral.
public struct SimulatedNotification: Sendable, Hashable {
    /// The characteristic that notifies; nil for the one the handler belongs to.
    public var characteristic: BluetoothUUID?
    /// The bytes notified.
    public var value: [UInt8]

    /// `value` notified on `characteristic` (nil: the handler's own).
    ///
    /// - Parameters:
    ///   - value: the bytes notified.
    ///   - characteristic: the characteristic that notifies; nil for the one the handler belongs to.
    public init(_ value: [UInt8], on characteristic: BluetoothUUID? = nil) {
        self.characteristic = characteristic
        self.value = value
    }
}

/// Answers a read: the bytes returned (from the request's offset, which the handler applies), or a thrown
/// ``BlueZError`` (``BlueZError/attError(_:)`` for an ATT error). Runs on the simulator's loop thread.
public typealias GATTReadHandler = @Sendable (GATTReadRequest) throws(BlueZError) -> [UInt8]

/// Answers a write: what to store and notify, or a thrown ``BlueZError``. Runs on the simulator's loop
/// thread.
public typealias GATTWriteHandler = @Sendable (GATTWriteRequest) throws(BlueZError) -> GATTWriteResponse
