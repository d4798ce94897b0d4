import CDBus
import Ripple

#if canImport(Glibc)
import Glibc
#endif

/// A change of a byte-array property, from ``DBusConnection/byteArrayPropertyChanges(from:interface:property:buffering:)``.
public struct DBusByteArrayPropertyChange: Sendable, Hashable {
    /// The object whose property changed.
    public var path: DBusObjectPath
    /// The property's new value.
    public var bytes: [UInt8]

    /// A change of the property of the object at `path` to `bytes`.
    ///
    /// - Parameters:
    ///   - path: the object whose property changed.
    ///   - bytes: the property's new value.
    public init(path: DBusObjectPath, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
    }
}

/// The publisher ``DBusConnection/byteArrayPropertyChanges(from:interface:property:buffering:)`` returns.
public struct DBusByteArrayPropertyPublisher: Publisher, Sendable {
    /// A changed object and the property's new bytes.
    public typealias Output = DBusByteArrayPropertyChange
    /// Why the stream ended: ``DBusError/disconnected``, ``DBusError/bufferOverflow(limit:)``, or the bus's
    /// refusal of the match rule.
    public typealias Failure = DBusError

    /// The connection receiving the signals.
    public let connection: DBusConnection
    /// The well-known name of the objects' owner (`org.bluez`).
    public let sender: String
    /// The interface the property belongs to.
    public let interface: String
    /// The property (of D-Bus type `ay`).
    public let property: String
    /// How many changes are kept for a subscriber without demand.
    public let buffering: DBusSignalBuffering

    /// Subscribes `subscriber`: adds the match rule (shared as usual) and the fast path.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == DBusError {
        let subscription = LoopStreamSubscription(
            core: connection.core, limit: buffering.limit, description: "DBusByteArrayPropertyChanges",
            downstream: subscriber)
        subscriber.receive(subscription: subscription)
        let rule = DBusMatchRule(
            sender: sender, interface: DBusByteArrayPropertyTap.propertiesInterface,
            member: DBusByteArrayPropertyTap.changedMember, arguments: [0: interface])
        do {
            try rule.validate()
        } catch {
            connection.core.perform { _ in subscription.finish(.failure(error)) }
            return
        }
        let connection = connection
        let property = property
        let id = ObjectIdentifier(subscription)
        let tap = DBusByteArrayPropertyTap(
            id: id, sender: sender, interface: interface, property: property,
            deliver: { path, bytes in
                withExtendedLifetime(connection) {
                    subscription.offer(DBusByteArrayPropertyChange(path: path, bytes: bytes))
                }
            })
        connection.core.perform { core in
            guard subscription.isActive else { return }
            let route = DBusByteArrayPropertyTap.route(
                id: id, rule: rule, property: property, deliver: tap.deliver,
                close: { error in subscription.finish(.failure(error)) })
            guard subscription.setDetach(on: core, { core in core.signalRouter.remove(id, core: core) }) else { return }
            core.signalRouter.add(route, core: core, tap: tap)
        }
    }
}

extension DBusConnection {
    /// The changes of the byte-array (`ay`) property `property` of `interface`, on every object of
    /// `sender`, taken on a fast path: a `PropertiesChanged` signal that changes that property alone is
    /// read straight from libdbus's message (no decoded message, no other subscription) — the path a BLE
    /// characteristic's `Value` notifications take through bluetoothd.
    ///
    /// Such a signal is *claimed*: the connection's other signal subscriptions and object managers do
    /// not receive it (their mirror keeps the property's older value). A signal that changes other
    /// properties too, or invalidates any, is routed as usual and also reaches this stream. Only signals
    /// from the current owner of `sender` are taken. Delivered on the loop thread in the bus's order;
    /// buffered as ``signals(matching:buffering:)`` does; fails with ``DBusError/disconnected`` when the
    /// connection closes and with the bus's error if it refuses the match rule.
    ///
    /// - Parameters:
    ///   - sender: the bus name whose signals count (`org.bluez`).
    ///   - interface: the interface the property belongs to.
    ///   - property: the property (of D-Bus type `ay`).
    ///   - buffering: how many changes are kept for a subscriber without demand.
    /// - Returns: the publisher of the changes.
    public func byteArrayPropertyChanges(
        from sender: String, interface: String, property: String, buffering: DBusSignalBuffering = .default
    ) -> DBusByteArrayPropertyPublisher {
        DBusByteArrayPropertyPublisher(
            connection: self, sender: sender, interface: interface, property: property, buffering: buffering)
    }
}

/// One fast-path subscription: reads matching `PropertiesChanged` signals from the raw libdbus message.
///
/// A class, read in place per message: the router keeps its taps in an array that it walks for every
/// signal, and a struct of strings, arrays and closures would be copied out of it (a retain and a
/// release per field) each time.
final class DBusByteArrayPropertyTap {
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let changedMember = "PropertiesChanged"

