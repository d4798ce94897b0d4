import Foundation
import Ripple
import RippleDBus
import RippleLoop
import Testing
import ToolTestSupport

@testable import RippleBlueZSimulator

#if canImport(Glibc)
import Glibc
#endif

/// `ripple-bluez-sim` as a process: it prints the bus address first, serves org.bluez and the control
/// service there, and stops in order on SIGTERM or at the end of its standard input.
@Suite struct SimulatorExecutableTests {
    /// Reads standard output up to the first newline (blocking; the process writes the line at once).
    static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Starts `ripple-bluez-sim` with `arguments` and `--exit-when-stdin-closes` on a lifeline (it ends with
    /// the test run, however that ends), its standard output and error piped.
    static func launch(
        _ arguments: [String]
    ) throws -> (process: Process, output: Pipe, errors: Pipe, lifeline: Lifeline) {
        let process = Process()
        process.executableURL = SimulatorCommand.executable
        process.arguments = arguments + ["--exit-when-stdin-closes"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let lifeline = try Lifeline(running: process)
        return (process, output, errors, lifeline)
    }

    @Test func servesTheWorldAndTheControlServiceUntilSIGTERM() async throws {
        let (process, output, _, lifeline) = try Self.launch([
            "--world", SimulatorCommand.packageRoot.appendingPathComponent("Examples/Worlds/interop.json").path,
        ])
        defer { if process.isRunning { process.terminate() } }

        let line = Self.firstLine(of: output.fileHandleForReading)
        let prefix = "DBUS_SYSTEM_BUS_ADDRESS="
        try #require(line.hasPrefix(prefix), "first line: \(line)")
        let address = String(line.dropFirst(prefix.count))

        let loop = try EventLoopThread(name: "executable-test-loop")
        defer { loop.stop() }
        let client = try DBusConnection(bus: .address(address), loop: loop.loop)
        defer { client.close() }

        let objects = try await client.call(
            destination: "org.bluez", path: .root, interface: "org.freedesktop.DBus.ObjectManager",
            member: "GetManagedObjects"
        ).firstValue
        let paths = objects.body.first?.dictionaryEntries?.compactMap { $0.key.objectPath?.rawValue } ?? []
        #expect(paths.contains("/org/bluez/hci0"))
        #expect(!paths.contains { $0.hasPrefix("/org/ripple") })

        let control = try DBusObjectPath(SimulatorControlService.objectPathString)
        _ = try await client.call(
            destination: SimulatorControlService.busName, path: control,
            interface: SimulatorControlService.interfaceName,
            member: "SetPowered", arguments: [.string("hci0"), .boolean(false)]
        ).firstValue
        let powered = try await client.call(
            destination: "org.bluez", path: try DBusObjectPath("/org/bluez/hci0"),
            interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.bluez.Adapter1"), .string("Powered")]
        ).firstValue
        #expect(powered.body.first?.unwrappingVariants == .boolean(false))
        let statistics = try await client.call(
            destination: SimulatorControlService.busName, path: control,
            interface: SimulatorControlService.interfaceName,
            member: "GetStatistics"
        ).firstValue
        #expect(statistics.body.first?.stringVariantDictionary?["SocketNotifications"] == .int64(0))

        process.terminate()  // SIGTERM
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(
            rest.hasPrefix("notifications sent: 0 (0 over AcquireNotify sockets, 0 as PropertiesChanged signals)\n"))
        #expect(rest.contains("process CPU time: "))
        withExtendedLifetime(lifeline) {}
    }

    @Test func theEndOfStandardInputStopsItInOrder() throws {
        let (process, output, errors, lifeline) = try Self.launch([])
        defer { if process.isRunning { process.terminate() } }
        #expect(Self.firstLine(of: output.fileHandleForReading).hasPrefix("DBUS_SYSTEM_BUS_ADDRESS="))
        lifeline.cut()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(said.contains("ripple-bluez-sim: standard input closed: stopping\n"), "\(said)")
        #expect(rest.hasPrefix("notifications sent: 0 "), "\(rest)")
    }

    @Test func aTerminalOnStandardInputIsNotWatched() throws {
        // A pseudo-terminal's follower side as standard input (not the process's controlling terminal): the
        // simulator says it does not watch it, and the leader side closing — which ends a terminal's input —
        // does not stop it; SIGTERM does.
        // (Swift's Glibc module leaves out the pseudo-terminal functions: they are looked up.)
        typealias OpenLeader = @convention(c) (Int32) -> Int32
        typealias Prepare = @convention(c) (Int32) -> Int32
        typealias FollowerName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
        func libc<Function>(_ name: String, _: Function.Type) throws -> Function {
            unsafeBitCast(try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), name)), to: Function.self)
        }
        let leader = try libc("posix_openpt", OpenLeader.self)(O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(leader >= 0)
        var leaderOpen = true
        defer { if leaderOpen { close(leader) } }
        let grant = try libc("grantpt", Prepare.self)
        let unlock = try libc("unlockpt", Prepare.self)
        try #require(grant(leader) == 0 && unlock(leader) == 0)
        var nameBuffer = [CChar](repeating: 0, count: 128)
        let followerName = try libc("ptsname_r", FollowerName.self)
        try #require(followerName(leader, &nameBuffer, nameBuffer.count) == 0)
        let name = String(decoding: nameBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let follower = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(follower >= 0)
        let process = Process()
        process.executableURL = SimulatorCommand.executable
        process.arguments = ["--exit-when-stdin-closes"]
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = FileHandle(fileDescriptor: follower, closeOnDealloc: false)
        process.standardOutput = output
        process.standardError = errors
        defer { if process.isRunning { process.terminate() } }
        do {
            defer { close(follower) }
            try process.run()
        }
        #expect(Self.firstLine(of: output.fileHandleForReading).hasPrefix("DBUS_SYSTEM_BUS_ADDRESS="))
        close(leader)
        leaderOpen = false
        process.terminate()
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let note = "ripple-bluez-sim: standard input is a terminal: --exit-when-stdin-closes does not watch it"
        #expect(said.hasPrefix(note), "\(said)")
        #expect(!said.contains("standard input closed"), "\(said)")
        #expect(said.contains("signal 15"), "\(said)")
        #expect(rest.hasPrefix("notifications sent: 0 "), "\(rest)")
    }

    @Test func aLifelineCutBeforeItServesStopsItInOrderOnceItDoes() throws {
        // Cut at once: the end of input arrives while the simulator is still starting, before it waits for
        // a reason to stop, and is kept until it does.
        let (process, output, errors, lifeline) = try Self.launch([])
        defer { if process.isRunning { process.terminate() } }
        lifeline.cut()
        let all = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(all.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=unix:"), "\(all)")
        #expect(all.contains("\nnotifications sent: 0 "), "\(all)")
        #expect(said.hasSuffix("ripple-bluez-sim: standard input closed: stopping\n"), "\(said)")
    }

    @Test func aStarterKilledBySIGKILLTakesTheSimulatorAndItsBusAlong() async throws {
        // The child process starts the simulator on a lifeline, tells its process id and bus address, and is
        // killed at once: nobody stops the simulator but the end of its standard input.
        let result = try #require(
            await #expect(processExitsWith: .signal(SIGKILL), observing: [\.standardOutputContent]) {
                let (process, output, _, lifeline) = try SimulatorExecutableTests.launch([])
                let first = SimulatorExecutableTests.firstLine(of: output.fileHandleForReading)
                let line = Array("\(process.processIdentifier) \(first)".utf8)
                _ = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
                withExtendedLifetime(lifeline) { _ = kill(getpid(), SIGKILL) }
            })
        let words = String(decoding: result.standardOutputContent, as: UTF8.self).split(separator: " ")
        let processID = try #require(words.first.flatMap { pid_t($0) })
        let socket = try #require(
            words.last?.split(separator: ",").first?.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=unix:path=".count)
                .description)
        let folder = (socket as NSString).deletingLastPathComponent
        #expect(folder.hasPrefix("/tmp/ripple-dbus-"))
        #expect(await ProcessEnd.within(30) { ProcessEnd.hasEnded(processID) }, "ripple-bluez-sim still runs")
        // The bus goes with it: its folder is removed once the daemon has exited.
        #expect(await ProcessEnd.within(30) { !FileManager.default.fileExists(atPath: folder) }, "\(folder) remains")
    }

    @Test func servesInTheOrderItIsGiven() throws {
        let (process, output, errors, lifeline) = try Self.launch(["--order", "shuffled:3"])
        defer { if process.isRunning { process.terminate() } }
        #expect(Self.firstLine(of: output.fileHandleForReading).hasPrefix("DBUS_SYSTEM_BUS_ADDRESS="))
        process.terminate()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(said.contains("signals in the order shuffled:3\n"), "\(said)")
        withExtendedLifetime(lifeline) {}
    }
}
