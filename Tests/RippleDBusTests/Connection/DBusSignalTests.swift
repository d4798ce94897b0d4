import Ripple
import RippleLoop
import Synchronization
import Testing

@testable import RippleDBus

@Suite struct DBusSignalTests {
    static let path = (try? DBusObjectPath("/com/example/Sensor")) ?? .root

    @Test func matchingSignalsArriveInOrderWithTheirArguments() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let emitter = try bus.connect()
        let recorder = Recorder(listener.signals(interface: "com.example.Sensor", member: "Reading"))
        try await listener.settle()
        try emitter.emitSignal(
            path: Self.path, interface: "com.example.Sensor", member: "Other", arguments: [.int32(0)])
        for value: Int32 in [1, 2, 3] {
            try emitter.emitSignal(
                path: Self.path, interface: "com.example.Sensor", member: "Reading",
                arguments: [.int32(value), .string("v\(value)")])
        }
        await recorder.waitForValues(3)
        #expect(
            recorder.values.map(\.body) == [
                [.int32(1), .string("v1")], [.int32(2), .string("v2")], [.int32(3), .string("v3")],
            ])
        #expect(recorder.values.allSatisfy { $0.sender == emitter.uniqueName && $0.path == Self.path })
        #expect(recorder.completion == nil)
    }

    @Test func aWellKnownSenderMatchesOnlyItsCurrentOwner() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let service = try bus.connect()
        let impostor = try bus.connect()
        try await service.takeName("com.example.Service")
        let fromService = Recorder(
            listener.signals(from: "com.example.Service", interface: "com.example.Sensor", member: "Reading"))
        let fromAnyone = Recorder(listener.signals(interface: "com.example.Sensor", member: "Reading"))
        try await listener.settle()
        try impostor.emitSignal(
            path: Self.path, interface: "com.example.Sensor", member: "Reading", arguments: [.int32(1)])
        _ = try await impostor.callBus("GetId")
        try service.emitSignal(
            path: Self.path, interface: "com.example.Sensor", member: "Reading", arguments: [.int32(2)])
        await fromAnyone.waitForValues(2)
        await fromService.waitForValues(1)
        #expect(fromAnyone.values.map(\.body) == [[.int32(1)], [.int32(2)]])
        #expect(fromService.values.map(\.body) == [[.int32(2)]])
    }

    @Test func aHundredThousandSignalsArriveInOrder() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let emitter = try bus.connect()
        let total = 100_000
        let recorder = Recorder(
            listener.signals(interface: "com.example.Counter", member: "Tick").map { message -> UInt32 in
                if case .uint32(let value)? = message.body.first { return value }
                return .max
            })
        try await listener.settle()
        for index in 0..<UInt32(total) {
            try emitter.emitSignal(
                path: Self.path, interface: "com.example.Counter", member: "Tick", arguments: [.uint32(index)])
        }
        // 10 s alone; over 40 s beside the whole suite on 2 loaded cores: a safety limit well above that.
        await recorder.waitForValues(total, timeout: .seconds(120))
        #expect(recorder.values == Array(0..<UInt32(total)))
        #expect(recorder.completion == nil)
    }

    @Test func aSubscriberThatFallsBehindTheBufferFailsWithOverflowAndNothingElseIsLost() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let emitter = try bus.connect()
        let limit = 100
        // A subscriber that takes 5 signals and then asks for nothing more.
        let slow = SlowSubscriber(initialDemand: 5)
        listener.signals(interface: "com.example.Flood", member: "Drop", buffering: .bounded(limit)).subscribe(slow)
        let healthy = Recorder(listener.signals(interface: "com.example.Flood", member: "Drop"))
        try await listener.settle()
        for index in 0..<Int32(1_000) {
            try emitter.emitSignal(
                path: Self.path, interface: "com.example.Flood", member: "Drop", arguments: [.int32(index)])
        }
        await healthy.waitForValues(1_000)
        #expect(healthy.values.count == 1_000)
        let (values, completion) = slow.snapshot
        #expect(values == [0, 1, 2, 3, 4])
        #expect(completion == .failure(.bufferOverflow(limit: limit)))
        // The connection carries on.
        let reply = try await listener.callBus("GetId")
        #expect(reply.kind == .methodReturn)
    }

    @Test func signalsWaitForDemandInTheBuffer() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let emitter = try bus.connect()
        let subscriber = SlowSubscriber(initialDemand: 1)
        listener.signals(interface: "com.example.Steps", member: "Step").subscribe(subscriber)
        let all = Recorder(listener.signals(interface: "com.example.Steps", member: "Step"))
        try await listener.settle()
        for index in 0..<Int32(10) {
            try emitter.emitSignal(
                path: Self.path, interface: "com.example.Steps", member: "Step", arguments: [.int32(index)])
        }
        await all.waitForValues(10)
        #expect(subscriber.snapshot.values == [0])
        subscriber.request(.max(4))
        _ = try await listener.callBus("GetId")
        #expect(subscriber.snapshot.values == [0, 1, 2, 3, 4])
        subscriber.request(.unlimited)
        _ = try await listener.callBus("GetId")
        #expect(subscriber.snapshot.values == Array(0..<10))
        #expect(subscriber.snapshot.completion == nil)
    }

    @Test func theMatchRuleIsSharedAndRemovedAfterTheLastSubscriptionEnds() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let first = Recorder(listener.signals(interface: "com.example.Shared", member: "Ping"))
        let second = Recorder(listener.signals(interface: "com.example.Shared", member: "Ping"))
        try await listener.settle()
        let rule = DBusMatchRule(interface: "com.example.Shared", member: "Ping").description
        #expect(await onLoop(listener) { $0.core.signalRouter.users(of: rule) } == 2)
        first.cancel()
        _ = try await listener.callBus("GetId")
        #expect(await onLoop(listener) { $0.core.signalRouter.users(of: rule) } == 1)
        second.cancel()
        _ = try await listener.callBus("GetId")
        #expect(await onLoop(listener) { $0.core.signalRouter.users(of: rule) } == 0)
        // The bus no longer has the rule: RemoveMatch of it now fails.
        let error = await #expect(throws: DBusError.self) {
            _ = try await listener.callBus("RemoveMatch", [.string(rule)])
        }
        #expect(error?.remoteName == "org.freedesktop.DBus.Error.MatchRuleNotFound")
    }

    @Test func aRuleTheBusRefusesFailsTheStreamWithTheBusError() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        let recorder = Recorder(listener.signals(matching: DBusMatchRule(sender: "not..a..name", member: "X")))
        await recorder.waitForCompletion()
        guard case .failure(let error)? = recorder.completion else {
            Issue.record("expected a failure, got \(String(describing: recorder.completion))")
            return
        }
        #expect(error.remoteName == "org.freedesktop.DBus.Error.MatchRuleInvalid")
    }

    @Test func anInvalidRuleFailsTheStreamWithoutReachingTheBus() async throws {
        let bus = try BusFixture()
        let listener = try bus.connect()
        var rule = DBusMatchRule(interface: "com.example.Bad")
        rule.arguments[64] = "x"
        let recorder = Recorder(listener.signals(matching: rule))
        await recorder.waitForCompletion()
        guard case .failure(.invalidArgument)? = recorder.completion else {
            Issue.record("expected invalidArgument, got \(String(describing: recorder.completion))")
            return
        }
    }

    @Test func matchRulesQuoteTheirValues() throws {
        var rule = DBusMatchRule(
            sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        rule.pathNamespace = try DBusObjectPath("/org/bluez")
        rule.arguments = [0: "it's"]
        #expect(
            rule.description == """
                type='signal',sender='org.bluez',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',\
                path_namespace='/org/bluez',arg0='it'\\''s'
                """)
    }

    @Test func nameOwnerFollowsAServiceThatVanishesAndComesBack() async throws {
        let bus = try BusFixture()
        let watcher = try bus.connect()
        let owners = Recorder(watcher.nameOwner(of: "com.example.Phoenix"))
        await owners.waitForValues(1)
        #expect(owners.values == [nil])
        let first = try bus.connect()
        try await first.takeName("com.example.Phoenix")
        await owners.waitForValues(2)
        first.close()
        await owners.waitForValues(3)
        let second = try bus.connect()
        try await second.takeName("com.example.Phoenix")
        await owners.waitForValues(4)
        #expect(owners.values == [nil, first.uniqueName, nil, second.uniqueName])
    }
}

/// A subscriber that demands `initialDemand` values and then only what the test requests.
final class SlowSubscriber: Subscriber, Sendable {
    typealias Input = DBusMessage
    typealias Failure = DBusError

    private let initialDemand: Int
    private let lock = Mutex<
        (values: [Int32], completion: Subscribers.Completion<DBusError>?, subscription: (any Subscription)?)
    >(
        ([], nil, nil))

    init(initialDemand: Int) {
        self.initialDemand = initialDemand
    }

    var snapshot: (values: [Int32], completion: Subscribers.Completion<DBusError>?) {
        lock.withLock { ($0.values, $0.completion) }
    }

    func request(_ demand: Subscribers.Demand) {
        // Requesting only adds demand and hands delivery to the loop thread: safe under the lock.
        lock.withLock { $0.subscription?.request(demand) }
    }

    func receive(subscription: any Subscription) {
        lock.withLock { $0.subscription = subscription }
        subscription.request(.max(initialDemand))
    }

    func receive(_ input: DBusMessage) -> Subscribers.Demand {
        if case .int32(let value)? = input.body.first {
            lock.withLock { $0.values.append(value) }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<DBusError>) {
        lock.withLock { $0.completion = completion }
    }
}
