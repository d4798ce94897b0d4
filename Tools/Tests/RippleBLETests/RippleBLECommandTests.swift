import Dispatch
import Foundation
import RippleDBus
import Testing
import ToolTestSupport

/// Runs the built `ripple-ble` (beside the test bundle) and collects what it prints.
enum RippleBLECommand {
    struct Result {
        let status: Int32
        let output: String
        let error: String

        /// Standard output's lines.
        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// The executable, built with the tests (`swift build --build-tests` builds every product).
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent().appendingPathComponent("ripple-ble")
    }

    /// The path of a world file in `Tools/Examples/Worlds`.
    static func world(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Worlds/\(name)").path
    }

    /// A system bus address where nothing listens: the tests never reach the machine's system bus.
    static let noSystemBus = "unix:path=/nonexistent/ripple-test-system-bus"

    /// How long a run may take before it is stopped: longer than any run here needs, shorter than the suites'
    /// time limits (which end a test but not the processes it started).
    static let deadline: DispatchTimeInterval = .seconds(60)

    /// Runs `ripple-ble` with `arguments` to its end, with `DBUS_SYSTEM_BUS_ADDRESS` set to `systemBus`.
    /// The waiting happens on a Dispatch thread, never on one of Swift's cooperative threads (which the
    /// other suites' tasks need meanwhile). A run still going after `deadline` is stopped (SIGTERM, then
    /// SIGKILL), and its result says so in `error`.
    static func run(_ arguments: [String], systemBus: String = noSystemBus) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, systemBus: systemBus) })
            }
        }
    }

    private static func runBlocking(_ arguments: [String], systemBus: String) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus
        process.environment = environment
        // A file rather than a pipe: what the run's own children (its bus) inherit cannot hold the reading up.
        let errorFile = URL(fileURLWithPath: try ScratchFolder.file(named: "ripple-ble.err", holding: ""))
        defer { try? FileManager.default.removeItem(at: errorFile.deletingLastPathComponent()) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        let watchdog = stop(process, after: deadline)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        var error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        if process.terminationReason == .uncaughtSignal {
            let command = arguments.joined(separator: " ")
            error += "\n[test] ripple-ble \(command) ended by signal \(process.terminationStatus)"
        }
        return Result(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self), error: error)
    }

    /// Stops `process` once `delay` has passed, unless the returned work item is cancelled first: SIGTERM,
    /// then SIGKILL two seconds later if it is still there.
    static func stop(_ process: Process, after delay: DispatchTimeInterval) -> DispatchWorkItem {
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            process.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: watchdog)
        return watchdog
    }

    /// A `ripple-ble` that runs until it is stopped (`sim`, `serve`), on a lifeline: it ends with this process
    /// even when a killed test run cannot stop it.
    struct Running {
        let process: Process
        /// The first line it printed.
        let first: String
        let lifeline: Lifeline

        /// Cuts the lifeline (the command stops as on SIGTERM) and waits until it has exited.
        ///
        /// - Returns: Its exit status.
        @discardableResult func stop() -> Int32 {
            lifeline.cut()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Starts `ripple-ble` with `arguments` and `--exit-when-stdin-closes` on a ``Lifeline`` (and
    /// `DBUS_SYSTEM_BUS_ADDRESS` set to `systemBus` when given); returns it once it has printed its first line.
    /// The caller stops it.
    static func start(_ arguments: [String], systemBus: String? = nil) async throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + ["--exit-when-stdin-closes"]
        if let systemBus {
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus
            process.environment = environment
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let lifeline = try Lifeline(running: process)
        let descriptor = output.fileHandleForReading.fileDescriptor
        // A process that prints nothing within the deadline is stopped, which ends the read below.
        let watchdog = stop(process, after: deadline)
        let first = await withCheckedContinuation { continuation in
            // Read on a Dispatch thread: a blocking read must not hold a cooperative thread.
            DispatchQueue.global().async {
                var line: [UInt8] = []
                var byte: UInt8 = 0
                while read(descriptor, &byte, 1) == 1, byte != 10 { line.append(byte) }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
        watchdog.cancel()
        return Running(process: process, first: first, lifeline: lifeline)
    }

    /// A JSON line as a dictionary.
    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// `ripple-ble` as a process, on its built-in simulator (the system bus these runs see has nobody on it).
@Suite(.serialized, .timeLimit(.minutes(2))) struct RippleBLECommandTests {
    static let heartRateMonitor = "C0:FF:EE:00:00:01"
    static let ledDevice = "C0:FF:EE:00:00:02"
    static let stream = "C0:FF:EE:10:00:00"
    static let streamCharacteristic = "52495054-0000-4000-8000-0000000000b1"

    @Test func scanPrintsATableStrongestFirst() async throws {
        let result = try await RippleBLECommand.run(["scan", "--simulated", "--duration", "1.5"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.lines.first?.hasPrefix("ADDRESS") == true)
        #expect(
            result.lines.dropFirst().dropLast().map { String($0.prefix(17)) } == [
                Self.heartRateMonitor, Self.ledDevice,
            ])
        #expect(result.lines.last == "2 peripherals")
    }

    @Test func scanWithJSONPrintsOneObjectPerAdvertisement() async throws {
        let result = try await RippleBLECommand.run([
            "scan", "--simulated", "--duration", "1.5", "--json", "--name-prefix", "Ripple H",
        ])
        #expect(result.status == 0, "\(result.error)")
        let objects = result.lines.compactMap(RippleBLECommand.object)
        #expect(!objects.isEmpty && objects.count == result.lines.count)
        #expect(Set(objects.compactMap { $0["address"] as? String }) == [Self.heartRateMonitor])
        #expect(objects.first?["name"] as? String == "Ripple HRM")
        #expect(objects.first?["services"] as? [String] == ["0000180d-0000-1000-8000-00805f9b34fb"])
    }

    @Test func withoutBluetoothdItFallsBackToTheSimulatorAndSaysSo() async throws {
        let result = try await RippleBLECommand.run(["read", Self.heartRateMonitor, "2a19", "--format", "auto"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "87 %\n")
        #expect(result.error.contains("using the built-in simulator (--real insists on BlueZ)"))
    }

    @Test func infoPrintsTheGATTTreeWithAssignedNamesAndValues() async throws {
        let result = try await RippleBLECommand.run(["info", "--simulated", Self.heartRateMonitor])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.lines.first == "Ripple HRM (\(Self.heartRateMonitor))")
        #expect(result.lines.contains("  service 180D Heart Rate"))
        #expect(result.lines.contains("    characteristic 2A37 Heart Rate Measurement [notify]"))
        #expect(result.lines.contains("      descriptor 2902 Client Characteristic Configuration"))
        #expect(result.lines.contains("    characteristic 2A38 Body Sensor Location [read] = chest"))
        #expect(result.lines.contains("    characteristic 2A29 Manufacturer Name String [read] = \"Ripple Devices\""))
    }

    @Test func readShowsTheValueInTheAskedFormat() async throws {
        let hex = try await RippleBLECommand.run(["read", "--simulated", Self.heartRateMonitor, "180f/2a19"])
        #expect(hex.status == 0, "\(hex.error)")
        #expect(hex.output == "57\n")
        let text = try await RippleBLECommand.run([
            "read", "--simulated", Self.heartRateMonitor, "2a29", "--format", "text",
        ])
        #expect(text.output == "Ripple Devices\n")
    }

    @Test func writeSendsHexadecimalBytesAndRefusesAnythingElse() async throws {
        let led = "5249504c-0001-4c45-4442-7574746f6e00"
        let write = try await RippleBLECommand.run(["write", "--simulated", Self.ledDevice, led, "01"])
        #expect(write.status == 0, "\(write.error)")
        #expect(write.error.contains("wrote 1 byte to"))
        let badValue = try await RippleBLECommand.run(["write", "--simulated", Self.ledDevice, led, "0g"])
        #expect(badValue.status == 64)
        #expect(badValue.error.contains("is not hexadecimal bytes"))
    }

    @Test func listenPrintsEachValueDecodedAndTheStatistics() async throws {
        let result = try await RippleBLECommand.run([
            "listen", "--simulated", Self.heartRateMonitor, "2a37", "--count", "3",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.lines.count == 3)
        #expect(result.lines.allSatisfy { $0.contains(" bpm, contact detected") })
        #expect(result.error.contains("received 3 notifications"))
        #expect(result.error.contains("lost 0, reordered 0, dropped by the buffer 0"))
    }

    @Test(arguments: ["auto", "bus"])
    func benchCountsEveryNotificationInOrderWithLatency(transport: String) async throws {
        let result = try await RippleBLECommand.run([
            "bench", "--world", RippleBLECommand.world("bench.yaml"), Self.stream, Self.streamCharacteristic,
            "--payload", "timestamped", "--count", "20000", "--transport", transport, "--json", "--quiet",
        ])
        #expect(result.status == 0, "\(result.error)")
        let figures = try #require(result.lines.last.flatMap(RippleBLECommand.object))
        #expect(figures["received"] as? Int == 20_000)
        #expect(figures["bytes"] as? Int == 400_000)
        #expect(figures["lost"] as? Int == 0)
        #expect(figures["reordered"] as? Int == 0)
        // The simulator offers AcquireNotify: auto takes the socket.
        #expect(figures["transport"] as? String == (transport == "auto" ? "socket" : "bus"))
        #expect(figures["requested_transport"] as? String == transport)
        #expect((figures["rate"] as? Double ?? 0) > 0)
        #expect((figures["cpu_ns_per_notification"] as? Double ?? 0) > 0)
        #expect((figures["latency_p50_us"] as? Double ?? 0) > 0)
    }

    @Test func anUnknownPeripheralTimesOutWithStatus75() async throws {
        let result = try await RippleBLECommand.run([
            "read", "--simulated", "--timeout", "1", "C0:FF:EE:00:00:99", "2a19",
        ])
        #expect(result.status == 75)
        #expect(result.error.contains("C0:FF:EE:00:00:99 was not seen within"))
        #expect(result.error.contains("fix: "))
    }

    @Test func badArgumentsExitWith64() async throws {
        #expect(try await RippleBLECommand.run(["read", "not-an-address", "2a19"]).status == 64)
        #expect(try await RippleBLECommand.run(["read", Self.heartRateMonitor, "zz"]).status == 64)
        #expect(try await RippleBLECommand.run(["scan", "--real", "--simulated"]).status == 64)
    }

    @Test func realBluetoothThatIsNotThereExitsWith69AndTheFix() async throws {
        let result = try await RippleBLECommand.run(["read", "--real", Self.heartRateMonitor, "2a19"])
        #expect(result.status == 69)
        #expect(result.error.contains("fix: start bluetoothd"))
        let doctor = try await RippleBLECommand.run(["doctor"])
        #expect(doctor.status == 69)
    }

    @Test func doctorReportsOnTheSimulatorAndExitsZeroWhenHealthy() async throws {
        let result = try await RippleBLECommand.run(["doctor", "--simulated"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("hci0"))
    }

    @Test func simServesAWorldThatAnotherRunUsesAsBluetoothd() async throws {
        let simulator = try await RippleBLECommand.start(["sim"])
        // The end of its standard input: the simulator stops its bus and exits within a few milliseconds.
        defer { simulator.stop() }
        #expect(simulator.first.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=unix:"))
        let address = String(simulator.first.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))
        let result = try await RippleBLECommand.run(
            ["read", "--real", Self.heartRateMonitor, "2a38", "--format", "auto"], systemBus: address)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "chest\n")
        #expect(!result.error.contains("simulator"))
    }
}

/// `ripple-ble serve` against `ripple-ble sim` (a simulated bluetoothd with two adapters): a peripheral of
/// a world file served on hci1, read by another run on hci0.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RippleBLEServeTests {
    @Test func serveMakesAWorldPeripheralOfAnAdapterThatACentralReads() async throws {
        let world = try ScratchFolder.file(
            named: "serve.yaml",
            holding: """
                adapters:
                  - name: hci0
                    address: "00:1A:7D:DA:71:13"
                  - name: hci1
                    address: "00:1A:7D:DA:71:14"
                """)
        let simulator = try await RippleBLECommand.start(["sim", "--world", world])
        defer { simulator.stop() }
        #expect(simulator.first.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=unix:"))
        let address = String(simulator.first.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))
        let server = try await RippleBLECommand.start(
            [
                "serve", "--world", RippleBLECommand.world("demo.yaml"), "--peripheral", "C0:FF:EE:00:00:01",
                "--adapter", "hci1",
            ],
            systemBus: address)
        defer { server.stop() }
        #expect(server.first.hasPrefix("serving "))
        #expect(server.first.hasSuffix(" on hci1"))
        let result = try await RippleBLECommand.run(
            ["read", "--real", "--adapter", "hci0", "00:1A:7D:DA:71:14", "2a38", "--format", "auto"], systemBus: address
        )
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "chest\n")
        let listen = try await RippleBLECommand.run(
            ["listen", "--real", "--adapter", "hci0", "00:1A:7D:DA:71:14", "2a37", "--count", "2"], systemBus: address)
        #expect(listen.status == 0, "\(listen.error)")
        #expect(listen.lines.count == 2)
        // Stopped by the end of its standard input, in order.
        #expect(server.stop() == 0)
        #expect(simulator.stop() == 0)
    }

    /// A command that cannot stop in order (here `serve`, still waiting for a bluetoothd that never comes)
    /// exits on its own a few seconds after its standard input closed, and says why.
    @Test func aCommandStuckAfterItsInputClosedExitsAfterTheGrace() async throws {
        let bus = try PrivateDBusDaemon()  // nobody ever takes org.bluez on it
        defer { bus.stop() }
        let process = Process()
        process.executableURL = RippleBLECommand.executable
        process.arguments = [
            "serve", "--world", RippleBLECommand.world("demo.yaml"), "--adapter", "hci1", "--exit-when-stdin-closes",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        process.environment = environment
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let started = ContinuousClock.now
        let lifeline = try Lifeline(running: process)
        let watchdog = RippleBLECommand.stop(process, after: RippleBLECommand.deadline)
        defer { watchdog.cancel() }
        lifeline.cut()
        let said = await withCheckedContinuation { continuation in
            // Read on a Dispatch thread: a blocking read must not hold a cooperative thread.
            DispatchQueue.global().async {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        #expect(process.terminationReason == .exit && process.terminationStatus == 1, "\(said)")
        #expect(
            said.contains("ripple-ble: still running 5.0 seconds after standard input closed: exiting\n"), "\(said)")
        #expect(ContinuousClock.now - started >= .seconds(5))
    }

    /// An unpaced source goes out as fast as the socket takes it: every notification, in order (the
    /// serve side waits for room after a full socket instead of losing what did not fit).
    @Test(arguments: ["auto", "bus"]) func anUnpacedSourceReachesTheCentralWhole(transport: String) async throws {
        let world = try ScratchFolder.file(
            named: "serve.yaml",
            holding: """
                adapters:
                  - { name: hci0, address: "00:1A:7D:DA:71:13" }
                  - { name: hci1, address: "00:1A:7D:DA:71:14" }
                peripherals:
                  - address: "C0:FF:EE:30:00:00"
                    name: Burst
                    services:
                      - uuid: "52495054-0000-4000-8000-0000000000b0"
                        characteristics:
                          - uuid: "52495054-0000-4000-8000-0000000000b1"
                            flags: [notify]
                            notifications: { count: 3000, payload: numbered, size: 20 }
                """)
        let simulator = try await RippleBLECommand.start(["sim", "--world", world])
        defer { simulator.stop() }
        let address = String(simulator.first.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))
        let server = try await RippleBLECommand.start(
            ["serve", "--world", world, "--adapter", "hci1", "--transport", transport], systemBus: address)
        defer { server.stop() }
        #expect(server.first.hasPrefix("serving "))
        let bench = try await RippleBLECommand.run(
            [
                "bench", "--real", "--adapter", "hci0", "00:1A:7D:DA:71:14", "52495054-0000-4000-8000-0000000000b1",
                "--count", "3000", "--payload", "numbered", "--timeout", "60", "--json", "--quiet",
            ], systemBus: address)
        #expect(bench.status == 0, "\(bench.error)")
        let figures = try JSONSerialization.jsonObject(with: Data(bench.output.utf8)) as? [String: Any]
        #expect(figures?["received"] as? Int == 3000)
        #expect(figures?["lost"] as? Int == 0)
        // The simulator forwards an application's characteristic without AcquireNotify: the central asked
        // for auto, and the notifications came by StartNotify whatever the serve side's transport.
        #expect(figures?["transport"] as? String == "bus")
        #expect(figures?["requested_transport"] as? String == "auto")
    }
}
