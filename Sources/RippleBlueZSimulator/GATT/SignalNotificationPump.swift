import Ripple
import RippleLoop

/// Sends a ``NotificationSource``'s notifications on the loop, for `StartNotify` sessions: as fast as
/// possible in batches (each batch one loop turn, so the loop keeps serving calls between them), or
/// paced at the source's rate. Stops when released, when the source is exhausted, or when `emit` returns
/// false (loop-confined).
final class SignalNotificationPump: Sendable {
    private static let batch = 64
    private let source: NotificationSource
    private let loop: EventLoop
    private let emit: @Sendable ([UInt8]) -> Bool
    nonisolated(unsafe) private var sent = 0
    nonisolated(unsafe) private var ticker: (any Cancellable)?
    nonisolated(unsafe) private var stopped = false

    init(source: NotificationSource, loop: EventLoop, emit: @escaping @Sendable ([UInt8]) -> Bool) {
        self.source = source
        self.loop = loop
        self.emit = emit
        if let rate = source.rate {
            let perTick = Swift.max(1, Int((rate / 1000).rounded(.up)))
            let interval = Duration.nanoseconds(Int(1e9 / rate) * perTick)
            ticker = loop.every(interval) { [weak self] in self?.pump(upTo: perTick) }
        } else {
            loop.schedule { [weak self] in self?.pumpAndContinue() }
        }
    }

    deinit {
        ticker?.cancel()
    }

    private var remaining: Int { (source.count ?? Int.max) - sent }

    /// Sends up to `limit` notifications; returns whether the pump goes on.
    @discardableResult
    private func pump(upTo limit: Int) -> Bool {
        guard !stopped else { return false }
        for _ in 0..<Swift.min(limit, remaining) {
            guard emit(source.payload(sequence: UInt32(truncatingIfNeeded: sent))) else {
                stop()
                return false
            }
            sent += 1
        }
        if remaining <= 0 {
            stop()
            return false
        }
        return true
    }

    private func pumpAndContinue() {
        if pump(upTo: Self.batch) {
            loop.schedule { [weak self] in self?.pumpAndContinue() }
        }
    }

    private func stop() {
        stopped = true
        ticker?.cancel()
        ticker = nil
    }
}
