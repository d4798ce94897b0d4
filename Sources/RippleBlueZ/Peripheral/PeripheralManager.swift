import Ripple
import RippleDBus
import RippleLoop

/// This machine as a BLE peripheral: GATT services served to centrals through bluetoothd's
/// `GattManager1`, and advertisements through its `LEAdvertisingManager1` — CoreBluetooth's
/// `CBPeripheralManager`, as streams.
///
/// ```swift
/// let peripheral = try PeripheralManager(adapter: "hci1") {
///     LocalService(.heartRate) {
///         LocalCharacteristic(.heartRateMeasurement, properties: [.notify])
///         LocalCharacteristic(.heartRateControlPoint, properties: [.write])
///     }
/// }
/// let registration = peripheral.register().sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
/// let advertising = peripheral.advertise(Advertisement(localName: "Pulse", serviceUUIDs: [.heartRate]))
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// let resets = peripheral.writes(to: .heartRateControlPoint).sink { request in request.respond() }
/// try peripheral.send([0x00, 72], on: .heartRateMeasurement)
/// ```
///
/// The services are fixed when the manager is made; they are served while ``register()`` has a
/// subscriber, and registered again when bluetoothd restarts. The objects the manager exports answer only
/// the current owner of `org.bluez`: any other caller gets `org.freedesktop.DBus.Error.AccessDenied` and
/// the manager never sees the call.
///
/// Every method is safe from any thread; handlers and streams deliver on the loop thread.
public final class PeripheralManager: Sendable {
    let core: PeripheralCore

    /// A manager serving `services` on `adapter`, on a connection of its own to `bus`.
    ///
    /// - Parameters:
    ///   - bus: the bus bluetoothd is on (the system bus by default).
    ///   - adapter: the adapter that serves (`hci0`).
    ///   - loop: the event loop the connection runs on.
    ///   - notificationTransport: how notifications travel to bluetoothd: ``NotificationTransport/automatic``
    ///     offers it a socket (`AcquireNotify`, for characteristics that notify), ``NotificationTransport/bus``
    ///     sends them as `Value` changes on the bus.
    ///   - busQueueLimit: the most bytes the connection's outgoing queue may hold for a notification sent
    ///     as a `Value` change to go out (see ``defaultBusQueueLimit``).
    ///   - services: the services.
    /// - Throws: ``BluetoothError`` when the bus cannot be reached or the services cannot be exported
    ///   (``BluetoothError/Kind/invalidArgument`` for no service, or a value longer than the 512 bytes an attribute
    ///   holds).
    public convenience init(
        bus: DBusBus = .system, adapter: String = "hci0", loop: EventLoop = .shared,
        notificationTransport: NotificationTransport = .automatic, busQueueLimit: Int = defaultBusQueueLimit,
        services: [LocalService]
    ) throws(BluetoothError) {
        let connection: DBusConnection
        do {
            connection = try DBusConnection(bus: bus, loop: loop)
        } catch {
            throw BluetoothError(error, during: "connecting to \(bus)")
        }
        do {
            try self.init(
                core: PeripheralCore(
                    connection: connection, adapter: adapter, services: services,
                    acquiresNotify: notificationTransport == .automatic, busQueueLimit: busQueueLimit,
                    ownsConnection: true))
        } catch {
            connection.close()
            throw error
        }
    }

    /// A manager serving the services a result builder lists.
    ///
    /// - Parameters:
    ///   - bus: the bus bluetoothd is on.
    ///   - adapter: the adapter that serves.
    ///   - loop: the event loop the connection runs on.
    ///   - notificationTransport: how notifications travel to bluetoothd: ``NotificationTransport/automatic``
    ///     offers it a socket, ``NotificationTransport/bus`` sends `Value` changes.
    ///   - busQueueLimit: the most bytes the connection's outgoing queue may hold for a `Value` change to go
    ///     out (see ``defaultBusQueueLimit``).
    ///   - services: the services, one per line.
    /// - Throws: ``BluetoothError`` when the bus cannot be reached or the services cannot be exported
    ///   (``BluetoothError/Kind/invalidArgument`` for no service, or a value longer than the 512 bytes an attribute
    ///   holds).
    public convenience init(
        bus: DBusBus = .system, adapter: String = "hci0", loop: EventLoop = .shared,
        notificationTransport: NotificationTransport = .automatic, busQueueLimit: Int = defaultBusQueueLimit,
        @LocalAttributesBuilder<LocalService> services: () -> [LocalService]
    ) throws(BluetoothError) {
        try self.init(
            bus: bus, adapter: adapter, loop: loop, notificationTransport: notificationTransport,
            busQueueLimit: busQueueLimit, services: services())
    }