    let id: ObjectIdentifier
    /// The well-known name whose owner must have sent the signal.
    let sender: String
    let interface: String
    let property: String
    /// Takes each change: the changed object's path and the property's new bytes (loop thread).
    let deliver: (DBusObjectPath, [UInt8]) -> Void
    /// ``interface`` and ``property`` as NUL-terminated C strings, compared with each message's in place
    /// (a short Swift string has no C string of its own: `withCString` would copy it to the heap each time).
    /// Owned by the tap (freed in `deinit`): read per message through plain pointers, with no reference
    /// counting of arrays around each use.
    let interfaceCString: UnsafeMutablePointer<CChar>
    let propertyCString: UnsafeMutablePointer<CChar>
    /// The lengths of ``interface`` and ``property`` in bytes (UTF-8, without the NUL).
    let interfaceLength: Int
    let propertyLength: Int
    /// The record of the sender's owner (set by the router when it installs the tap; loop thread only),
    /// and its owner's C string, compared per message through that plain pointer (valid while the tap
    /// holds the record).
    @exclusivity(unchecked) nonisolated(unsafe) var owner: SignalRouter.OwnerRecord? {
        didSet { ownerCString = owner.map { UnsafePointer($0.ownerCString) } }
    }
    @exclusivity(unchecked) nonisolated(unsafe) private(set) var ownerCString: UnsafePointer<CChar>?
    /// The object path of the last signal taken, as libdbus's bytes and as the path handed on: reused while
    /// the signals come from the same object (loop thread only).
    @exclusivity(unchecked) nonisolated(unsafe) private var lastCharacters: [CChar] = []
    @exclusivity(unchecked) nonisolated(unsafe) private var lastPath: DBusObjectPath?
    /// The array the last value was handed on in: refilled for the next value of the same length when
    /// nothing downstream kept it (loop thread only). A value somebody kept is never written: the refill
    /// goes through copy-on-write, which then gives this tap an array of its own.
    @exclusivity(unchecked) nonisolated(unsafe) private var spare: [UInt8] = []

    /// A tap for the changes of `property` of `interface` sent by the owner of `sender`, handed to `deliver`.
    init(
        id: ObjectIdentifier, sender: String, interface: String, property: String,
        deliver: @escaping (DBusObjectPath, [UInt8]) -> Void
    ) {
        self.id = id
        self.sender = sender
        self.interface = interface
        self.property = property
        self.deliver = deliver
        interfaceCString = Self.copy(interface)
        propertyCString = Self.copy(property)
        interfaceLength = interface.utf8.count
        propertyLength = property.utf8.count
    }

    deinit {
        interfaceCString.deallocate()
        propertyCString.deallocate()
    }

