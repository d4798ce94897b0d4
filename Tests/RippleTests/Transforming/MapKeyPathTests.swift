import Testing

@testable import Ripple

@Suite("MapKeyPath, MapKeyPath2, MapKeyPath3")
struct MapKeyPathTests {
    struct Point: Equatable {
        var x: Int
        var y: Int
        var name: String
    }

    @Test func oneKeyPath() {
        let upstream = TransformingNamingPublisher<Point, TestError>()
        let mapped: Publishers.MapKeyPath<TransformingNamingPublisher<Point, TestError>, Int> = upstream.map(\.x)
        #expect(mapped.keyPath == \Point.x)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(2) })
        defer { subscriber.cancel() }
        mapped.subscribe(subscriber)
        #expect(upstream.base.send(Point(x: 1, y: 2, name: "a")) == .max(2))
        upstream.base.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .failure(.oops)])
        #expect(upstream.subscriberNames == ["ValueForKey"])
        #expect(upstream.base.calls == [.request(.max(1))])
        #expect(upstream.subscribers[0].customMirror.children.map(\.label) == ["keyPath"])
        #expect(upstream.subscribers[0].customMirror.children.first?.value as? KeyPath<Point, Int> == \Point.x)
    }

    @Test func twoKeyPaths() {
        let upstream = TransformingNamingPublisher<Point, Never>()
        let mapped: Publishers.MapKeyPath2<TransformingNamingPublisher<Point, Never>, Int, String> =
            upstream.map(\.y, \.name)
        #expect(mapped.keyPath0 == \Point.y)
        #expect(mapped.keyPath1 == \Point.name)
        let subscriber = TestSubscriber<String, Never>()
        defer { subscriber.cancel() }
        mapped.map { "\($0.0)\($0.1)" }.subscribe(subscriber)
        upstream.base.send(Point(x: 1, y: 2, name: "b"))
        upstream.base.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value("2b"), .finished])
        #expect(upstream.subscriberNames == ["ValueForKeys"])
        #expect(upstream.subscribers[0].customMirror.children.map(\.label) == ["keyPath0", "keyPath1"])
    }

    @Test func threeKeyPaths() {
        let upstream = TransformingNamingPublisher<Point, Never>()
        let mapped: Publishers.MapKeyPath3<TransformingNamingPublisher<Point, Never>, Int, Int, String> =
            upstream.map(\.x, \.y, \.name)
        #expect(mapped.keyPath0 == \Point.x && mapped.keyPath1 == \Point.y && mapped.keyPath2 == \Point.name)
        let subscriber = TestSubscriber<String, Never>.oneAtATime()
        defer { subscriber.cancel() }
        mapped.map { "\($0.0)\($0.1)\($0.2)" }.subscribe(subscriber)
        #expect(upstream.base.send(Point(x: 1, y: 2, name: "c")) == .max(1))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("TestSubscription"), .value("12c")])
        #expect(upstream.base.calls == [.request(.max(1)), .cancel])
        #expect(upstream.subscriberNames == ["ValueForKeys"])
        #expect(upstream.subscribers[0].customMirror.children.map(\.label) == ["keyPath0", "keyPath1", "keyPath2"])
        #expect(subscriber.demandViolations == 0)
    }
}

@Suite("Map overloads")
struct MapOverloadTests {
    @Test func keyPathLiteralsPickTheKeyPathOperatorEvenAfterAMap() {
        let upstream = TestPublisher<Int, Never>()
        let afterMap = upstream.map { "\($0)" }.map(\.count)
        let direct = upstream.map(\.description)
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        afterMap.subscribe(subscriber)
        upstream.send(123)
        #expect(subscriber.values == [3])
        #expect(String(describing: type(of: direct)).hasPrefix("MapKeyPath"))
        #expect(String(describing: type(of: afterMap)).hasPrefix("MapKeyPath"))
    }
}
