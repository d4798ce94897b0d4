// The pipelines measured against both Ripple and OpenCombine. This one source file is compiled twice —
// into `RippleBenchmarks` (which imports Ripple) and `OpenCombineBenchmarks` (which imports OpenCombine),
// through symbolic links — so both sides run exactly the same code; only the import differs.
//
// Each benchmark iteration pushes `elements` values through a freshly built pipeline; the table script
// divides the measured time and allocations by that count (pipeline construction is included and
// amortised over the elements). Both targets compile this file with `-enforce-exclusivity=unchecked`
// (see Package.swift): the closures accumulate into captured `var`s, whose dynamic exclusivity checks
// would otherwise add the same harness cost to every element on both sides.
import Benchmark

/// One measured pipeline: its name, the values one iteration delivers, and the body of one iteration.
struct Pipeline: Sendable {
    let name: String
    let elements: Int
    let run: @Sendable () -> Void
}

/// A subscriber that asks for one value at a time: the backpressure path.
final class OneAtATime: Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var sum = 0
    func receive(subscription: any Subscription) { subscription.request(.max(1)) }
    func receive(_ input: Int) -> Subscribers.Demand {
        sum &+= input
        return .max(1)
    }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// Every pipeline of the comparison.
func pipelines() -> [Pipeline] {
    var all: [Pipeline] = []

    // 1. PassthroughSubject.send → map → filter → sink, at three sizes (per-element cost must be flat).
    for count in [100_000, 1_000_000, 10_000_000] {
        all.append(
            Pipeline(name: "01 subject-map-filter-sink n=\(count)", elements: count) {
                let subject = PassthroughSubject<Int, Never>()
                var sum = 0
                let cancellable = subject.map { $0 &* 2 }.filter { $0 & 2 == 0 }.sink { sum &+= $0 }
                for value in 0..<count { subject.send(value) }
                cancellable.cancel()
                blackHole(sum)
            })
    }

    // 2. Five chained maps.
    all.append(
        Pipeline(name: "02 five-maps", elements: 1_000_000) {
            let subject = PassthroughSubject<Int, Never>()
            var sum = 0
            let cancellable =
                subject
                .map { $0 &+ 1 }.map { $0 &* 3 }.map { $0 &- 2 }.map { $0 ^ 5 }.map { $0 &+ 7 }
                .sink { sum &+= $0 }
            for value in 0..<1_000_000 { subject.send(value) }
            cancellable.cancel()
            blackHole(sum)
        })

    // 3. (0..<1_000_000).publisher → reduce.
    all.append(
        Pipeline(name: "03 sequence-reduce", elements: 1_000_000) {
            var total = 0
            let cancellable = (0..<1_000_000).publisher.reduce(0, &+).sink { total = $0 }
            cancellable.cancel()
            blackHole(total)
        })

    // 4. A subject shared to 1, 4 and 16 subscribers: share(), and multicast + connect.
    for subscribers in [1, 4, 16] {
        let sends = 1_000_000 / subscribers
        all.append(
            Pipeline(name: "04 share x\(subscribers)", elements: sends * subscribers) {
                let subject = PassthroughSubject<Int, Never>()
                let shared = subject.share()
                var sum = 0
                let cancellables = (0..<subscribers).map { _ in shared.sink { sum &+= $0 } }
                for value in 0..<sends { subject.send(value) }
                for cancellable in cancellables { cancellable.cancel() }
                blackHole(sum)
            })
        all.append(
            Pipeline(name: "04 multicast-connect x\(subscribers)", elements: sends * subscribers) {
                let subject = PassthroughSubject<Int, Never>()
                let multicast = subject.multicast { PassthroughSubject<Int, Never>() }
                var sum = 0
                let cancellables = (0..<subscribers).map { _ in multicast.sink { sum &+= $0 } }
                let connection = multicast.connect()
                for value in 0..<sends { subject.send(value) }
                connection.cancel()
                for cancellable in cancellables { cancellable.cancel() }
                blackHole(sum)
            })
    }

    // 5. flatMap over 1,000 inner subjects, each sending 1,000 values (round robin).
    all.append(
        Pipeline(name: "05 flatMap 1000x1000", elements: 1_000_000) {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            var sum = 0
            let cancellable = outer.flatMap { $0 }.sink { sum &+= $0 }
            let inners = (0..<1_000).map { _ in PassthroughSubject<Int, Never>() }
            for inner in inners { outer.send(inner) }
            for value in 0..<1_000 {
                for inner in inners { inner.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 6. merge of 8 subjects (OpenCombine has no merge: there, merging through flatMap).
    all.append(
        Pipeline(name: "06 merge-8", elements: 1_000_000) {
            let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
            var sum = 0
            #if RIPPLE
            let merged = Publishers.MergeMany(subjects)
            #else
            let merged = subjects.publisher.flatMap { $0 }
            #endif
            let cancellable = merged.sink { sum &+= $0 }
            for value in 0..<125_000 {
                for subject in subjects { subject.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 7. switchToLatest over 1,000 inner publishers of 1,000 values each.
    all.append(
        Pipeline(name: "07 switchToLatest 1000x1000", elements: 1_000_000) {
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            var sum = 0
            let cancellable = outer.switchToLatest().sink { sum &+= $0 }
            for _ in 0..<1_000 {
                let inner = PassthroughSubject<Int, Never>()
                outer.send(inner)
                for value in 0..<1_000 { inner.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 8. A subscriber that requests .max(1) per value (backpressure path) behind a map.
    all.append(
        Pipeline(name: "08 demand-one-at-a-time", elements: 1_000_000) {
            let subscriber = OneAtATime()
            (0..<1_000_000).publisher.map { $0 &+ 1 }.subscribe(subscriber)
            blackHole(subscriber.sum)
        })

    // 9. Subscribe + cancel churn: pipelines built, subscribed and cancelled.
    all.append(
        Pipeline(name: "09 subscribe-cancel churn", elements: 100_000) {
            let subject = PassthroughSubject<Int, Never>()
            for _ in 0..<100_000 {
                let cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.sink { blackHole($0) }
                cancellable.cancel()
            }
        })

    // 10. CurrentValueSubject with removeDuplicates → sink (every value sent twice).
    all.append(
        Pipeline(name: "10 currentValue-removeDuplicates", elements: 1_000_000) {
            let subject = CurrentValueSubject<Int, Never>(0)
            var sum = 0
            let cancellable = subject.removeDuplicates().sink { sum &+= $0 }
            for value in 0..<1_000_000 { subject.send(value >> 1) }
            cancellable.cancel()
            blackHole(sum)
        })

    return all
}

/// Registers every pipeline as a benchmark named `"<framework> <pipeline>"`.
func registerPipelines(framework: String) {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 15
    )
    for pipeline in pipelines() {
        // The time budget grows with the work of one iteration, so that the largest runs (10^7 elements,
        // over a second an iteration) still give several samples for the median rather than one or two.
        var configuration = Benchmark.defaultConfiguration
        configuration.maxDuration = .seconds(max(2, pipeline.elements / 1_000_000))
        Benchmark("\(framework) | \(pipeline.name) | \(pipeline.elements)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations { pipeline.run() }
        }
    }
}
