import Synchronization
import Testing

@testable import Ripple

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many `SIGTRAP`s the handler installed by ``withTrapCounting(_:)`` caught.
private let caughtTraps = Atomic<Int>(0)

/// Runs `body` with a `SIGTRAP` handler that counts instead of stopping the process; returns the count.
private func withTrapCounting(_ body: () -> Void) -> Int {
    caughtTraps.store(0, ordering: .relaxed)
    let previous = signal(SIGTRAP) { _ in caughtTraps.add(1, ordering: .relaxed) }
    body()
    signal(SIGTRAP, previous)
    return caughtTraps.load(ordering: .relaxed)
}

@Suite("breakpoint, breakpointOnError (Publishers.Breakpoint)", .serialized)
struct BreakpointTests {
    @Test func passesEverythingThroughAndStopsOnlyWhenAClosureSaysSo() {
        let seen = SequencingCounter()
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let traps = withTrapCounting {
            publisher.breakpoint(
                receiveSubscription: { _ in
                    seen.increment()
                    return false
                },
                receiveOutput: {
                    seen.increment()
                    return $0 == 2
                },
                receiveCompletion: { _ in
                    seen.increment()
                    return false
                }
            )
            .subscribe(subscriber)
            #expect(publisher.send(1) == .max(1))
            #expect(publisher.send(2) == .max(1))
            publisher.send(completion: .finished)
        }
        #expect(traps == 1)
        #expect(seen.count == 4)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .value(2), .finished])
        #expect(publisher.calls == [.request(.max(3))])
    }

    @Test func stopsOnSubscriptionWhenAsked() {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        let traps = withTrapCounting {
            publisher.breakpoint(receiveSubscription: { _ in true }).subscribe(subscriber)
        }
        #expect(traps == 1)
        #expect(subscriber.events == [.subscription("TestSubscription")])
    }

    @Test func breakpointOnErrorStopsOnFailureOnly() {
        let finishing = TestPublisher<Int, TestError>()
        let failing = TestPublisher<Int, TestError>()
        let finished = TestSubscriber<Int, TestError>()
        defer { finished.cancel() }
        let failed = TestSubscriber<Int, TestError>()
        defer { failed.cancel() }
        let finishTraps = withTrapCounting {
            finishing.breakpointOnError().subscribe(finished)
            finishing.send(1)
            finishing.send(completion: .finished)
        }
        let failTraps = withTrapCounting {
            let breakpoint = failing.breakpointOnError()
            #expect(breakpoint.receiveSubscription == nil && breakpoint.receiveOutput == nil)
            breakpoint.subscribe(failed)
            failing.send(completion: .failure(.oops))
        }
        #expect(finishTraps == 0)
        #expect(failTraps == 1)
        #expect(finished.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(failed.events == [.subscription("TestSubscription"), .failure(.oops)])
    }

    @Test func theSubscriberKeepsTheClosuresButNotTheUpstream() {
        final class Keeping: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        var upstream: Keeping? = Keeping()
        weak let weakUpstream = upstream
        upstream?.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
        let inner = upstream?.subscriber
        upstream = nil
        #expect(weakUpstream == nil, "an upstream that keeps its subscriber is not kept alive by it")
        inner?.receive(subscription: Subscriptions.empty)
        #expect(inner?.receive(1) == Subscribers.Demand.none)
        #expect(subscriber.events == [.subscription("Empty"), .value(1)])
    }

    @Test func theSubscriberHasCombinesDescription() {
        final class Capture: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber
            }
        }
        let capture = Capture()
        capture.breakpoint().subscribe(TestSubscriber<Int, Never>())
        #expect(capture.subscriber.map { String(describing: $0) } == "Breakpoint")
        #expect(
            capture.subscriber.flatMap { $0 as? any CustomPlaygroundDisplayConvertible }?.playgroundDescription
                as? String == "Breakpoint")
        #expect(capture.subscriber.flatMap { $0 as? any CustomReflectable }?.customMirror.children.isEmpty == true)
    }

    @Test func withoutAHandlerTheTrapEndsTheProcess() async {
        // swift-testing starts an exit test's process with SWIFT_BACKTRACE=enable=no: no handler at all.
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            let publisher = TestPublisher<Int, TestError>()
            publisher.breakpointOnError().subscribe(TestSubscriber<Int, TestError>())
            publisher.send(completion: .failure(.oops))
        }
    }

    @Test func aHandlerThatPutsTheDefaultActionBackEndsTheProcessAfterItReturns() async {
        // What the Swift runtime's backtracer does, without the backtracer.
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = { _, _, _ in signal(SIGTRAP, SIG_DFL) }
            action.sa_flags = SA_SIGINFO
            sigaction(SIGTRAP, &action, nil)
            Just(1).breakpoint(receiveOutput: { _ in true }).subscribe(TestSubscriber<Int, Never>())
        }
    }
}

