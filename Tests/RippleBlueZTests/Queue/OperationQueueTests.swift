import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import RippleTestKit
import RippleTestSupport
import Testing

@Suite(.timeLimit(Patience.test)) struct OperationQueueTests {
    private let sensor = CharacteristicReference(Lab.sensor)

    @Test func aThousandWritesFromTenSubscribersAllSucceedInOrder() async throws {
        let log = WriteLog()
        try await withFixture(CentralFixture(world: Lab.world(loggingWritesTo: log))) { fixture in
            let peripheral = try await fixture.connect()
            // Each subscriber issues its 100 writes at once; bluetoothd allows one write of a characteristic
            // at a time, so without the queue all but one would fail with InProgress.
            let subscribers = (0..<10).map { subscriber in
                TestSubscriber(
                    Publishers.Sequence<[Int], BluetoothError>(sequence: Array(0..<100))
                        .flatMap { index in peripheral.write([UInt8(subscriber), UInt8(index)], to: sensor) }
                        .collect())
            }
            for subscriber in subscribers { try await subscriber.wait(timeout: Patience.step) { $0.completion != nil } }
            for subscriber in subscribers {
                #expect(subscriber.completion == .finished)
                #expect(subscriber.values.first?.count == 100)
            }
            let expected = (0..<10).flatMap { subscriber in (0..<100).map { [UInt8(subscriber), UInt8($0)] } }
            #expect(log.values == expected)
        }
    }

    @Test func readsAndWritesOfManyCharacteristicsInterleaveWithoutInProgress() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            let indicator = CharacteristicReference(Lab.indicator)
            var operations: [AnyPublisher<[UInt8], BluetoothError>] = []
            for index in 0..<50 {
                if index % 2 == 0 {
                    operations.append(
                        peripheral.write([UInt8(index)], to: sensor).map { _ in [UInt8]() }.eraseToAnyPublisher())
                } else {
                    operations.append(peripheral.read(index % 4 == 1 ? sensor : indicator))
                }
            }
            let all = TestSubscriber(Publishers.MergeMany(operations).collect())
            try await all.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(all.completion == .finished)
            #expect(all.values.first?.count == 50)
        }
    }

    @Test func anOperationThatTimesOutFailsAloneAndTheNextWaitsForBluetoothdsAnswer() async throws {
        try await withFixture(CentralFixture(world: Lab.world)) { fixture in
            let peripheral = try await fixture.connect()
            // bluetoothd answers 2 s late, the read gives up after 50 ms: the timeout must come first even when
            // a loaded machine keeps the central's loop thread off the CPU for a while (the loop handles an
            // answer that arrived while it waited for events before the timers that fell due meanwhile).
            try await fixture.simulator.inject(
                .delay(.seconds(2)), on: .read(Lab.sensor), of: Lab.address)
            let slow = TestSubscriber(peripheral.read(sensor, timeout: .milliseconds(50)))
            let next = TestSubscriber(peripheral.read(sensor))
            try await slow.wait(timeout: Patience.step) { $0.completion != nil }
            guard let error = slow.failure() else {
                return
            }
            #expect(error.kind == .timeout)
            // The next read of the same characteristic started only once bluetoothd had answered the first:
            // it succeeds instead of getting InProgress.
            try await next.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(next.completion == .finished)
            #expect(next.values == [[0]])
        }
    }

    @Test func aCancelledWaitingOperationNeverRuns() async throws {
        let log = WriteLog()
        try await withFixture(CentralFixture(world: Lab.world(loggingWritesTo: log))) { fixture in
            let peripheral = try await fixture.connect()
            try await fixture.simulator.inject(
                .delay(.milliseconds(100)), on: .write(Lab.sensor), of: Lab.address)
            // All four steps in one turn of the central's loop, so that the first write's answer cannot come
            // in between: the second write is still waiting when it is cancelled, however long this task is
            // held up (under load a test's thread can be off the CPU for longer than the 100 ms delay).
            let (first, third) = await fixture.central.loop.perform {
                let first = TestSubscriber(peripheral.write([1], to: sensor))
                let cancelled = TestSubscriber(peripheral.write([2], to: sensor))
                let third = TestSubscriber(peripheral.write([3], to: sensor))
                cancelled.cancel()
                return (first, third)
            }
            try await third.wait(timeout: Patience.step) { $0.completion != nil }
            #expect(first.completion == .finished)
            #expect(third.completion == .finished)
            #expect(log.values == [[1], [3]])
        }
    }
}
