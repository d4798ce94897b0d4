import Ripple
import RippleBlueZ
import RippleBlueZSimulator
import Synchronization

/// The disturbances of the soak, one tick a second while not paused: a link drop every 4 s (the lanes
/// in turn; their auto-reconnect policy brings the links back), a bluetoothd restart every 150 s, a scan
/// every 15 s (over discovery, then over the available peripherals, each with a body that awaits), and a
/// read a second on each lane.
final class SoakChaos: Sendable {
    private struct Counts {
        var linkDrops = 0
        var restarts = 0
        var scans = 0
        var seen = 0
        var reads = 0
        var failedReads = 0
        var failedActions: [String: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let paused = Atomic<Bool>(false)
    private let idle = Atomic<Bool>(true)

    /// Stops disturbing after the action under way (the sampler's quiet moment).
    func pause() { paused.store(true, ordering: .releasing) }
    /// Disturbs again.
    func resume() { paused.store(false, ordering: .releasing) }
    /// Whether no action is under way.
    var isIdle: Bool { idle.load(ordering: .acquiring) }

    /// A line of what was done so far.
    var summary: String {
        counts.withLock { counts in
            let failed = counts.failedActions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return "links dropped \(counts.linkDrops), restarts \(counts.restarts), scans \(counts.scans) "
                + "(\(counts.seen) seen), reads \(counts.reads) (\(counts.failedReads) failed)"
                + (failed.isEmpty ? "" : ", failed actions: \(failed.joined(separator: ", "))")
        }
    }

    /// Disturbs until the task is cancelled.
    ///
    /// - Parameters:
    ///   - simulator: the simulated bluetoothd.
    ///   - central: the central under test.
    ///   - lanes: the flooding peripherals.
    func run(simulator: BlueZSimulator, central: Central, lanes: [SoakLane]) async {
        var tick = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            guard !paused.load(ordering: .acquiring) else { continue }
            idle.store(false, ordering: .releasing)
            tick += 1
            if tick % 4 == 0, let lane = lanes.isEmpty ? nil : lanes[(tick / 4) % lanes.count] {
                await act("link drop") { () async throws in
                    try await simulator.disconnect(peripheral: lane.address, reason: .remote)
                }
                counts.withLock { $0.linkDrops += 1 }
            }
            if tick % 150 == 75 {
                await act("restart") { () async throws in try await simulator.restart(downtime: .milliseconds(300)) }
                counts.withLock { $0.restarts += 1 }
            }
            if tick % 15 == 0 {
                let seen = await scan(central, overList: tick % 30 == 0)
                counts.withLock {
                    $0.scans += 1
                    $0.seen += seen
                }
            }
            for lane in lanes {
                await read(lane, on: central)
            }
            idle.store(true, ordering: .releasing)
        }
    }

    private func act(_ name: String, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            counts.withLock { $0.failedActions[name, default: 0] += 1 }
        }
    }

    /// Reads the lane's flood characteristic (on the bus lane, this runs the read-echo rule against the
    /// flood), when the peripheral is connected.
    private func read(_ lane: SoakLane, on central: Central) async {
        guard let peripheral = central.peripheral(address: lane.address), peripheral.isConnected else { return }
        do {
            _ = try await peripheral.readValue(SoakWorld.floodReference)
            counts.withLock { $0.reads += 1 }
        } catch {
            counts.withLock {
                $0.reads += 1
                $0.failedReads += 1
            }
        }
    }

    /// Scans for 1 s with a `for try await` loop whose body awaits, over discovery or over the list of
    /// available peripherals; returns how many peripherals it saw.
    private func scan(_ central: Central, overList: Bool) async -> Int {
        await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                var seen = Set<BluetoothAddress>()
                do {
                    if overList {
                        for try await list in central.availablePeripherals().values {
                            seen.formUnion(list.map(\.address))
                            await central.loop.perform {}
                        }
                    } else {
                        for try await discovery in central.startDiscovery().values {
                            seen.insert(discovery.address)
                            await central.loop.perform {}
                        }
                    }
                } catch {}
                return seen.count
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(1))
                return nil
            }
            var seen = 0
            while let next = await group.next() {
                if let count = next { seen = count }
                group.cancelAll()
            }
            return seen
        }
    }
}
