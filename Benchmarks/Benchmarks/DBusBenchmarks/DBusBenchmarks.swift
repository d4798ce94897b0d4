// RippleDBus against a minimal libdbus client in C (LibDBusPeer), in the same run, on the same private
// dbus-daemon: signals received per second, and method-call round trips per second.
//
// Signals: what is measured is the receiver. Before each iteration the C emitter sends the signals and
// waits until the bus has routed them all (a round trip to the bus after them), while the receiver does not
// read (RippleDBus: its loop thread is held by a closure waiting on a semaphore). The measurement is then
// from releasing the receiver until its subscriber has the last signal: reading, dispatching, decoding and
// delivering every one, each checked for order by its uint32 counter.
//
// Round trips: a C responder thread with its own connection answers Echo(u) -> u; the client calls it
// `roundTrips` times in sequence. RippleDBus chains the calls on its loop thread (each reply's completion
// subscribes to the next call), and also calls from another thread waiting on a semaphore per call (what a
// blocking caller pays for the hop to the loop); libdbus uses `dbus_connection_send_with_reply_and_block`.
import Benchmark
import Dispatch
import LibDBusPeer
import Ripple
import RippleDBus
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

let signalCount = 100_000
let roundTrips = 5_000

/// Stops the run with a message (the benchmark cannot go on), stopping the bus's daemon first.
func fail(_ message: String) -> Never {
    let text = "DBusBenchmarks: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    currentBus?.daemon.stop()
    exit(1)
}

/// The bus of the running benchmark: each benchmark starts its own in its setup and stops it in its
/// teardown (benchmarks run one after another, on one thread).
nonisolated(unsafe) var currentBus: Bus?

/// The bus of the running benchmark.
func runningBus() -> Bus {
    guard let currentBus else { fail("no bus: the benchmark's setup did not run") }
    return currentBus
}

/// A private dbus-daemon with the C emitter and the C responder on it.
final class Bus: Sendable {
    let daemon: PrivateDBusDaemon
    nonisolated(unsafe) let emitter: OpaquePointer
    nonisolated(unsafe) let responder: OpaquePointer
    /// The counter of the next signal emitted (only the benchmark thread touches it).
    nonisolated(unsafe) var nextTick: UInt32 = 0

    init() {
        do {
            daemon = try PrivateDBusDaemon()
        } catch {
            fail("could not start dbus-daemon: \(error)")
        }
        guard let emitter = ldb_connect(daemon.address) else { fail("the emitter could not connect") }
        guard let responder = ldb_responder_start(daemon.address) else { fail("the responder could not start") }
        self.emitter = emitter
        self.responder = responder
    }

    /// Emits `count` Tick signals and returns once the bus has routed them; returns the first counter.
    func emitTicks(_ count: Int) -> UInt32 {
        let first = nextTick
        guard ldb_emit_ticks(emitter, first, UInt32(count)) == 0 else { fail("emitting failed") }
        nextTick &+= UInt32(count)
        return first
    }

    func stop() {
        ldb_responder_stop(responder)
        ldb_disconnect(emitter)
        daemon.stop()
    }
}

// MARK: RippleDBus

/// Counts the Tick signals a RippleDBus subscriber receives (touched on the loop thread while it runs, by
/// the benchmark thread only while the loop is held or idle).
final class TickCounter: Sendable {
    nonisolated(unsafe) var expected: UInt32 = 0
    nonisolated(unsafe) var remaining = 0
    nonisolated(unsafe) var outOfOrder = 0
    let done = DispatchSemaphore(value: 0)

    func receive(_ signal: DBusMessage) {
        if case .uint32(let counter)? = signal.body.first, counter == expected {
            expected = counter &+ 1
        } else {
            outOfOrder += 1
        }
        remaining -= 1
        if remaining == 0 { done.signal() }
    }
}

/// A RippleDBus connection on its own loop thread.
final class RippleClient: Sendable {
    let thread: EventLoopThread
    let connection: DBusConnection

