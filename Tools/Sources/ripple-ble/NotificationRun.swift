import Ripple
import RippleBlueZ
import RippleLoop
import RippleSimulatorServing
import Synchronization

/// Listening to one characteristic on several peripherals until enough notifications arrived, time is
/// up, the streams fail, or ``Termination/wait()`` returns (SIGINT, SIGTERM, a closed lifeline); with a progress line a second and the figures at the end.
/// What `listen` and `bench` share.
struct NotificationRun {
    /// How a run ended.
    enum Outcome: Sendable {
        /// `count` notifications arrived.
        case complete
        /// The time limit passed first.
        case timeUp
        /// Interrupted by a signal or the end of standard input (`--exit-when-stdin-closes`).
        case interrupted
        /// A stream failed.
        case failed(BluetoothError)
    }

    /// What a run measured.
    struct Result: Sendable {
        var outcome: Outcome
        var figures: NotificationMeter.Figures
        /// Notifications the listeners' buffers dropped (the subscriber was too slow).
        var dropped: Int
        /// CPU time this process used from subscribing to the end, in nanoseconds.
        var cpuNanoseconds: UInt64
        /// Wall time from subscribing to the end, in nanoseconds.
        var wallNanoseconds: UInt64
        /// For each peripheral, whether bluetoothd had handed its notifications over a socket
        /// (`NotifyAcquired` at the end of the run) rather than as `PropertiesChanged`; nil when that
        /// could not be read (the run failed, or the characteristic has no `NotifyAcquired`).
        var acquired: [Bool?] = []
    }

    let peripherals: [Peripheral]
    let characteristic: CharacteristicReference
    let transport: NotificationTransport
    let layout: PayloadLayout
    /// Stop after this many notifications in all (nil: no limit).
    let count: Int?
    /// Stop after this long (nil: no limit).
    let limit: Duration?
    /// Called with each notification and its source index, on the loop thread.
    let onValue: (@Sendable (Int, [UInt8]) -> Void)?
    /// Print a progress line every second.
    let showsProgress: Bool

    /// Runs until an end condition; never throws (a failed stream is the outcome).
    func run(on loop: EventLoop) async -> Result {
        let meter = NotificationMeter(layout: layout, sources: peripherals.count, limit: count)
        let finish = Finish()
        let statistics = peripherals.map { _ in NotificationStatistics() }
        let count = self.count
        let onValue = self.onValue
        let cpuStart = NotificationMeter.processCPUNanoseconds()
        let wallStart = NotificationMeter.monotonicNanoseconds()
        var cancellables: [AnyCancellable] = []
        for (index, peripheral) in peripherals.enumerated() {
            let subscription = peripheral.listen(
                to: characteristic, transport: transport, statistics: statistics[index]
            )
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { finish.finish(.failed(error)) }
                },
                receiveValue: { value in
                    // What arrives after the count (before the cancellation lands) is neither shown nor counted.
                    guard let received = meter.record(value, from: index) else { return }
                    onValue?(index, value)
                    if let count, received == count { finish.finish(.complete) }
                })
            cancellables.append(subscription)
        }
        // The time limit runs off the loop: a loop timer would time every wait of the loop thread (an
        // hrtimer armed and cancelled in the kernel per wake-up) in a run that measures that thread's CPU.
        let deadline = limit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                finish.finish(.timeUp)
            }
        }
        let ticker: (any Cancellable)? =
            showsProgress
            ? loop.every(.seconds(1)) { [meter] in
                Self.progress(meter.figures, since: wallStart, of: count)
            } : nil
        let signals = Task {
            _ = await Termination.wait()
            finish.finish(.interrupted)
        }
        let outcome = await finish.wait()
        let cpuEnd = NotificationMeter.processCPUNanoseconds()
        let wallEnd = NotificationMeter.monotonicNanoseconds()
        signals.cancel()
        deadline?.cancel()
        ticker?.cancel()
        // Read while still listening: once the streams are cancelled, bluetoothd lets go of the socket.
        var acquired: [Bool?] = []
        for peripheral in peripherals {
            if case .failed = outcome {
                acquired.append(nil)
            } else {
                acquired.append(await Self.notifyAcquired(characteristic, of: peripheral))
            }
        }
        cancellables.forEach { $0.cancel() }
        // The meter belongs to the loop thread, where the values arrive.
        var figures = await loop.perform { meter.figures }
        figures.latencies.sort()
        return Result(
            outcome: outcome, figures: figures, dropped: statistics.reduce(0) { $0 + $1.dropped },
            cpuNanoseconds: cpuEnd - cpuStart, wallNanoseconds: wallEnd - wallStart, acquired: acquired)
    }

    /// bluetoothd's `NotifyAcquired` of `characteristic` on `peripheral`: whether it hands the notifications
    /// over a socket (`AcquireNotify`); nil when the characteristic is not found or has no such property
    /// (a bluetoothd that offers only `StartNotify` for it).
    static func notifyAcquired(_ characteristic: CharacteristicReference, of peripheral: Peripheral) async -> Bool? {
        let found = peripheral.services.flatMap(\.characteristics).first { candidate in
            candidate.uuid == characteristic.uuid
                && (characteristic.service == nil || candidate.serviceUUID == characteristic.service)
        }
        guard let found else { return nil }
        let reply = peripheral.central.connection.getProperty(
            destination: BlueZInterface.serviceName, path: found.path, interface: BlueZInterface.gattCharacteristic,
            name: "NotifyAcquired", as: Bool.self, timeout: .seconds(5))
        do {
            for try await acquired in reply.values { return acquired }
        } catch {
            return nil
        }
        return nil
    }

    private static func progress(_ figures: NotificationMeter.Figures, since start: UInt64, of count: Int?) {
        let seconds = Double(NotificationMeter.monotonicNanoseconds() - start) / 1e9
        var line = "received \(figures.received)"
        if let count { line += " of \(count)" }
        line += ", \(Int(Double(figures.received) / max(seconds, 1e-9))) per second"
        if figures.lost > 0 || figures.reordered > 0 {
            line += ", lost \(figures.lost), reordered \(figures.reordered)"
        }
        Output.progress(line)
    }
}

/// The first end condition of a run, and the task waiting for it.
final class Finish: Sendable {
    private struct State {
        var outcome: NotificationRun.Outcome?
        var waiter: CheckedContinuation<NotificationRun.Outcome, Never>?
    }

    private let state = Mutex(State())

    /// Ends the run with `outcome`, unless it already ended.
    func finish(_ outcome: NotificationRun.Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<NotificationRun.Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the first end condition.
    func wait() async -> NotificationRun.Outcome {
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> NotificationRun.Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }
}
