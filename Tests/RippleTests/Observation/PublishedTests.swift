import Testing

@testable import Ripple

/// A class with one published property, for the tests of `@Published` alone.
private final class Thermometer {
    @Published var celsius = 20
    @Published var label: String

    init(label: String = "lab") {
        self.label = label
    }
}

/// `@Published` and its projected publisher `$property`.
@Suite("@Published")
struct PublishedTests {
    @Test func theProjectedPublisherGivesTheCurrentValueThenEveryChange() {
        let thermometer = Thermometer()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        thermometer.$celsius.subscribe(subscriber)
        thermometer.celsius = 21
        #expect(subscriber.events == [.subscription("PublishedSubject")], "nothing before a request")
        subscriber.request(.max(2))
        thermometer.celsius = 22
        thermometer.celsius = 23
        #expect(subscriber.events == [.subscription("PublishedSubject"), .value(21), .value(22)])
        subscriber.request(.max(1))
        #expect(
            subscriber.events == [.subscription("PublishedSubject"), .value(21), .value(22), .value(23)],
            "a value set without demand arrives, as the latest, with the next request")
        thermometer.celsius = 24
        thermometer.celsius = 25
        subscriber.request(.max(1))
        #expect(subscriber.values == [21, 22, 23, 25])
        #expect(subscriber.completion == nil, "it never completes")
        #expect(subscriber.demandViolations == 0)
    }

    @Test func publishingHappensBeforeThePropertyChanges() {
        let thermometer = Thermometer()
        var seen: [String] = []
        let cancellable = thermometer.$celsius.sink { value in
            seen.append("received \(value) while the property reads \(thermometer.celsius)")
        }
        thermometer.celsius = 30
        #expect(
            seen == [
                "received 20 while the property reads 20", "received 30 while the property reads 20",
            ])
        #expect(thermometer.celsius == 30)
        cancellable.cancel()
    }

    @Test func everySubscriberGetsItsOwnCurrentValue() {
        let thermometer = Thermometer(label: "kitchen")
        thermometer.label = "hall"
        let early = TestSubscriber<String, Never>()
        defer { early.cancel() }
        thermometer.$label.subscribe(early)
        thermometer.label = "attic"
        let late = TestSubscriber<String, Never>()
        defer { late.cancel() }
        thermometer.$label.subscribe(late)
        #expect(early.values == ["hall", "attic"])
        #expect(late.values == ["attic"])
    }

    @Test func propertiesAreIndependent() {
        let thermometer = Thermometer()
        let celsius = TestSubscriber<Int, Never>()
        defer { celsius.cancel() }
        thermometer.$celsius.subscribe(celsius)
        thermometer.label = "other"
        #expect(celsius.values == [20])
    }

    @Test func cancellingStopsTheValues() {
        let thermometer = Thermometer()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        thermometer.$celsius.subscribe(subscriber)
        subscriber.cancel()
        thermometer.celsius = 40
        #expect(subscriber.values == [20])
    }

    @Test func copiesOfTheWrapperShareTheProperty() {
        var wrapper = Published(initialValue: 1)
        var copy = wrapper
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        copy.projectedValue.subscribe(subscriber)
        Just(2).assign(to: &wrapper.projectedValue)
        #expect(subscriber.values == [1, 2])
        subscriber.cancel()
    }

    @Test func assignToAPublishedPropertySetsItForEveryValue() {
        let thermometer = Thermometer()
        let source = TestPublisher<Int, Never>()
        let observed = TestSubscriber<Int, Never>()
        defer { observed.cancel() }
        thermometer.$celsius.subscribe(observed)
        source.assign(to: &thermometer.$celsius)
        #expect(source.calls == [.request(.unlimited)])
        source.send(31)
        source.send(32)
        #expect(thermometer.celsius == 32)
        #expect(observed.values == [20, 31, 32])
        observed.cancel()
    }

    @Test func assignToIsCancelledWhenThePropertyGoesAway() {
        let source = TestPublisher<Int, Never>()
        weak var released: Thermometer?
        do {
            let thermometer = Thermometer()
            released = thermometer
            source.assign(to: &thermometer.$celsius)
            source.send(1)
            #expect(thermometer.celsius == 1)
        }
        #expect(released == nil, "assign(to:) keeps no reference to the object")
        #expect(source.calls == [.request(.unlimited), .cancel])
        source.send(2)
    }

    @Test func assignToFromAFinishedPublisher() {
        let thermometer = Thermometer()
        Just(12).assign(to: &thermometer.$celsius)
        #expect(thermometer.celsius == 12)
        [1, 2, 3].publisher.assign(to: &thermometer.$celsius)
        #expect(thermometer.celsius == 3)
    }

    @Test func readingAndSettingFromManyThreads() async {
        let thermometer = SendableThermometer()
        let cancellable = thermometer.$celsius.sink { _ in }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for step in 0..<250 {
                        thermometer.celsius = task * 1_000 + step
                        _ = thermometer.celsius
                    }
                }
            }
        }
        #expect(thermometer.celsius % 1_000 == 249)
        cancellable.cancel()
    }
}

/// A thermometer shared between tasks: `@Published` keeps its value behind a lock.
private final class SendableThermometer: @unchecked Sendable {
    @Published var celsius = 0
}