    init() {
        do {
            thread = try EventLoopThread(name: "dbus-bench-loop")
            connection = try DBusConnection(bus: runningBus().daemon.bus, loop: thread.loop)
        } catch {
            fail("RippleDBus could not connect: \(error)")
        }
    }

    /// Waits (blocking) until the bus has taken in everything asked so far (match rules included).
    func synchronize() {
        let settled = DispatchSemaphore(value: 0)
        let cancellable = connection.synchronize().sink(
            receiveCompletion: { _ in settled.signal() }, receiveValue: { _ in })
        settled.wait()
        cancellable.cancel()
    }

    func close() {
        connection.close()
        thread.stop()
    }
}

/// The RippleDBus signal receiver: a connection subscribed to the Tick signals.
final class RippleSignalReceiver: Sendable {
    let client = RippleClient()
    let counter = TickCounter()
    nonisolated(unsafe) var subscription: AnyCancellable?

    init() {
        let counter = counter
        subscription = client.connection.signals(interface: LDB_INTERFACE, member: LDB_SIGNAL).sink(
            receiveCompletion: { completion in fail("the signal stream ended: \(completion)") },
            receiveValue: { signal in counter.receive(signal) })
        client.synchronize()
    }

    /// One measured batch: the signals are queued at the bus while the loop is held, then received.
    func run(_ benchmark: Benchmark) {
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        client.thread.loop.schedule {
            held.signal()
            gate.wait()
        }
        held.wait()
        let first = runningBus().emitTicks(signalCount)
        counter.expected = first
        counter.remaining = signalCount
        counter.outOfOrder = 0
        benchmark.startMeasurement()
        gate.signal()
        counter.done.wait()
        benchmark.stopMeasurement()
        if counter.outOfOrder != 0 { fail("RippleDBus: \(counter.outOfOrder) signals out of order") }
    }

    func close() {
        subscription?.cancel()
        client.close()
    }
}

/// Calls Echo `count` times in sequence on the loop thread: each reply's handler makes the next call.
final class ChainedCalls: Sendable {
    let connection: DBusConnection
    let count: Int
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var index = 0
    nonisolated(unsafe) var wrong = 0
    nonisolated(unsafe) var current: AnyCancellable?

    init(connection: DBusConnection, count: Int) {
        self.connection = connection
        self.count = count
    }

    func run() {
        connection.loop.schedule { self.next() }
        done.wait()
        current = nil
    }

    private func next() {
        guard index < count else {
            done.signal()
            return
        }
        let argument = UInt32(truncatingIfNeeded: index)
        index += 1
        current = echo(connection, argument).sink(
            receiveCompletion: { [self] completion in
                if case .failure(let error) = completion { fail("Echo failed: \(error)") }
                next()
            },
            receiveValue: { [self] reply in
                if reply.body != [.uint32(argument)] { wrong += 1 }
            })
    }
}

func echo(_ connection: DBusConnection, _ argument: UInt32) -> DBusCallPublisher {
    connection.call(
        destination: LDB_RESPONDER_NAME, path: benchPath, interface: LDB_INTERFACE, member: LDB_METHOD,
        arguments: [.uint32(argument)])
}

let benchPath: DBusObjectPath = {
    do { return try DBusObjectPath(LDB_PATH) } catch { fail("invalid path") }
}()

/// Calls Echo `count` times from the calling thread, waiting for each reply on a semaphore.
func blockingCalls(_ connection: DBusConnection, count: Int) -> Int {
    var wrong = 0
    let replied = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let argument = UInt32(truncatingIfNeeded: index)
        nonisolated(unsafe) var answer: [DBusValue] = []
        let cancellable = echo(connection, argument).sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { fail("Echo failed: \(error)") }
                replied.signal()
            },
            receiveValue: { reply in answer = reply.body })
        replied.wait()
        cancellable.cancel()
        if answer != [.uint32(argument)] { wrong += 1 }
    }
    return wrong
}

// MARK: libdbus C

/// The C signal receiver: a libdbus connection with the Tick match rule.
final class CSignalReceiver: Sendable {
    nonisolated(unsafe) let connection: OpaquePointer

