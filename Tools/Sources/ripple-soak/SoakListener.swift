import Ripple
import RippleBlueZ
import Synchronization

/// One consumer of a lane's notifications, as a user would write it: a `for try await` loop over
/// `values` whose body awaits now and then, or a `sink`. It checks the sequence numbers it sees against
/// the drops its streams counted, across every stream it opens during the run.
final class SoakListener: Sendable {
    /// How the listener consumes.
    enum Style: Sendable {
        /// A `for try await` loop whose body awaits a round trip through the loop every `awaitEvery` values.
        case asyncLoop(awaitEvery: Int)
        /// A `sink` (unlimited demand).
        case sink
    }

    let name: String
    let style: Style
    let buffering: EventBuffering
    let ledger = SequenceLedger()
    private struct Totals {
        var received = 0
        var delivered = 0
        var dropped = 0
        var ended: [String: Int] = [:]
    }

    private let totals = Mutex(Totals())
    private let live = Mutex<EventStatistics?>(nil)
    private let streaming = Atomic<Bool>(false)
    private let skipEvery: Int?
    private let skipped = Atomic<Int>(0)

    /// A listener named `name` consuming in `style` through `buffering`; with `skipEvery`, it loses every
    /// `skipEvery`-th value without a count (the soak's injected fault).
    init(name: String, style: Style, buffering: EventBuffering, skipEvery: Int? = nil) {
        self.name = name
        self.style = style
        self.buffering = buffering
        self.skipEvery = skipEvery
    }

    /// Whether a value arrived since ``expectStreaming()``.
    var isStreaming: Bool { streaming.load(ordering: .acquiring) }

    /// Forgets that values arrived (the sampler then waits for the next).
    func expectStreaming() { streaming.store(false, ordering: .releasing) }

    /// Received, delivered and dropped over every stream so far (the live one included).
    var counts: (received: Int, delivered: Int, dropped: Int) {
        let current = live.withLock { $0 }
        return totals.withLock { totals in
            (
                totals.received + (current?.received ?? 0), totals.delivered + (current?.delivered ?? 0),
                totals.dropped + (current?.dropped ?? 0)
            )
        }
    }

    /// How the streams ended, by error kind.
    var endings: [String: Int] { totals.withLock { $0.ended } }

    /// Values seen in sequence gaps not covered by a counted drop.
    var uncounted: Int {
        Swift.max(0, ledger.totals.gaps - counts.dropped)
    }

    /// Listens to `characteristic` of `peripheral` over `transport` until the stream ends or the task is
    /// cancelled.
    ///
    /// - Parameters:
    ///   - characteristic: the numbered characteristic.
    ///   - peripheral: the connected peripheral.
    ///   - transport: the notification path.
    ///   - central: the central (for the loop the body awaits).
    func listen(
        to characteristic: CharacteristicReference, of peripheral: Peripheral, transport: NotificationTransport,
        central: Central
    ) async {
        let statistics = EventStatistics()
        live.withLock { $0 = statistics }
        let stream = peripheral.listen(
            to: characteristic, buffering: buffering, transport: transport, statistics: statistics)
        var ending = "cancelled"
        switch style {
        case .asyncLoop(let awaitEvery):
            do {
                var count = 0
                for try await bytes in stream.values {
                    count += 1
                    take(bytes)
                    if count % awaitEvery == 0 { await central.loop.perform {} }
                }
                ending = "finished"
            } catch {
                ending = (error as? BluetoothError).map { "\($0.kind)" } ?? "\(error)"
            }
        case .sink:
            let (ends, end) = AsyncStream.makeStream(of: String.self)
            let subscription = stream.sink(
                receiveCompletion: { completion in
                    switch completion {
                    case .finished: end.yield("finished")
                    case .failure(let error): end.yield("\(error.kind)")
                    }
                    end.finish()
                },
                receiveValue: { [self] bytes in take(bytes) })
            for await reason in ends { ending = reason }
            subscription.cancel()
        }
        totals.withLock { totals in
            totals.received += statistics.received
            totals.delivered += statistics.delivered
            totals.dropped += statistics.dropped
            totals.ended[ending, default: 0] += 1
        }
        live.withLock { $0 = nil }
    }

    private func take(_ bytes: [UInt8]) {
        streaming.store(true, ordering: .releasing)
        if let skipEvery, skipped.add(1, ordering: .relaxed).newValue % skipEvery == 0 { return }
        ledger.record(bytes)
    }
}