/// Runs `body` in a process that has the Swift runtime's default environment, whose backtracer handles
/// `SIGTRAP`. swift-testing starts an exit test's process with `SWIFT_BACKTRACE=enable=no`, so the first call
/// replaces the process (`execve`) with the same program, arguments and starting environment (read back from
/// `/proc/self/environ`, where swift-testing's own variables for the exit test are still present) minus
/// `SWIFT_BACKTRACE`; the same exit test then runs again and calls `body`. When that environment cannot be
/// read, lacks swift-testing's exit-test variable, or `execve` fails, or when the backtracer's handler is not
/// installed after it, the process exits normally, which fails a test that expects a signal.
private func inTheDefaultEnvironment(_ body: () -> Void) {
    let marker = "RIPPLE_TEST_DEFAULT_ENVIRONMENT=1"
    guard getenv("RIPPLE_TEST_DEFAULT_ENVIRONMENT") != nil else {
        let variables = startingEnvironment().filter { !$0.hasPrefix("SWIFT_BACKTRACE=") }
        guard variables.contains(where: { $0.hasPrefix("SWT_") && $0.contains("EXIT_TEST") }) else {
            let message = "no exit-test variable in /proc/self/environ\n"
            _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            exit(EXIT_SUCCESS)
        }
        var environment = (variables + [marker]).map { strdup($0) }
        environment.append(nil)
        execve("/proc/self/exe", CommandLine.unsafeArgv, environment)
        perror("execve")
        exit(EXIT_SUCCESS)
    }
    // The runtime installs the backtracer's handler at startup; nothing else in this process handles SIGTRAP.
    var action = sigaction()
    guard sigaction(SIGTRAP, nil, &action) == 0, action.__sigaction_handler.sa_handler != nil else {
        let message = "the backtracer does not handle SIGTRAP\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(EXIT_SUCCESS)
    }
    body()
}

/// The environment this process started with (`/proc/self/environ`), or none when it cannot be read.
private func startingEnvironment() -> [String] {
    let descriptor = open("/proc/self/environ", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    return bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
}

@Suite(
    "breakpoint under the Swift runtime's backtracer ends the process, as Combine without a debugger",
    .disabled(
        if: runsUnderASanitizer,
        "the Swift runtime's backtracer does not run under ThreadSanitizer or AddressSanitizer: its helper hangs"))
struct BreakpointBacktracerTests {
    @Test func receiveSubscriptionEndsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            inTheDefaultEnvironment {
                Just(1).breakpoint(receiveSubscription: { _ in true }).subscribe(TestSubscriber<Int, Never>())
            }
        }
    }

    @Test func receiveOutputEndsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            inTheDefaultEnvironment {
                Just(1).breakpoint(receiveOutput: { $0 == 1 }).subscribe(TestSubscriber<Int, Never>())
            }
        }
    }

    @Test func receiveCompletionEndsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            inTheDefaultEnvironment {
                Just(1).breakpoint(receiveCompletion: { $0 == .finished }).subscribe(TestSubscriber<Int, Never>())
            }
        }
    }

    @Test func breakpointOnErrorEndsTheProcess() async {
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            inTheDefaultEnvironment {
                let publisher = TestPublisher<Int, TestError>()
                publisher.breakpointOnError().subscribe(TestSubscriber<Int, TestError>())
                publisher.send(completion: .failure(.oops))
            }
        }
    }
}

@Suite("BreakpointTrap: when a trap that returned is raised again")
struct BreakpointTrapTests {
    @Test func afterTheBacktracerWithoutATracerItIsRaisedAgain() {
        #expect(BreakpointTrap.endsTheProcessAgain(before: .handler(resetsItself: false), after: .endProcess) { 0 })
    }