    init() {
        guard let connection = ldb_connect(runningBus().daemon.address) else { fail("C receiver could not connect") }
        guard ldb_add_tick_match(connection) == 0 else { fail("C receiver could not add its match rule") }
        self.connection = connection
    }

    func run(_ benchmark: Benchmark) {
        let first = runningBus().emitTicks(signalCount)
        benchmark.startMeasurement()
        let outOfOrder = ldb_receive_ticks(connection, first, UInt32(signalCount))
        benchmark.stopMeasurement()
        if outOfOrder != 0 { fail("libdbus C: receiving failed (\(outOfOrder))") }
    }

    func close() {
        ldb_disconnect(connection)
    }
}

// MARK: Registration

/// What the running benchmark set up (benchmarks run one after another on one thread).
nonisolated(unsafe) var rippleReceiver: RippleSignalReceiver?
nonisolated(unsafe) var cReceiver: CSignalReceiver?
nonisolated(unsafe) var rippleClient: RippleClient?
nonisolated(unsafe) var cClient: OpaquePointer?

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        maxDuration: .seconds(5),
        maxIterations: 10
    )

    Benchmark(
        "RippleDBus | dbus-signals | \(signalCount)",
        configuration: .init(
            setup: {
                currentBus = Bus()
                rippleReceiver = RippleSignalReceiver()
            },
            teardown: {
                rippleReceiver?.close()
                rippleReceiver = nil
                stopBus()
            })
    ) { benchmark in
        rippleReceiver?.run(benchmark)
    }
    Benchmark(
        "libdbus C | dbus-signals | \(signalCount)",
        configuration: .init(
            setup: {
                currentBus = Bus()
                cReceiver = CSignalReceiver()
            },
            teardown: {
                cReceiver?.close()
                cReceiver = nil
                stopBus()
            })
    ) { benchmark in
        cReceiver?.run(benchmark)
    }

    let clientSetup = {
        currentBus = Bus()
        rippleClient = RippleClient()
    }
    let clientTeardown = {
        rippleClient?.close()
        rippleClient = nil
        stopBus()
    }
    Benchmark(
        "RippleDBus | dbus-roundtrip | \(roundTrips)",
        configuration: .init(setup: clientSetup, teardown: clientTeardown)
    ) { benchmark in
        guard let rippleClient else { return }
        let calls = ChainedCalls(connection: rippleClient.connection, count: roundTrips)
        benchmark.startMeasurement()
        calls.run()
        benchmark.stopMeasurement()
        if calls.wrong != 0 { fail("RippleDBus: \(calls.wrong) wrong replies") }
    }
    Benchmark(
        "RippleDBus | dbus-roundtrip-blocking | \(roundTrips)",
        configuration: .init(setup: clientSetup, teardown: clientTeardown)
    ) { benchmark in
        guard let rippleClient else { return }
        benchmark.startMeasurement()
        let wrong = blockingCalls(rippleClient.connection, count: roundTrips)
        benchmark.stopMeasurement()
        if wrong != 0 { fail("RippleDBus: \(wrong) wrong replies") }
    }
    let cClientSetup = {
        currentBus = Bus()
        guard let connection = ldb_connect(runningBus().daemon.address) else { fail("C client could not connect") }
        cClient = connection
    }
    let cClientTeardown = {
        if let cClient { ldb_disconnect(cClient) }
        cClient = nil
        stopBus()
    }
    // The C client has one way to make round trips: the table compares both RippleDBus rows with it.
    Benchmark(
        "libdbus C | dbus-roundtrip | \(roundTrips)",
        configuration: .init(setup: cClientSetup, teardown: cClientTeardown)
    ) { benchmark in
        guard let cClient else { return }
        benchmark.startMeasurement()
        let wrong = ldb_echo_round_trips(cClient, UInt32(roundTrips))
        benchmark.stopMeasurement()
        if wrong != 0 { fail("libdbus C: round trips failed (\(wrong))") }
    }
}

/// Stops the running benchmark's bus (its teardown).
func stopBus() {
    currentBus?.stop()
    currentBus = nil
}
