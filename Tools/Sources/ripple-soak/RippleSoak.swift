import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleLoop

#if canImport(Glibc)
import Glibc
#endif

/// `ripple-soak`: runs the central against the simulated bluetoothd for a number of minutes under
/// notification floods on both paths, link drops under an auto-reconnect policy, bluetoothd restarts,
/// scans and reads. Once a minute it prints RSS, open descriptors and threads (at a quiet moment: the
/// disturbances paused and both floods streaming), and the values sent, received and counted as dropped.
///
/// It fails (exit 1) when, between minute 2 and the end, RSS grows by more than 5 MB or the descriptors
/// grow at all, or when a listener's sequence numbers skip values its streams did not count as dropped.
/// `RIPPLE_SOAK_INJECT=leak,descriptors,uncounted-drop` injects those faults on purpose.
@main
struct RippleSoak {
    static func main() async {
        let options: SoakOptions
        switch SoakOptions.parse(Array(CommandLine.arguments.dropFirst())) {
        case .success(let parsed): options = parsed
        case .failure(let error):
            print(
                "ripple-soak: \(error)\nusage: ripple-soak [--minutes N (≥ 3, default 10)] [--socket-rate R] [--bus-rate R]"
            )
            exit(2)
        }
        do {
            exit(try await run(options) ? 0 : 1)
        } catch {
            print("ripple-soak: could not start: \(error)")
            exit(2)
        }
    }

