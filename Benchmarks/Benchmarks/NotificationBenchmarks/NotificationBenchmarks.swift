// End-to-end notification throughput, CPU cost and latency of BLE clients, side by side in one run.
//
// Each benchmark starts the simulated bluetoothd (`ripple-bluez-sim`) as a separate process on a private
// bus, serving peripherals whose stream characteristic sends `timestamped` notifications (a sequence
// number and the CLOCK_MONOTONIC send time), then runs one client process against it and reads the figures
// the client prints as JSON: `ripple-ble bench` (RippleBlueZ), the minimal C clients of
// Benchmarks/Peers/notification_peer.c (libdbus for StartNotify, a socket reader for AcquireNotify), and
// bleak (Benchmarks/Peers/bleak_peer.py). Every client measures its own CPU time from subscribing to the
// last notification, so the figures compare the clients' work, not their start-up.
//
// `Scripts/notification-benchmarks` builds the tools, sets the environment below, runs this target and
// turns the results file into the README's table and plot.
import Benchmark
import Foundation

let tools = BenchmarkTools.fromEnvironment()

let benchmarks: @Sendable () -> Void = {
    guard let tools else {
        FileHandle.standardError.write(
            Data(
                "NotificationBenchmarks: run through Scripts/notification-benchmarks (it sets RIPPLE_BENCH_* to the tools)\n"
                    .utf8))
        return
    }
    // One benchmark per scenario, whose runs take the clients in turn (Ripple, C, bleak, Ripple, …): the
    // machine's load, which drifts, weighs on every client alike. The figures are the clients' own, read
    // from the results file; the benchmark itself only times the whole.
    for scenario in Scenario.all(quick: tools.quick) {
        let clients = scenario.clients.filter(tools.has)
        Benchmark(
            scenario.name,
            configuration: .init(
                metrics: [.wallClock], warmupIterations: 0, scalingFactor: .one,
                maxDuration: .seconds(1200), maxIterations: scenario.iterations)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                for client in clients {
                    let figures = try ClientRun(scenario: scenario, client: client, tools: tools).perform()
                    try tools.append(figures: figures, scenario: scenario, client: client)
                }
            }
        }
    }
}
