import Foundation
import Ripple
import RippleDBus
import RippleLoop
import Testing

@testable import RippleBlueZSimulator

/// `ripple-bluez-sim` as a process: it prints the bus address first, serves org.bluez and the control
/// service there, and stops in order on SIGTERM.
@Suite struct SimulatorExecutableTests {
    /// Reads standard output up to the first newline (blocking; the process writes the line at once).
    private static func firstLine(of handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Starts `ripple-bluez-sim` with `arguments`, its standard output and error piped.
    private static func launch(_ arguments: [String]) throws -> (process: Process, output: Pipe, errors: Pipe) {
        let process = Process()
        process.executableURL = SimulatorCommand.executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    @Test func servesTheWorldAndTheControlServiceUntilSIGTERM() async throws {
        let (process, output, _) = try Self.launch([
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
    }

    @Test func servesInTheOrderItIsGiven() throws {
        let (process, output, errors) = try Self.launch(["--order", "shuffled:3"])
        defer { if process.isRunning { process.terminate() } }
        #expect(Self.firstLine(of: output.fileHandleForReading).hasPrefix("DBUS_SYSTEM_BUS_ADDRESS="))
        process.terminate()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(said.contains("signals in the order shuffled:3\n"), "\(said)")
    }
}
