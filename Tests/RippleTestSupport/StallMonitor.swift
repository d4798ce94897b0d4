import Ripple
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches a long run's progress from a thread of its own (outside the cooperative pool and the loops),
/// and when the count stops moving for `threshold`, writes down where it stopped and which parts of the
/// process still answer: each probe (the event loop, the cooperative pool, …) is asked to run a closure,
/// and the report says which ones did within a second. A hang then says whether the path lost a
/// wake-up (everything answers, nothing moves), the process was starved (the pool does not answer), or a
/// loop was stuck (the loop does not answer), instead of only that a time limit passed.
///
/// ```swift
/// let monitor = StallMonitor(expected: 10_000, probes: [.loop { loop.schedule($0) }, .cooperativePool])
/// while let value = try await iterator.next() { monitor.advance(); … }
/// #expect(monitor.finish().isEmpty)
/// ```
public final class StallMonitor: Sendable {
    /// A part of the process that can be asked to run a closure.
    public struct Probe: Sendable {
        let name: String
        let ask: @Sendable (@escaping @Sendable () -> Void) -> Void

        /// A probe named `name` that hands its closure to `ask`.
        ///
        /// - Parameters:
        ///   - name: what the report calls it.
        ///   - ask: runs the closure it is given where that part of the process runs things.
        public init(_ name: String, ask: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
            self.name = name
            self.ask = ask
        }

        /// The cooperative pool: an unstructured task.
        public static let cooperativePool = Probe("cooperative pool") { answer in Task.detached { answer() } }

        /// An event loop, through `schedule`.
        ///
        /// - Parameter schedule: schedules the closure on the loop.
        /// - Returns: the probe.
        public static func loop(_ schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> Probe {
            Probe("event loop", ask: schedule)
        }
    }

    private let expected: Int?
    private let threshold: Duration
    private let probes: [Probe]
    private let describe: (@Sendable () -> String)?
    private let progress = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let reports = LockedBox<[String]>()

    /// Starts watching.
    ///
    /// - Parameters:
    ///   - expected: how many steps the run makes, when known (for the report).
    ///   - threshold: how long the count may stand still before a stall is reported.
    ///   - probes: the parts of the process asked to answer when it stalls.
    ///   - describe: adds the watched object's state to a report.
    public init(
        expected: Int? = nil, threshold: Duration = .seconds(10), probes: [Probe] = [.cooperativePool],
        describe: (@Sendable () -> String)? = nil
    ) {
        self.expected = expected
        self.threshold = threshold
        self.probes = probes
        self.describe = describe
        startThread()
    }

    /// Counts one step.
    public func advance() {
        progress.add(1, ordering: .relaxed)
    }

    /// The steps counted so far.
    public var count: Int {
        progress.load(ordering: .relaxed)
    }

    /// Stops watching.
    ///
    /// - Returns: the stalls seen, one report each (empty when the run never stood still for the threshold).
    public func finish() -> [String] {
        stopped.store(true, ordering: .releasing)
        return reports.value
    }

    private func startThread() {
        final class Box: Sendable {
            weak let monitor: StallMonitor?
            init(_ monitor: StallMonitor) { self.monitor = monitor }
        }
        let box = Unmanaged.passRetained(Box(self)).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(
            &handle, nil,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                StallMonitor.watch { box.monitor }
                return nil
            }, box)
        if status == 0 {
            pthread_detach(handle)
        } else {
            Unmanaged<Box>.fromOpaque(box).release()
            reports.append("the stall monitor could not start its thread (\(status))")
        }
    }

    /// The thread's loop: it keeps the monitor only weakly, so a monitor nobody finishes stops when released.
    private static func watch(_ weakMonitor: () -> StallMonitor?) {
        let tick: Int64 = 50_000_000
        var last = -1
        var stillFor: Int64 = 0
        var reported = false
        while true {
            usleep(UInt32(tick / 1_000))
            guard let monitor = weakMonitor(), !monitor.stopped.load(ordering: .acquiring) else { return }
            let limit =
                monitor.threshold.components.seconds * 1_000_000_000
                + monitor.threshold.components.attoseconds / 1_000_000_000
            let now = monitor.count
            if now != last {
                last = now
                stillFor = 0
                reported = false
                continue
            }
            stillFor += tick
            guard stillFor >= limit, !reported else { continue }
            reported = true
            monitor.report(at: now, stillFor: stillFor)
        }
    }

    private func report(at now: Int, stillFor: Int64) {
        var text = "stalled at \(now)\(expected.map { " of \($0)" } ?? "") for \(stillFor / 1_000_000) ms"
        if let describe { text += "; " + describe() }
        let index = reports.withLock { list -> Int in
            list.append(text)
            return list.count - 1
        }
        let flags = AnswerFlags(count: probes.count)
        for (position, probe) in probes.enumerated() {
            probe.ask { flags.set(position) }
        }
        usleep(1_000_000)
        let names = probes.enumerated().map {
            "\($0.element.name) \(flags.isSet($0.offset) ? "answers" : "DOES NOT answer")"
        }
        text += "; within 1 s: " + names.joined(separator: ", ")
        text += "; 1 s later at \(count)"
        reports.withLock { $0[index] = text }
        // Also at once on standard error: a run that never ends still shows it.
        let line = Array("StallMonitor: \(text)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// Which probes have answered.
private final class AnswerFlags: Sendable {
    private let bits = Atomic<UInt64>(0)

    init(count: Int) {
        precondition(count <= 64)
    }

    func set(_ position: Int) {
        bits.bitwiseOr(1 << UInt64(position), ordering: .releasing)
    }

    func isSet(_ position: Int) -> Bool {
        bits.load(ordering: .acquiring) & (1 << UInt64(position)) != 0
    }
}
