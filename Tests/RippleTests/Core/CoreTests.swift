import Foundation
import Testing

@testable import Ripple

@Suite("Demand")
struct DemandTests {
    @Test func aNegativeDemandTraps() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Subscribers.Demand.max(-1)
        }
        expectTrap(result, saying: "demand cannot be negative")
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Subscribers.Demand.max(2) * -1
        }
        expectTrap(result, saying: "demand cannot be negative")
    }

    @Test func arithmeticSaturates() {
        #expect(Subscribers.Demand.max(2) + .max(3) == .max(5))
        #expect(Subscribers.Demand.max(2) + .unlimited == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) + .max(1) == .unlimited)
        #expect(Subscribers.Demand.max(Int.max) + 1 == .unlimited)
        #expect(Subscribers.Demand.max(3) - .max(5) == .none)
        #expect(Subscribers.Demand.max(3) - 5 == .none)
        #expect(Subscribers.Demand.max(3) - .unlimited == .none)
        #expect(Subscribers.Demand.unlimited - .unlimited == .unlimited)
        #expect(Subscribers.Demand.unlimited - 7 == .unlimited)
        #expect(Subscribers.Demand.max(3) * 4 == .max(12))
        #expect(Subscribers.Demand.max(Int.max) * 2 == .unlimited)
        #expect(Subscribers.Demand.unlimited * 0 == .unlimited)
        #expect(Subscribers.Demand.max(3) + (-2) == .max(1))
        #expect(Subscribers.Demand.max(3) - (-2) == .max(5))
        #expect(Subscribers.Demand.max(Int.max) - (-1) == .none, "as Combine's, an overflowing difference is .none")
        #expect(Subscribers.Demand.unlimited - (-1) == .unlimited)
        var demand = Subscribers.Demand.max(1)
        demand += .max(1)
        demand += 1
        demand -= .max(1)
        demand -= 1
        demand *= 10
        #expect(demand == .max(10))
    }

    @Test func comparisonsWithCounts() {
        #expect(Subscribers.Demand.unlimited > Int.max)
        #expect(Subscribers.Demand.unlimited >= 0)
        #expect(!(Subscribers.Demand.unlimited < 5))
        #expect(!(Subscribers.Demand.unlimited <= 5))
        #expect(Subscribers.Demand.max(3) < 4)
        #expect(Subscribers.Demand.max(3) <= 3)
        #expect(Subscribers.Demand.max(3) > 2)
        #expect(Subscribers.Demand.max(3) >= 3)
        #expect(Subscribers.Demand.max(3) == 3)
        #expect(Subscribers.Demand.max(3) != 4)
        #expect(3 == Subscribers.Demand.max(3))
        #expect(4 != Subscribers.Demand.max(3))
        #expect(4 > Subscribers.Demand.max(3))
        #expect(3 >= Subscribers.Demand.max(3))
        #expect(2 < Subscribers.Demand.max(3))
        #expect(3 <= Subscribers.Demand.max(3))
        #expect(!(Int.max > Subscribers.Demand.unlimited))
        #expect(Subscribers.Demand.max(3) > -1)
        #expect(Subscribers.Demand.none < Subscribers.Demand.max(1))
        #expect(Subscribers.Demand.max(Int.max) < Subscribers.Demand.unlimited)
    }

    @Test func descriptionsAndMax() throws {
        #expect(Subscribers.Demand.unlimited.description == "unlimited")
        #expect(Subscribers.Demand.max(4).description == "max(4)")
        #expect(Subscribers.Demand.max(4).max == 4)
        #expect(Subscribers.Demand.unlimited.max == nil)
        #expect(Subscribers.Demand.none == .max(0))
    }

    @Test func codableRoundTrip() throws {
        struct Box: Codable, Equatable { var demands: [Subscribers.Demand] }
        let box = Box(demands: [.none, .max(7), .unlimited])
        let data = try JSONEncoder().encode(box)
        #expect(try JSONDecoder().decode(Box.self, from: data) == box)
    }
}

@Suite("AnyCancellable")
struct AnyCancellableTests {
    final class Counter: @unchecked Sendable {
        private let lock = Lock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    @Test func cancelsOnceAndOnDeinit() {
        let counter = Counter()
        var cancellable: AnyCancellable? = AnyCancellable { counter.increment() }
        cancellable?.cancel()
        cancellable?.cancel()
        #expect(counter.value == 1)
        cancellable = nil
        #expect(counter.value == 1)

        do {
            _ = AnyCancellable { counter.increment() }
        }
        #expect(counter.value == 2)
    }

    @Test func storesInCollectionsAndHashesByIdentity() {
        let counter = Counter()
        var set = Set<AnyCancellable>()
        var array = [AnyCancellable]()
        let first = AnyCancellable { counter.increment() }
        first.store(in: &set)
        first.store(in: &set)
        first.store(in: &array)
        AnyCancellable { counter.increment() }.store(in: &set)
        Subscriptions.empty.store(in: &array)
        Subscriptions.empty.store(in: &set)
        #expect(set.count == 3)
        #expect(array.count == 2)
        #expect(first == first)
        #expect(first != AnyCancellable {})
        set.removeAll()
        #expect(counter.value == 1)
        array.removeAll()
        #expect(counter.value == 1, "still held by `first`")
        first.cancel()
        #expect(counter.value == 2)
    }

    @Test func cancelIsSafeFromManyThreads() async {
        let counter = Counter()
        let cancellable = AnyCancellable { counter.increment() }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { cancellable.cancel() } }
        }
        #expect(counter.value == 1)
    }
}

@Suite("CombineIdentifier")
struct CombineIdentifierTests {
    @Test func identifiers() {
        final class Object {}
        let object = Object()
        #expect(CombineIdentifier() != CombineIdentifier())
        #expect(CombineIdentifier(object) == CombineIdentifier(object))
        #expect(CombineIdentifier(object) != CombineIdentifier(Object()))
        #expect(CombineIdentifier().description.hasPrefix("0x"))
        #expect(
            CombineIdentifier(object).description == "0x"
                + String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16))
    }
}