    /// A NUL-terminated copy of `text`, allocated (the caller deallocates it).
    private static func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
        let characters = Array(text.utf8CString)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: characters.count)
        copy.initialize(from: characters, count: characters.count)
        return copy
    }

    /// The path whose characters are `raw`: the one of the last call when they are the same (no new
    /// string, no validation), else a new one, remembered.
    private func path(_ raw: UnsafePointer<CChar>) -> DBusObjectPath {
        if let lastPath, strcmp(lastCharacters, raw) == 0 { return lastPath }
        // libdbus validated the path when it read the message.
        let path = DBusObjectPath(unchecked: String(cString: raw))
        lastCharacters = Array(UnsafeBufferPointer(start: raw, count: strlen(raw) + 1))
        lastPath = path
        return path
    }

    /// The value made of `bytes`, in the array of the last value when it has that length: while the
    /// subscribers let each value go before the next arrives (the common case), a notification costs no
    /// allocation.
    private func value(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        if spare.count == bytes.count {
            spare.withUnsafeMutableBufferPointer { buffer in _ = buffer.update(fromContentsOf: bytes) }
        } else {
            spare = Array(bytes)
        }
        return spare
    }

    /// The ordinary route beside a tap: it holds the rule and the sender's owner, and sees only what the
    /// fast path leaves (changes of several properties at once), which it decodes the ordinary way and
    /// hands to `deliver` when they change `property`.
    static func route(
        id: ObjectIdentifier, rule: DBusMatchRule, property: String,
        deliver: @escaping (DBusObjectPath, [UInt8]) -> Void, close: @escaping (DBusError) -> Void
    ) -> SignalRouter.Route {
        SignalRouter.Route(
            id: id, rule: rule,
            receive: { message in
                guard let path = message.path, let change = try? DBusPropertiesChange(decoding: message),
                    let bytes = change.changed[property]?.bytes
                else { return }
                deliver(path, bytes)
            },
            close: close)
    }

    /// Hands `raw` to the first of `taps` it is for, if any: a `PropertiesChanged` of that tap's
    /// interface, sent by its sender's current owner, changing its property alone. Returns whether a tap
    /// took it (then no other route sees it). Loop thread.
    static func deliver(_ raw: OpaquePointer, to taps: [DBusByteArrayPropertyTap]) -> Bool {
        // Literals (a `String` that is not one, passed where C takes a `const char *`, is copied to a new
        // array on each call; a static C string would cost a `swift_once` check per message).
        guard dbus_message_is_signal(raw, "org.freedesktop.DBus.Properties", "PropertiesChanged") != 0,
            let sender = dbus_message_get_sender(raw), let path = dbus_message_get_path(raw)
        else { return false }
        for tap in taps {
            guard let expected = tap.ownerCString, strcmp(expected, sender) == 0,
                let bytes = bytes(
                    in: raw, interface: tap.interfaceCString, interfaceLength: tap.interfaceLength,
                    property: tap.propertyCString, propertyLength: tap.propertyLength)
            else { continue }
            tap.deliver(tap.path(path), tap.value(bytes))
            return true
        }
        return false
    }

    /// Where the bytes `raw` sets `property` of `interface` to are (both NUL-terminated C strings, of
    /// `interfaceLength` and `propertyLength` bytes), in the message, when that is all it changes (and it
    /// invalidates nothing); nil for any other message, which then takes the ordinary route. The bytes live
    /// as long as the message.
    ///
    /// The body is read as marshalled, not through libdbus's iterators (which step through the type
    /// signature for every value: most of the fast path's cost). libdbus validated the whole body against
    /// its signature when it read the message, and the signature is checked to be `sa{sv}as` first, so
    /// every length read below is one libdbus has checked to fit, and every read stays inside the body:
    /// - the first argument's string, as libdbus hands it, sits 4 bytes after the body's start (its length
    ///   comes first): that is where the body starts, and offsets count from there (marshalled alignment is
    ///   relative to it);
    /// - the byte order must be this machine's: the string's length field must read as its length (a
    ///   message from a machine of the other order takes the ordinary route);
    /// - the dictionary's length field, then its first entry: the key, the variant's signature (`ay`),
    ///   the bytes' length and the bytes; the dictionary must end where that entry does (no other entry);
    /// - the invalidated list's length field must be 0.
    static func bytes(
        in raw: OpaquePointer, interface: UnsafePointer<CChar>, interfaceLength: Int,
        property: UnsafePointer<CChar>, propertyLength: Int
    ) -> UnsafeBufferPointer<UInt8>? {
        // The signature fixes every type but the variant's (checked below).
        guard dbus_message_has_signature(raw, "sa{sv}as") != 0 else { return nil }
        var arguments = DBusMessageIter()
        guard dbus_message_iter_init(raw, &arguments) != 0 else { return nil }
        var first = DBusBasicValue()
        dbus_message_iter_get_basic(&arguments, &first)
        guard let characters = first.str else { return nil }
        let body = UnsafeRawPointer(characters) - 4
        func word(at offset: Int) -> Int { Int(body.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        guard word(at: 0) == interfaceLength, memcmp(characters, interface, interfaceLength) == 0 else { return nil }
        // The dictionary: its length field (4-aligned), its entries from the next 8-aligned offset.
        let lengthField = (4 + interfaceLength + 1 + 3) & ~3
        let dictionaryLength = word(at: lengthField)
        let entry = (lengthField + 4 + 7) & ~7
        // Empty: nothing to read (and the property did not change).
        guard dictionaryLength > 0, word(at: entry) == propertyLength,
            memcmp(body + entry + 4, property, propertyLength) == 0
        else { return nil }
        // The variant's signature: its length byte, `ay`, a NUL; then the bytes' length field, 4-aligned.
        let signature = entry + 4 + propertyLength + 1
        let bytes = body.assumingMemoryBound(to: UInt8.self)
        guard bytes[signature] == 2, bytes[signature + 1] == UInt8(ascii: "a"),
            bytes[signature + 2] == UInt8(ascii: "y")
        else { return nil }
        let countField = (signature + 4 + 3) & ~3
        let count = word(at: countField)
        // One change only: the dictionary ends where this entry does.
        guard dictionaryLength == Self.lengthOfOneEntry(keyLength: propertyLength, valueCount: count) else {
            return nil
        }
        // Nothing invalidated: the list's length field (4-aligned after the dictionary) is 0.
        guard word(at: (entry + dictionaryLength + 3) & ~3) == 0 else { return nil }
        return UnsafeBufferPointer(start: count > 0 ? bytes + countField + 4 : nil, count: count)
    }

    /// The length in bytes, as marshalled, of an `a{sv}` dictionary whose one entry maps a key of
    /// `keyLength` bytes to a variant holding `valueCount` bytes (`ay`): the key (its 4-byte length, its
    /// bytes, a NUL), the variant's signature (a length byte, `ay`, a NUL), padding to 4 for the bytes' 4-byte
    /// length, then the bytes. An entry starts 8-aligned, so that padding is the same wherever the entry is.
    /// A dictionary with any other entry after it is longer.
    static func lengthOfOneEntry(keyLength: Int, valueCount: Int) -> Int {
        let signatureEnd = 4 + keyLength + 1 + 4
        return ((signatureEnd + 3) & ~3) + 4 + valueCount
    }
}