    /// A manager serving `services` on `adapter` through an existing connection (which it does not close).
    ///
    /// - Parameters:
    ///   - connection: the connection to bluetoothd's bus.
    ///   - adapter: the adapter that serves.
    ///   - notificationTransport: how notifications travel to bluetoothd.
    ///   - busQueueLimit: the most bytes the connection's outgoing queue may hold for a `Value` change to go
    ///     out (see ``defaultBusQueueLimit``).
    ///   - services: the services.
    /// - Throws: ``BluetoothError`` when the services cannot be exported
    ///   (``BluetoothError/Kind/invalidArgument`` for no service, or a value longer than the 512 bytes an attribute
    ///   holds).
    public convenience init(
        connection: DBusConnection, adapter: String = "hci0", notificationTransport: NotificationTransport = .automatic,
        busQueueLimit: Int = defaultBusQueueLimit, services: [LocalService]
    ) throws(BluetoothError) {
        try self.init(
            core: PeripheralCore(
                connection: connection, adapter: adapter, services: services,
                acquiresNotify: notificationTransport == .automatic, busQueueLimit: busQueueLimit,
                ownsConnection: false))
    }

    /// The most bytes the connection's outgoing queue may hold, by default, for a notification sent on the
    /// bus (a `Value` change) to go out: 256 KiB, about a thousand 20-byte notifications.
    ///
    /// libdbus keeps what the bus has not read yet in that queue, without limit. A ``send(_:on:)`` on the
    /// bus that finds it at the limit or beyond drops the notification (counted in
    /// ``notificationStatistics(of:)``, as on a full socket) and turns ``isReadyToSend(_:)`` false, until the
    /// queue has drained to half the limit. The queue is the connection's: every message on it counts,
    /// whichever characteristic (or anything else) sent it.
    public static let defaultBusQueueLimit = 256 * 1024

    private init(core: PeripheralCore) {
        self.core = core
    }

    deinit {
        core.close()
    }

    /// The connection the manager exports its objects on.
    public var connection: DBusConnection { core.connection }

    /// Stops serving: the application and every advertisement are unregistered, the objects unexported,
    /// every stream finishes and (when the manager made it) the connection closes. Idempotent.
    public func close() {
        core.close()
    }

    // MARK: Registration

    /// Serves the services while subscribed: a *state* stream of the registration with bluetoothd.
    ///
    /// The first subscriber registers the application (`GattManager1.RegisterApplication`); when
    /// bluetoothd restarts it is registered again and the stream goes through ``RegistrationState/waitingForBluetoothd``
    /// and ``RegistrationState/registering`` back to ``RegistrationState/registered``. Cancelling the last
    /// subscription unregisters it. Subscribers share one registration, and get the current state first.
    /// An operator that ends its subscription (`first(where:)`, `prefix`, a `for await` loop that breaks)
    /// therefore unregisters when it is the only subscriber: keep one subscription for as long as you
    /// serve, and wait for ``RegistrationState/registered`` with another.
    ///
    /// - Returns: the registration's states; fails with bluetoothd's refusal as a ``BluetoothError``
    ///   (after which the next subscriber starts again), finishes when the manager closes.
    public func register() -> AnyPublisher<RegistrationState, BluetoothError> {
        let core = core
        return Deferred {
            core.retainApplication().handleEvents(receiveCancel: { core.releaseApplication() })
        }.eraseToAnyPublisher()
    }

