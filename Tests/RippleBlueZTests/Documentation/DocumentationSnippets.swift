// The code samples of the README and the DocC catalogs, compiled with the tests and never run (they need
// bluetoothd): an API change that breaks a sample breaks the build.
import Dispatch
import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleDBus
import RippleLoop

/// Never called: compiled so that the documentation's samples keep compiling.
func documentationSnippets() async throws {
    var cancellables = Set<AnyCancellable>()
    let central = try Central(adapter: "hci0")
    try await central.waitUntilReady()
    central.startDiscovery(filter: .services([.heartRate]))
        .first()
        .connect(on: central)
        .flatMap { peripheral in
            peripheral.listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
        }
        .sink(receiveCompletion: { print("ended: \($0)") }, receiveValue: { print($0.beatsPerMinute) })
        .store(in: &cancellables)
    central.startDiscovery(filter: .services([.heartRate]))
        .first()
        .connect(on: central)
        .read(.bodySensorLocation)
        .sink(receiveCompletion: { _ in }, receiveValue: { bytes in print(bytes) })
        .store(in: &cancellables)
    let peripheral = try await central.connectPeripheral(to: "C0:FF:EE:00:00:01")
    let level = try await peripheral.readValue(.batteryLevel, as: BatteryLevel.self)
    try await peripheral.writeValue([0x01], to: .heartRateControlPoint)
    for try await beat in peripheral.notifications(of: .heartRateMeasurement, as: HeartRateMeasurement.self) {
        print(beat.beatsPerMinute, level)
    }
    try await peripheral.disconnectPeripheral()
    let savedText = "C0:FF:EE:00:00:01"
    let stored = try BluetoothAddress(savedText)  // throws BluetoothAddress.ParseError for "C0:FF:EE"
    let again = try await central.connectPeripheral(to: stored)
    let text = again.address.description  // "C0:FF:EE:00:00:01", to store
    print(text)
    peripheral.listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
        .receive(on: DispatchQueue.global())
        .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
        .store(in: &cancellables)
    let statistics = NotificationStatistics()
    _ = peripheral.listen(
        to: .heartRateMeasurement, buffering: NotificationBuffering(capacity: 256, policy: .dropOldest),
        transport: .automatic, statistics: statistics)
    // StateAndEventStreams.md
    for try await discovery in central.startDiscovery().values { print(discovery) }
    let eventStatistics = EventStatistics()
    let display = peripheral.listen(
        to: .heartRateMeasurement, buffering: EventBuffering(capacity: 16, policy: .dropOldest),
        statistics: eventStatistics)
    let alarm = eventStatistics.drops.sink { total in print("dropped so far: \(total)") }
    _ = (display, alarm)
    central.startDiscovery(filter: .services([.heartRate]))
        .first()
        .connect(on: central)
        .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
        .receive(on: DispatchQueue.main)
        .sink(receiveCompletion: { _ in }, receiveValue: { print($0.beatsPerMinute) })
        .store(in: &cancellables)
    let beats = central.startDiscovery(filter: .services([.heartRate]))
        .first()
        .connect(on: central)
        .listen(to: .heartRateMeasurement, as: HeartRateMeasurement.self)
    for try await beat in beats.values { print("\(beat.beatsPerMinute) bpm") }

    let bus = try SimulatedBus()
    let simulator = BlueZSimulator(
        world: SimulatedWorld(peripherals: [.init(.heartRateMonitor()), .init(.ledButton())]), bus: bus.bus)
    try await simulator.start()
    await simulator.stop()
    bus.stop()

    let loopThread = try EventLoopThread(name: "sensors")
    let loop = loopThread.loop
    let ticks = Publishers.every(.milliseconds(100), on: loop)
        .prefix(3)
        .sink { print("tick at \($0)") }
    _ = ticks
    loop.schedule { print("on the loop thread") }
    loop.schedule(after: loop.now.advanced(by: .milliseconds(250))) { print("a quarter second later") }
    PassthroughSubject<Int, Never>()
        .debounce(for: .milliseconds(50), scheduler: loop)
        .receive(on: loop)
        .sink { print($0) }
        .store(in: &cancellables)

    let dbus = try DBusConnection(bus: .system)
    dbus.call(
        destination: "org.bluez", path: .root, interface: "org.freedesktop.DBus.ObjectManager",
        member: "GetManagedObjects"
    )
    .sink(receiveCompletion: { print($0) }, receiveValue: { reply in print(reply.body) })
    .store(in: &cancellables)
    dbus.signals(from: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        .sink(
            receiveCompletion: { print($0) },
            receiveValue: { signal in print(signal.path?.description ?? "", signal.body) }
        )
        .store(in: &cancellables)
    for await value in [1, 2, 3].publisher.values { print(value) }
}

/// Never called: the three samples of "Being a peripheral" (BeingAPeripheral.md), in the article's order,
/// with what the article leaves to the reader declared first.
func beingAPeripheralSnippets() throws {
    let logUUID: BluetoothUUID = "5249504C-1060-4000-8000-000000000001"
    let recording: [[UInt8]] = [[0x00, 0x48], [0x00, 0x49]]

    // Serving a heart-rate sensor.
    let peripheral = try PeripheralManager(adapter: "hci0") {
        LocalService(.heartRate) {
            LocalCharacteristic(.heartRateMeasurement, properties: [.notify])
            LocalCharacteristic(.bodySensorLocation, properties: [.read], value: [0x01])
            LocalCharacteristic(.heartRateControlPoint, properties: [.write])
        }
    }
    var subscriptions: [AnyCancellable] = []
    peripheral.register().sink(receiveCompletion: { print("registration: \($0)") }, receiveValue: { print($0) })
        .store(in: &subscriptions)
    peripheral.advertise(Advertisement(localName: "Pulse", serviceUUIDs: [.heartRate]))
        .sink(receiveCompletion: { print("advertising: \($0)") }, receiveValue: { print($0) })
        .store(in: &subscriptions)

    // A read handler that refuses with an ATT error.
    let log: [UInt8] = Array(repeating: 0x2A, count: 200)
    let history = LocalCharacteristic(logUUID, properties: [.read]) {
        (request: ReadRequest) throws(ATTError) -> [UInt8] in
        guard request.offset <= log.count else { throw .invalidOffset }
        return Array(log[request.offset...])
    }
    _ = history

    // Sending as fast as the socket takes the notifications.
    let stream = CharacteristicReference(.heartRateMeasurement)
    var pending: [[UInt8]] = recording  // the notifications still to send
    let sending = peripheral.isReadyToSend(stream)
        .sink(
            receiveCompletion: { _ in },
            receiveValue: { ready in
                // On the loop thread; stops at the first notification the socket cannot take.
                while ready, let next = pending.first, (try? peripheral.send(next, on: stream)) == true {
                    pending.removeFirst()
                }
            })
    _ = sending
}
