// The pipelines measured against both Ripple and OpenCombine. This one source file is compiled three times,
// through symbolic links: into `RippleBenchmarks` (which imports Ripple) and `OpenCombineBenchmarks` (which
// imports OpenCombine), so both sides run exactly the same code and only the import differs; and into the
// allocation gate (`Benchmarks/Allocations`, Ripple), which counts the allocations of the same pipelines.
//
// Each benchmark iteration pushes `elements` values through a freshly built pipeline; the table script
// divides the measured time and allocations by that count (pipeline construction is included and
// amortised over the elements). The gate runs each pipeline at two smaller counts, to tell the allocations
// per element from those per pipeline. Every target compiles this file with `-enforce-exclusivity=unchecked`
// (see their Package.swift): the closures accumulate into captured `var`s, whose dynamic exclusivity checks
// would otherwise add the same harness cost to every element on both sides.
#if canImport(Benchmark)
import Benchmark
#endif

/// One measured pipeline: its name, the values one benchmark iteration delivers, and its body.
struct Pipeline: Sendable {
    /// The name in the tables (and in the gate's limits).
    let name: String
    /// The values one benchmark iteration delivers.
    let elements: Int
    /// `run`'s count is a multiple of this: the subscribers or inner publishers that share the values.
    let granularity: Int
    /// Builds the pipeline, pushes `count` values through it and tears it down.
    let run: @Sendable (_ count: Int) -> Void