    /// Advertises `advertisement` while subscribed: a *state* stream of the advertisement.
    ///
    /// Each subscription registers an advertisement of its own (`LEAdvertisingManager1`), registered again
    /// when bluetoothd restarts; cancelling it stops advertising.
    ///
    /// - Parameter advertisement: what to advertise.
    /// - Returns: the advertisement's states; fails with a ``BluetoothError`` when bluetoothd refuses it
    ///   (``BluetoothError/Kind/notPermitted`` for too many advertisements, ``BluetoothError/Kind/notSupported``
    ///   naming a field the running bluetoothd does not support) or releases it; finishes when the manager
    ///   closes.
    public func advertise(_ advertisement: Advertisement) -> AnyPublisher<AdvertisingState, BluetoothError> {
        let core = core
        return Deferred { core.startAdvertising(advertisement) }.eraseToAnyPublisher()
    }

    // MARK: Characteristics

    private func characteristic(_ reference: CharacteristicReference) throws(BluetoothError) -> ServedCharacteristic {
        guard
            let found = core.characteristics.first(where: {
                $0.reference.uuid == reference.uuid
                    && (reference.service == nil || $0.reference.service == reference.service)
            })
        else {
            throw BluetoothError(.attributeNotFound, "this peripheral serves no characteristic \(reference)")
        }
        return found
    }

    /// The current value of a served characteristic, or nil when it serves none such.
    ///
    /// - Parameter reference: the characteristic.
    /// - Returns: the value reads are answered with (when it has no read handler).
    public func value(of reference: CharacteristicReference) -> [UInt8]? {
        try? characteristic(reference).value
    }

    /// Sets the value reads are answered with, without notifying.
    ///
    /// - Parameters:
    ///   - value: the new value.
    ///   - reference: the characteristic.
    /// - Throws: ``BluetoothError`` of kind ``BluetoothError/Kind/attributeNotFound`` when it serves no such
    ///   characteristic, ``BluetoothError/Kind/invalidArgument`` when `value` is longer than the 512 bytes an
    ///   attribute holds.
    public func setValue(_ value: [UInt8], for reference: CharacteristicReference) throws(BluetoothError) {
        let characteristic = try characteristic(reference)
        guard value.count <= maximumAttributeValueLength else {
            throw .valueTooLong(value.count, during: "setting the value of \(reference)")
        }
        characteristic.state.withLock { $0.value = value }
    }

    /// Notifies (or indicates) `value` to every central listening to the characteristic, and makes it the
    /// current value.
    ///
    /// bluetoothd 5.66 sends it to each subscribed central; it tells the application only whether any
    /// listens (see ``isSubscribed(_:)``), not who. With a socket bluetoothd acquired, a notification that
    /// finds it full is dropped and counted in ``notificationStatistics(of:)``; on the bus, it goes out as a
    /// `Value` change, and is dropped and counted the same way when the connection's outgoing queue holds the
    /// manager's bus queue limit or more (``defaultBusQueueLimit``): the bus has not read that much yet.
    ///
    /// - Parameters:
    ///   - value: the bytes.
    ///   - reference: the characteristic.
    /// - Returns: whether it went out while a central listened (false: nobody listened, or it was dropped;
    ///   after a drop, wait for ``isReadyToSend(_:)``).
    /// - Throws: ``BluetoothError`` of kind ``BluetoothError/Kind/attributeNotFound`` when it serves no such
    ///   characteristic, ``BluetoothError/Kind/notSupported`` when it neither notifies nor indicates,
    ///   ``BluetoothError/Kind/invalidArgument`` when `value` is longer than the 512 bytes an attribute holds.
    @discardableResult
    public func send(_ value: [UInt8], on reference: CharacteristicReference) throws(BluetoothError) -> Bool {
        let characteristic = try characteristic(reference)
        guard characteristic.properties.canNotify else {
            throw BluetoothError(.notSupported, "the characteristic \(reference) neither notifies nor indicates")
        }
        guard value.count <= maximumAttributeValueLength else {
            throw .valueTooLong(value.count, during: "notifying \(reference)")
        }
        do {
            return try characteristic.notify(value)
        } catch {
            throw BluetoothError(error, during: "notifying \(reference)")
        }
    }

    /// The notifications sent on a characteristic: received (sent by the app), delivered (to bluetoothd)
    /// and dropped (a full socket, or on the bus a full outgoing queue), exactly.
    ///
    /// - Parameter reference: the characteristic.
    /// - Returns: its counters, or nil when it serves no such characteristic.
    public func notificationStatistics(of reference: CharacteristicReference) -> EventStatistics? {
        try? characteristic(reference).notifications
    }

