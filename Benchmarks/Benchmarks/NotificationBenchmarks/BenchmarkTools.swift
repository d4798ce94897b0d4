import Foundation

/// Where the programs a run needs are, from the environment `Scripts/notification-benchmarks` sets.
struct BenchmarkTools: Sendable {
    /// `ripple-bluez-sim`.
    let simulator: String
    /// `ripple-ble`.
    let rippleBLE: String
    /// The compiled `notification_peer` (both C clients), if built.
    let cPeer: String?
    /// A Python with bleak installed, and the bleak client script, if set up.
    let python: String?
    let bleakPeer: String?
    /// The JSON-lines file each run's figures are appended to.
    let results: String
    /// Where the processes' standard error goes.
    let logs: String
    /// Smaller counts, one iteration: a quick check that everything runs.
    let quick: Bool

    /// The tools named by `RIPPLE_BENCH_*`, or nil when the simulator or `ripple-ble` is not named.
    static func fromEnvironment() -> BenchmarkTools? {
        let environment = ProcessInfo.processInfo.environment
        guard let simulator = environment["RIPPLE_BENCH_SIMULATOR"],
            let rippleBLE = environment["RIPPLE_BENCH_RIPPLE_BLE"]
        else { return nil }
        return BenchmarkTools(
            simulator: simulator, rippleBLE: rippleBLE, cPeer: environment["RIPPLE_BENCH_C_PEER"],
            python: environment["RIPPLE_BENCH_PYTHON"], bleakPeer: environment["RIPPLE_BENCH_BLEAK_PEER"],
            results: environment["RIPPLE_BENCH_RESULTS"] ?? "/tmp/ripple-notification-benchmarks.jsonl",
            logs: environment["RIPPLE_BENCH_LOGS"] ?? NSTemporaryDirectory(),
            quick: environment["RIPPLE_BENCH_QUICK"] == "1")
    }

    /// Whether `client` can run here.
    func has(_ client: Client) -> Bool {
        switch client {
        case .ripple: true
        case .cLibDBus, .cSocket: cPeer != nil
        case .bleak: python != nil && bleakPeer != nil
        }
    }

    /// Appends a run's figures, with what was measured, to the results file.
    func append(figures: Figures, scenario: Scenario, client: Client) throws {
        var object = figures.object
        object["scenario"] = scenario.name
        object["client"] = client.rawValue
        // The path the client reports it used (`ripple-ble bench` reads bluetoothd's NotifyAcquired), which
        // the report groups by; the scenario's is what was asked for.
        object["requested_transport"] = scenario.transport
        if object["transport"] as? String == nil { object["transport"] = scenario.transport }
        object["payload_bytes"] = scenario.payloadSize
        object["peripherals"] = scenario.peripherals
        switch scenario.pace {
        case .flood: object["pace"] = "flood"
        case .paced(let rate): object["pace"] = Int(rate)
        }
        let line = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) + Data("\n".utf8)
        if !FileManager.default.fileExists(atPath: results) {
            _ = FileManager.default.createFile(atPath: results, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: results) else {
            throw BenchmarkFailure("cannot write \(results)")
        }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
    }
}