    /// Runs the soak; returns whether it passed.
    private static func run(_ options: SoakOptions) async throws -> Bool {
        let bus = try SimulatedBus()
        let simulator = BlueZSimulator(
            world: SoakWorld.world(socketRate: options.socketRate, busRate: options.busRate), bus: bus.bus)
        try await simulator.start()
        let thread = try EventLoopThread(name: "soak-central")
        let central = try Central(bus: bus.bus, loop: thread.loop)
        try await central.waitUntilReady()

        let exact = SoakListener(
            name: "socket, async loop, default buffer", style: .asyncLoop(awaitEvery: 50), buffering: .default,
            skipEvery: options.injectsUncountedDrop ? 10_000 : nil)
        let lossy = SoakListener(
            name: "socket, slow async loop, 32 drop-oldest", style: .asyncLoop(awaitEvery: 1),
            buffering: EventBuffering(capacity: 32, policy: .dropOldest))
        let sink = SoakListener(name: "bus, sink", style: .sink, buffering: .default)
        let lanes = [
            SoakLane(
                name: "socket", address: SoakWorld.socketAddress, transport: .automatic,
                listeners: [exact, lossy]),
            SoakLane(name: "bus", address: SoakWorld.busAddress, transport: .bus, listeners: [sink]),
        ]
        let listeners = lanes.flatMap(\.listeners)
        let chaos = SoakChaos()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for lane in lanes {
                    group.addTask { await lane.run(on: central, characteristic: SoakWorld.floodReference) }
                }
                group.addTask { await chaos.run(simulator: simulator, central: central, lanes: lanes) }
            }
        }
        let faults = Task { await injectFaults(options) }

        print(
            "ripple-soak: \(options.minutes) minutes; floods of \(Int(options.socketRate))/s (socket) and "
                + "\(Int(options.busRate))/s (bus)")
        var baseline: ProcessSample?
        var last = ProcessSample.now()
        for minute in 1...options.minutes {
            try? await Task.sleep(for: .seconds(60))
            last = await quietSample(chaos: chaos, listeners: listeners)
            if minute == 2 { baseline = last }
            report(minute: minute, last, simulator: simulator, listeners: listeners, chaos: chaos)
        }
        load.cancel()
        faults.cancel()
        await load.value
        await faults.value
        // The sessions have ended: the emitters' final counts are in.
        try? await Task.sleep(for: .milliseconds(500))
        report(minute: nil, last, simulator: simulator, listeners: listeners, chaos: chaos)
        for lane in lanes where !lane.connectionFailures.isEmpty {
            print("  \(lane.name) lane, connection failures: \(lane.connectionFailures.sorted { $0.key < $1.key })")
        }
        central.close()
        await simulator.stop()
        thread.stop()
        bus.stop()
        return verdict(baseline: baseline, end: last, listeners: listeners)
    }

    /// Pauses the disturbances, waits for both floods to stream (at most 30 s), samples, and resumes.
    private static func quietSample(chaos: SoakChaos, listeners: [SoakListener]) async -> ProcessSample {
        chaos.pause()
        for listener in listeners { listener.expectStreaming() }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, !(chaos.isIdle && listeners.allSatisfy(\.isStreaming)) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        // Every listener streams again: reconnections and their sockets are settled.
        try? await Task.sleep(for: .milliseconds(500))
        let sample = ProcessSample.now()
        chaos.resume()
        return sample
    }

    private static func report(
        minute: Int?, _ sample: ProcessSample, simulator: BlueZSimulator, listeners: [SoakListener], chaos: SoakChaos
    ) {
        let sent = simulator.statistics.snapshot
        let counts = listeners.map(\.counts)
        let received = counts.map { "\($0.received)" }.joined(separator: "/")
        let dropped = counts.map { "\($0.dropped)" }.joined(separator: "/")
        let uncounted = listeners.map(\.uncounted).reduce(0, +)
        let label = minute.map { "minute \($0):" } ?? "end:"
        print(
            "\(label) rss \(tenths(sample.residentMB)) MB, descriptors \(sample.descriptors), threads "
                + "\(sample.threads); sent \(sent.socketNotifications) (socket) + \(sent.signalNotifications) (bus), "
                + "received \(received), dropped \(dropped), missing without a count \(uncounted); \(chaos.summary)")
        // Readable as it comes, also when the output goes to a file.
        fflush(nil)
        if minute == nil {
            for (listener, count) in zip(listeners, counts) {
                let ledger = listener.ledger.totals
                print(
                    "  \(listener.name): received \(count.received), delivered \(count.delivered), dropped "
                        + "\(count.dropped), seen \(ledger.seen) in \(ledger.sessions) sessions, gaps \(ledger.gaps), "
                        + "missing without a count \(listener.uncounted); streams ended: "
                        + "\(listener.endings.sorted { $0.key < $1.key })")
            }
        }
    }

    private static func verdict(baseline: ProcessSample?, end: ProcessSample, listeners: [SoakListener]) -> Bool {
        var failures: [String] = []
        if let baseline {
            let growth = Double(end.residentKiB - baseline.residentKiB) / 1024
            if growth > 5 {
                failures.append("RSS grew by \(tenths(growth)) MB between minute 2 and the end (limit 5)")
            }
            if end.descriptors > baseline.descriptors {
                failures.append("descriptors grew from \(baseline.descriptors) to \(end.descriptors) after minute 2")
            }
        }
        for listener in listeners where listener.uncounted > 0 {
            failures.append("\(listener.name): \(listener.uncounted) values missing without a count")
        }
        for listener in listeners where listener.ledger.totals.malformed > 0 {
            failures.append("\(listener.name): \(listener.ledger.totals.malformed) values without a sequence number")
        }
        if failures.isEmpty {
            print("ripple-soak: PASSED")
            return true
        }
        print("ripple-soak: FAILED")
        for failure in failures { print("  \(failure)") }
        return false
    }

    /// `value` with one decimal.
    private static func tenths(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(abs(scaled % 10))"
    }

    /// The faults `RIPPLE_SOAK_INJECT` asks for: 64 KiB retained a second, a descriptor opened a minute.
    private static func injectFaults(_ options: SoakOptions) async {
        var retained: [[UInt8]] = []
        var seconds = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            seconds += 1
            if options.injectsLeak {
                retained.append([UInt8](repeating: UInt8(truncatingIfNeeded: seconds), count: 65_536))
            }
            if options.injectsDescriptorLeak, seconds % 60 == 0 { _ = open("/dev/null", O_RDONLY) }
        }
        withExtendedLifetime(retained) {}
    }
}