    /// Notifies `value`'s Bluetooth bytes: see ``send(_:on:)``.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - reference: the characteristic.
    /// - Returns: whether a central listened when it was sent.
    /// - Throws: as ``send(_:on:)``.
    @discardableResult
    public func send<Value: Writable>(_ value: Value, on reference: CharacteristicReference) throws(BluetoothError)
        -> Bool
    {
        try send(value.bluetoothBytes, on: reference)
    }

    /// Whether any central listens to the characteristic: a *state* stream (false at first).
    ///
    /// - Parameter reference: the characteristic.
    /// - Returns: the stream; fails with ``BluetoothError/Kind/attributeNotFound`` when it serves no such
    ///   characteristic, finishes when the manager closes.
    public func isSubscribed(_ reference: CharacteristicReference) -> AnyPublisher<Bool, BluetoothError> {
        state(\.subscribed, of: reference)
    }

    /// Whether a notification sent on the characteristic now goes out: a *state* stream (false at first),
    /// delivered on the loop thread.
    ///
    /// It is true while a central listens and, when bluetoothd acquired a socket for the notifications,
    /// the socket has room. A ``send(_:on:)`` that finds the socket full returns false and turns it false
    /// until bluetoothd has read enough to take notifications again — CoreBluetooth's
    /// `peripheralManagerIsReady(toUpdateSubscribers:)`. Sending only while it is true sends as fast as the
    /// link takes notifications, without dropping any and without polling. On the bus path the same holds
    /// of the connection's outgoing queue: a send that finds it at the bus queue limit
    /// (``defaultBusQueueLimit``) turns it false until the queue has drained to half the limit.
    ///
    /// - Parameter reference: the characteristic.
    /// - Returns: the stream; fails with ``BluetoothError/Kind/attributeNotFound`` when it serves no such
    ///   characteristic, finishes when the manager closes.
    public func isReadyToSend(_ reference: CharacteristicReference) -> AnyPublisher<Bool, BluetoothError> {
        state(\.readyToSend, of: reference)
    }

    /// One of a served characteristic's state streams, or the failure to find it.
    private func state(
        _ subject: KeyPath<ServedCharacteristic, StateSubject<Bool, Never>>, of reference: CharacteristicReference
    ) -> AnyPublisher<Bool, BluetoothError> {
        do {
            return try characteristic(reference)[keyPath: subject].setFailureType(to: BluetoothError.self)
                .eraseToAnyPublisher()
        } catch {
            return Fail(error: error).eraseToAnyPublisher()
        }
    }

    /// The centrals' writes of the characteristic: an *event* stream, each subscriber with a buffer of
    /// `capacity` requests.
    ///
    /// While the stream has a subscriber, every write goes to it (to each, when there are several: the
    /// first answer counts) and the app answers it (``WriteRequest/respond(_:)``); without one, writes
    /// are stored as the current value and accepted. When no subscriber's buffer has room, a write that
    /// wants a response is answered ``ATTError/unlikely`` and one that does not is dropped; both are
    /// counted as dropped in `statistics`. The stream finishes when the manager closes (at once for a
    /// subscriber that comes after).
    ///
    /// - Parameters:
    ///   - reference: the characteristic.
    ///   - capacity: the most requests kept waiting for demand, per subscriber.
    ///   - statistics: where the requests received, delivered and dropped are counted.
    /// - Returns: the requests; fails with ``BluetoothError/Kind/attributeNotFound`` when it serves no such
    ///   characteristic.
    public func writes(
        to reference: CharacteristicReference, capacity: Int = 64, statistics: EventStatistics? = nil
    ) -> AnyPublisher<WriteRequest, BluetoothError> {
        do {
            return WriteRequestPublisher(
                characteristic: try characteristic(reference), capacity: capacity, statistics: statistics,
                loop: core.loop
            ).setFailureType(to: BluetoothError.self).eraseToAnyPublisher()
        } catch {
            return Fail(error: error).eraseToAnyPublisher()
        }
    }
}
