import Testing

@testable import Ripple

/// `Future.value`: `get async` when the future cannot fail, `get async throws` otherwise.
@Suite("Future.value")
struct FutureValueTests {
    @Test func aFulfilledFutureGivesItsValueAtOnce() async {
        let future = Future<Int, Never> { $0(.success(42)) }
        #expect(await future.value == 42)
        #expect(await future.value == 42, "every read gives the same value")
    }

    @Test func theValueIsAwaitedUntilThePromiseIsFulfilled() async {
        let box = PromiseBox<String, Never>()
        let future = Future<String, Never> { box.promise = $0 }
        let subscribed = AsyncSignal()
        let reader = Task {
            subscribed.signal()
            return await future.value
        }
        await subscribed.wait()
        Task.detached { box.fulfil(.success("ready")) }
        #expect(await reader.value == "ready")
    }

    @Test func aThrowingFutureGivesItsValue() async throws {
        let future = Future<Int, TestError> { $0(.success(7)) }
        #expect(try await future.value == 7)
    }

    @Test func aThrowingFutureThrowsItsFailure() async {
        let box = PromiseBox<Int, TestError>()
        let future = Future<Int, TestError> { box.promise = $0 }
        let reader = Task { try await future.value }
        box.fulfil(.failure(.oops))
        await #expect(throws: TestError.oops) { try await reader.value }
        await #expect(throws: TestError.oops) { try await future.value }
    }

    @Test func aValueThatIsNotSendableIsHandedOver() async {
        final class Reading {
            let celsius: Double
            init(celsius: Double) { self.celsius = celsius }
        }
        let future = Future<Reading, Never> { $0(.success(Reading(celsius: 21))) }
        let reading = await future.value
        #expect(reading.celsius == 21)
    }
}