    @Test func aHandlerThatStaysInstalledKeepsTheProcessRunning() {
        let handler = BreakpointTrap.Disposition.handler(resetsItself: false)
        #expect(!BreakpointTrap.endsTheProcessAgain(before: handler, after: handler) { 0 })
    }

    @Test func anAttachedDebuggerKeepsTheProcessRunning() {
        #expect(!BreakpointTrap.endsTheProcessAgain(before: .handler(resetsItself: false), after: .endProcess) { 4242 })
    }

    @Test func anUnreadableProcStatusKeepsTheProcessRunning() {
        #expect(!BreakpointTrap.endsTheProcessAgain(before: .handler(resetsItself: false), after: .endProcess) { nil })
    }

    @Test func anIgnoredTrapAHandlerThatResetsItselfOrUnreadableDispositionsKeepTheProcessRunning() {
        let seen = SequencingCounter()
        let reading: () -> Int? = {
            seen.increment()
            return 0
        }
        #expect(!BreakpointTrap.endsTheProcessAgain(before: .ignore, after: .ignore, tracerPID: reading))
        #expect(
            !BreakpointTrap.endsTheProcessAgain(
                before: .handler(resetsItself: true), after: .endProcess, tracerPID: reading))
        #expect(!BreakpointTrap.endsTheProcessAgain(before: nil, after: .endProcess, tracerPID: reading))
        #expect(
            !BreakpointTrap.endsTheProcessAgain(before: .handler(resetsItself: false), after: nil, tracerPID: reading))
        #expect(seen.count == 0, "/proc is read only after the backtracer's pattern")
    }

    @Test func readsTracerPidFromProcStatus() {
        let status = "Name:\tRipplePackageTests\nState:\tR (running)\nPPid:\t1\nTracerPid:\t0\nUid:\t0\t0\t0\t0\n"
        #expect(BreakpointTrap.tracerPID(inStatus: Array(status.utf8)) == 0)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("TracerPid:\t4242\nUid:\t0\n".utf8)) == 4242)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("Name:\tx\nTracerPid: 17\n".utf8)) == 17)
    }

    @Test func aMissingTruncatedOrMalformedTracerPidReadsAsUnknown() {
        #expect(BreakpointTrap.tracerPID(inStatus: Array("Name:\tx\nPPid:\t1\n".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("Name:\tx\nTracerPid:\t12".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("TracerPid:\t\n".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("TracerPid:\t1x\n".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("TracerPid:\t99999999999999999999\n".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: Array("Name:\tTracerPid:\t0\n".utf8)) == nil)
        #expect(BreakpointTrap.tracerPID(inStatus: [UInt8]()) == nil)
    }
}

@Suite("assertNoFailure (Publishers.AssertNoFailure)")
struct AssertNoFailureTests {
    @Test func passesValuesAndFinishingThrough() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let assert = publisher.assertNoFailure("checked")
        #expect(assert.prefix == "checked")
        #expect(assert.line > 0)
        assert.subscribe(subscriber)
        #expect(publisher.send(1) == .max(1))
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .finished])
        #expect(publisher.calls == [.request(.max(2))])
    }

    @Test func theSubscriberHasCombinesDescriptionAndMirror() {
        final class Capture: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = TestError
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
                self.subscriber = subscriber
            }
        }
        let capture = Capture()
        capture.assertNoFailure("p").subscribe(TestSubscriber<Int, Never>())
        #expect(capture.subscriber.map { String(describing: $0) } == "AssertNoFailure")
        #expect(
            capture.subscriber.flatMap { $0 as? any CustomPlaygroundDisplayConvertible }?.playgroundDescription
                as? String == "AssertNoFailure")
        let labels = capture.subscriber.flatMap { $0 as? any CustomReflectable }?.customMirror.children.map(\.label)
        #expect(labels == ["file", "line", "prefix"])
    }

    @Test func aFailureStopsTheProcessWithTheError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let publisher = TestPublisher<Int, TestError>()
            publisher.assertNoFailure("unexpected").subscribe(TestSubscriber<Int, Never>())
            publisher.send(completion: .failure(.oops))
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(output.contains("unexpected: oops"))
    }
}
