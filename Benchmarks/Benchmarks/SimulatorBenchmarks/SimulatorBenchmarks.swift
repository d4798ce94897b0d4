// The simulator's own cost, so that benchmarks of a BLE client on top of it measure the client.
//
// A simulated peripheral with an endless stream of numbered 20-byte notifications runs in this process on
// its private bus. A reader connects through bluetoothd's D-Bus API (Device1.Connect, then
// GattCharacteristic1.AcquireNotify) and drains the SOCK_SEQPACKET socket it gets, checking every
// sequence number. Each iteration receives `notificationCount` notifications; the figures are
// notifications per second (throughput) and the emitter thread's CPU time per notification, which the
// simulator measures itself (`SimulatorStatistics`).
import Benchmark
import Dispatch
import Ripple
import RippleBlueZSimulator
import RippleDBus
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

let notificationCount = 100_000
let peripheralAddress: BluetoothAddress = "C0:FF:EE:00:00:10"
let streamUUID = BluetoothUUID("52495054-0000-4000-8000-0000000000b1")
let devicePath = "/org/bluez/hci0/dev_C0_FF_EE_00_00_10"

/// Stops the run with a message.
func fail(_ message: String) -> Never {
    let text = "SimulatorBenchmarks: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

/// Runs `body` until it has a result, blocking this thread (the benchmark's) meanwhile.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(String(describing: error)) }
        done.signal()
    }
    done.wait()
    switch box.result {
    case .success(let value): return value
    case .failure(let message): fail(message)
    case nil: fail("no result")
    }
}

final class ResultBox<T: Sendable>: Sendable {
    enum Outcome: Sendable {
        case success(T)
        case failure(String)
    }
    nonisolated(unsafe) var result: Outcome?
}

/// Waits for the reply to a method call of bluetoothd's API.
func call(_ connection: DBusConnection, path: String, interface: String, member: String, arguments: [DBusValue] = [])
    -> DBusMessage
{
    blocking {
        let objectPath = try DBusObjectPath(path)
        for try await reply in connection.call(
            destination: "org.bluez", path: objectPath, interface: interface, member: member, arguments: arguments
        ).values {
            return reply
        }
        throw DBusError.disconnected
    }
}

/// The simulator, its bus, and the reader's socket.
final class Rig: Sendable {
    let bus: SimulatedBus
    let simulator: BlueZSimulator
    let client: DBusConnection
    let loop: EventLoopThread
    let socket: Int32
    nonisolated(unsafe) var nextSequence: UInt32 = 0

    init() {
        do {
            bus = try SimulatedBus()
        } catch {
            fail("could not start the private bus: \(error)")
        }
        let stream = SimulatedCharacteristic(
            uuid: streamUUID, flags: [.notify], notificationSource: NotificationSource(payload: .numbered(size: 20)))
        let peripheral = SimulatedPeripheral(
            address: peripheralAddress, name: "Bench", isKnown: true,
            services: [SimulatedService(uuid: "52495054-0000-4000-8000-0000000000b0", characteristics: [stream])])
        simulator = BlueZSimulator(world: SimulatedWorld(peripherals: [.init(peripheral)]), bus: bus.bus)
        let simulator = simulator
        blocking { try await simulator.start() }
        do {
            loop = try EventLoopThread(name: "bench-client")
            client = try DBusConnection(bus: bus.bus, loop: loop.loop)
        } catch {
            fail("could not connect: \(error)")
        }
        _ = call(client, path: devicePath, interface: "org.bluez.Device1", member: "Connect")
        let characteristic = Self.characteristicPath(client)
        let reply = call(
            client, path: characteristic, interface: "org.bluez.GattCharacteristic1", member: "AcquireNotify",
            arguments: [.stringVariantDictionary([:])])
        guard case .unixFD(let descriptor)? = reply.body.first, let fd = descriptor.take() else {
            fail("AcquireNotify answered \(reply.body)")
        }
        socket = fd
    }

    /// The path of the stream characteristic, from bluetoothd's object tree.
    static func characteristicPath(_ client: DBusConnection) -> String {
        let reply = call(
            client, path: "/", interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects")
        guard case .dictionary(_, _, let entries)? = reply.body.first else { fail("GetManagedObjects: \(reply.body)") }
        for entry in entries {
            guard case .objectPath(let path) = entry.key, case .dictionary(_, _, let interfaces) = entry.value else {
                continue
            }
            for interface in interfaces where interface.key == .string("org.bluez.GattCharacteristic1") {
                if case .dictionary(_, _, let properties) = interface.value,
                    properties.contains(where: {
                        $0.key == .string("UUID") && $0.value == .variant(.string(streamUUID.uuidString))
                    })
                {
                    return path.description
                }
            }
        }
        fail("no stream characteristic in the tree")
    }

    /// Receives `count` notifications, checking that each carries the next sequence number.
    func receive(_ count: Int) {
        var buffer = [UInt8](repeating: 0, count: 512)
        for _ in 0..<count {
            let received = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard received >= 4 else { fail("the socket closed or failed (\(received))") }
            let sequence =
                UInt32(buffer[0]) | UInt32(buffer[1]) << 8 | UInt32(buffer[2]) << 16 | UInt32(buffer[3]) << 24
            guard sequence == nextSequence else { fail("notification \(sequence) where \(nextSequence) was due") }
            nextSequence &+= 1
        }
    }

    func stop() {
        close(socket)
        client.close()
        let simulator = simulator
        blocking { await simulator.stop() }
        loop.stop()
        bus.stop()
    }
}

nonisolated(unsafe) var rig: Rig?

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [
            .wallClock, .cpuTotal, .custom("notifications/s", polarity: .prefersLarger, useScalingFactor: false),
            .custom("emitter CPU ns/notification", useScalingFactor: false),
        ],
        scalingFactor: .one,
        maxDuration: .seconds(5),
        maxIterations: 20
    )

    Benchmark(
        "AcquireNotify emitter: \(notificationCount) notifications of 20 bytes",
        configuration: .init(
            setup: { rig = Rig() },
            teardown: {
                rig?.stop()
                rig = nil
            })
    ) { benchmark in
        guard let rig else { fail("no rig") }
        let before = rig.simulator.statistics.snapshot
        let clock = ContinuousClock()
        let start = clock.now
        benchmark.startMeasurement()
        rig.receive(notificationCount)
        benchmark.stopMeasurement()
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        benchmark.measurement(
            .custom("notifications/s", polarity: .prefersLarger, useScalingFactor: false),
            Int(Double(notificationCount) / nanoseconds * 1e9))
        let after = rig.simulator.statistics.snapshot
        let sent = after.socketNotifications - before.socketNotifications
        let cpu = after.emitterCPUNanoseconds - before.emitterCPUNanoseconds
        benchmark.measurement(
            .custom("emitter CPU ns/notification", useScalingFactor: false), sent == 0 ? 0 : cpu / sent)
    }
}
