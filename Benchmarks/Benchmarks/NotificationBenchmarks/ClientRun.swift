import Foundation
import RippleBluetooth

#if canImport(Glibc)
import Glibc
#endif

/// One measurement: a simulator process serving the scenario's world, one client process against it.
struct ClientRun {
    let scenario: Scenario
    let client: Client
    let tools: BenchmarkTools

    static let serviceUUID = "52495054-0000-4000-8000-0000000000b0"
    static let streamUUID = "52495054-0000-4000-8000-0000000000b1"

    /// The address of peripheral number `index`: `C0:FF:EE:10:00:00` on, one per peripheral.
    static func address(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(rawValue: 0xC0_FF_EE_10_00_00 + UInt64(index))
    }

    /// Runs the simulator and the client; returns the client's figures.
    func perform() throws -> Figures {
        let world = try writeWorld()
        defer { try? FileManager.default.removeItem(atPath: world) }
        let simulator = Process()
        simulator.executableURL = URL(fileURLWithPath: tools.simulator)
        // Its standard input is a socket whose other end only this process holds: however this process ends
        // (a killed benchmark run too), the simulator and its bus end with it.
        simulator.arguments = ["--world", world, "--exit-when-stdin-closes"]
        var lifeline: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &lifeline) == 0 else {
            throw BenchmarkFailure("socketpair: \(String(cString: strerror(errno)))")
        }
        defer { close(lifeline[1]) }
        simulator.standardInput = FileHandle(fileDescriptor: lifeline[0], closeOnDealloc: false)
        let simulatorOutput = Pipe()
        simulator.standardOutput = simulatorOutput
        simulator.standardError = try log("simulator")
        do {
            defer { close(lifeline[0]) }
            try simulator.run()
        }
        defer {
            if simulator.isRunning {
                simulator.terminate()
                simulator.waitUntilExit()
            }
        }
        let firstLine = Self.readLine(simulatorOutput.fileHandleForReading.fileDescriptor)
        // Read by now: removed at once, so that a run killed while it measures leaves no file behind.
        try? FileManager.default.removeItem(atPath: world)
        guard firstLine.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") else {
            throw BenchmarkFailure("the simulator printed \"\(firstLine)\" instead of its bus address")
        }
        let address = String(firstLine.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))

        let process = Process()
        let (executable, arguments) = command()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        environment["PYTHONUNBUFFERED"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try log(client.rawValue.replacingOccurrences(of: " ", with: "-"))
        try process.run()
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        // 3: the client saw loss or reordering; the figures say how much.
        guard process.terminationStatus == 0 || process.terminationStatus == 3 else {
            throw BenchmarkFailure(
                "\(client.rawValue) exited with \(process.terminationStatus) in \(scenario.name) (logs in \(tools.logs))"
            )
        }
        return try Figures(output: printed)
    }

    /// The client's command line.
    private func command() -> (String, [String]) {
        let addresses = (0..<scenario.peripherals).map { Self.address($0).description }
        let count = String(scenario.countPerPeripheral * scenario.peripherals)
        switch client {
        case .ripple:
            return (
                tools.rippleBLE,
                [
                    "bench", "--real", "--quiet", "--json", "--payload", "timestamped",
                    "--transport", scenario.transport == "socket" ? "auto" : "bus", "--count", count,
                    addresses[0], Self.streamUUID,
                ] + addresses.dropFirst().flatMap { ["--also", $0] }
            )
        case .cLibDBus, .cSocket:
            return (
                tools.cPeer ?? "",
                ["--transport", scenario.transport, "--count", count, "--characteristic", Self.streamUUID] + addresses
            )
        case .bleak:
            return (
                tools.python ?? "",
                [
                    tools.bleakPeer ?? "", "--transport", scenario.transport, "--count", count,
                    "--characteristic", Self.streamUUID,
                ] + addresses
            )
        }
    }

    /// Writes the scenario's world to a temporary file; returns its path.
    private func writeWorld() throws -> String {
        var notifications: [String: Any] = [
            "count": scenario.countPerPeripheral, "payload": "timestamped", "size": scenario.payloadSize,
        ]
        if let rate = scenario.ratePerPeripheral { notifications["rate"] = rate }
        let peripherals: [[String: Any]] = (0..<scenario.peripherals).map { index in
            [
                "address": Self.address(index).description, "name": "Ripple Stream \(index)", "rssi": -50,
                "rssiVariation": 4,
                "known": true,
                "advertisedServices": [Self.serviceUUID],
                "services": [
                    [
                        "uuid": Self.serviceUUID,
                        "characteristics": [
                            ["uuid": Self.streamUUID, "flags": ["notify"], "notifications": notifications]
                        ],
                    ]
                ],
            ]
        }
        let world: [String: Any] = [
            "description": "Notification benchmark: \(scenario.name)",
            "adapters": [["name": "hci0", "address": "00:1A:7D:DA:71:13", "powered": true]],
            "peripherals": peripherals,
        ]
        let path = NSTemporaryDirectory() + "ripple-bench-world-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
        try JSONSerialization.data(withJSONObject: world, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A log file for `name`'s standard error, in the logs directory.
    private func log(_ name: String) throws -> FileHandle {
        try FileManager.default.createDirectory(atPath: tools.logs, withIntermediateDirectories: true)
        let path = tools.logs + "/" + name + ".log"
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw BenchmarkFailure("cannot write \(path)") }
        try handle.seekToEnd()
        return handle
    }

    /// Reads one line (without its newline) from `descriptor`, byte by byte, so that nothing after it is
    /// consumed; empty at end of file.
    private static func readLine(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