    init(name: String, elements: Int, granularity: Int = 1, run: @escaping @Sendable (_ count: Int) -> Void) {
        self.name = name
        self.elements = elements
        self.granularity = granularity
        self.run = run
    }
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

/// A hand-written subscriber with unlimited demand: what `sink` costs at best on the same source.
final class Summing: Subscriber {
    typealias Input = Int
    typealias Failure = Never
    var sum = 0
    func receive(subscription: any Subscription) { subscription.request(.unlimited) }
    func receive(_ input: Int) -> Subscribers.Demand {
        sum &+= input
        return .none
    }
    func receive(completion: Subscribers.Completion<Never>) {}
}

/// Every pipeline of the comparison.
func pipelines() -> [Pipeline] {
    var all: [Pipeline] = []

    // 1. PassthroughSubject.send → map → filter → sink, at three sizes (per-element cost must be flat).
    for elements in [100_000, 1_000_000, 10_000_000] {
        all.append(
            Pipeline(name: "01 subject-map-filter-sink n=\(elements)", elements: elements) { count in
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
        Pipeline(name: "02 five-maps", elements: 1_000_000) { count in
            let subject = PassthroughSubject<Int, Never>()
            var sum = 0
            let cancellable =
                subject
                .map { $0 &+ 1 }.map { $0 &* 3 }.map { $0 &- 2 }.map { $0 ^ 5 }.map { $0 &+ 7 }
                .sink { sum &+= $0 }
            for value in 0..<count { subject.send(value) }
            cancellable.cancel()
            blackHole(sum)
        })

    // 3. (0..<1_000_000).publisher → reduce.
    all.append(
        Pipeline(name: "03 sequence-reduce", elements: 1_000_000) { count in
            var total = 0
            let cancellable = (0..<count).publisher.reduce(0, &+).sink { total = $0 }
            cancellable.cancel()
            blackHole(total)
        })

    // 4. A subject shared to 1, 4 and 16 subscribers: share(), and multicast + connect.
    for subscribers in [1, 4, 16] {
        let elements = 1_000_000 / subscribers * subscribers
        all.append(
            Pipeline(name: "04 share x\(subscribers)", elements: elements, granularity: subscribers) { count in
                let subject = PassthroughSubject<Int, Never>()
                let shared = subject.share()
                var sum = 0
                let cancellables = (0..<subscribers).map { _ in shared.sink { sum &+= $0 } }
                for value in 0..<count / subscribers { subject.send(value) }
                for cancellable in cancellables { cancellable.cancel() }
                blackHole(sum)
            })
        all.append(
            Pipeline(name: "04 multicast-connect x\(subscribers)", elements: elements, granularity: subscribers) {
                count in
                let subject = PassthroughSubject<Int, Never>()
                let multicast = subject.multicast { PassthroughSubject<Int, Never>() }
                var sum = 0
                let cancellables = (0..<subscribers).map { _ in multicast.sink { sum &+= $0 } }
                let connection = multicast.connect()
                for value in 0..<count / subscribers { subject.send(value) }
                connection.cancel()
                for cancellable in cancellables { cancellable.cancel() }
                blackHole(sum)
            })
    }

    // 5. flatMap over 1,000 inner subjects, each sending 1,000 values (round robin).
    all.append(
        Pipeline(name: "05 flatMap 1000x1000", elements: 1_000_000, granularity: 1_000) { count in
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            var sum = 0
            let cancellable = outer.flatMap { $0 }.sink { sum &+= $0 }
            let inners = (0..<1_000).map { _ in PassthroughSubject<Int, Never>() }
            for inner in inners { outer.send(inner) }
            for value in 0..<count / 1_000 {
                for inner in inners { inner.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 6. merge of 8 subjects (OpenCombine has no merge: there, merging through flatMap).
    all.append(
        Pipeline(name: "06 merge-8", elements: 1_000_000, granularity: 8) { count in
            let subjects = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
            var sum = 0
            #if RIPPLE
            let merged = Publishers.MergeMany(subjects)
            #else
            let merged = subjects.publisher.flatMap { $0 }
            #endif
            let cancellable = merged.sink { sum &+= $0 }
            for value in 0..<count / 8 {
                for subject in subjects { subject.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 7. switchToLatest over 1,000 inner publishers of 1,000 values each.
    all.append(
        Pipeline(name: "07 switchToLatest 1000x1000", elements: 1_000_000, granularity: 1_000) { count in
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            var sum = 0
            let cancellable = outer.switchToLatest().sink { sum &+= $0 }
            for _ in 0..<1_000 {
                let inner = PassthroughSubject<Int, Never>()
                outer.send(inner)
                for value in 0..<count / 1_000 { inner.send(value) }
            }
            cancellable.cancel()
            blackHole(sum)
        })

    // 8. A subscriber that requests .max(1) per value (backpressure path) behind a map.
    all.append(
        Pipeline(name: "08 demand-one-at-a-time", elements: 1_000_000) { count in
            let subscriber = OneAtATime()
            (0..<count).publisher.map { $0 &+ 1 }.subscribe(subscriber)
            blackHole(subscriber.sum)
        })

    // 9. Subscribe + cancel churn: a pipeline on one subject built, subscribed and cancelled per element,
    // its closures capturing the loop's counter and the running sum.
    all.append(
        Pipeline(name: "09 subscribe-cancel churn", elements: 100_000) { count in
            let subject = PassthroughSubject<Int, Never>()
            var sum = 0
            for i in 0..<count {
                let cancellable = subject.map { $0 &+ i }.filter { $0 & 1 == 0 }.sink { sum &+= $0 }
                cancellable.cancel()
            }
            blackHole(sum)
        })

    // 10. CurrentValueSubject with removeDuplicates → sink (every value sent twice).
    all.append(
        Pipeline(name: "10 currentValue-removeDuplicates", elements: 1_000_000) { count in
            let subject = CurrentValueSubject<Int, Never>(0)
            var sum = 0
            let cancellable = subject.removeDuplicates().sink { sum &+= $0 }
            for value in 0..<count { subject.send(value >> 1) }
            cancellable.cancel()
            blackHole(sum)
        })

    // 11. An array into `sink`, and the same publisher into a hand-written subscriber (what `sink` adds).
    let million = Array(0..<1_000_000)
    let values: @Sendable (Int) -> [Int] = { count in count == million.count ? million : Array(million[..<count]) }
    all.append(
        Pipeline(name: "11 sequence-sink", elements: million.count) { count in
            let elements = values(count)
            var sum = 0
            let cancellable = Publishers.Sequence<[Int], Never>(sequence: elements).sink { sum &+= $0 }
            cancellable.cancel()
            blackHole(sum)
        })
    all.append(
        Pipeline(name: "11 sequence-subscriber", elements: million.count) { count in
            let elements = values(count)
            let subscriber = Summing()
            Publishers.Sequence<[Int], Never>(sequence: elements).subscribe(subscriber)
            blackHole(subscriber.sum)
        })

    return all
}
