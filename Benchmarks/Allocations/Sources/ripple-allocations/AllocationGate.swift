import AllocationCounter

#if canImport(Glibc)
import Glibc
#endif

/// `ripple-allocations [--limits FILE] [--record] [--filter TEXT]`: counts the heap allocations of the benchmark
/// pipelines and the notification receive paths, prints them beside their limits, and exits 1 when one is
/// above its limit (or has none). `--record` writes the figures as the new limits instead; `--filter` keeps
/// the measurements whose name contains the text.
@main
struct AllocationGate {
    static func main() async {
        // Dictionaries and sets lay out their elements by a seed drawn per process, and which of their
        // elements are visited first changes how some operators release their sources (and so how many
        // allocations a run makes): the counts are taken with the seed fixed, in a process started so.
        if getenv("SWIFT_DETERMINISTIC_HASHING") == nil {
            setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
            execv("/proc/self/exe", CommandLine.unsafeArgv)
            exitWith("ripple-allocations: could not start again with SWIFT_DETERMINISTIC_HASHING set", status: 1)
        }
        var limitsPath = "limits.txt"
        var recording = false
        var filter: String?
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--limits": limitsPath = arguments.popFirst() ?? limitsPath
            case "--record": recording = true
            case "--filter": filter = arguments.popFirst()
            default: exitWith("usage: ripple-allocations [--limits FILE] [--record] [--filter TEXT]", status: 64)
            }
        }
        guard allocation_counter_is_active() != 0 else {
            exitWith(
                "ripple-allocations: built under a sanitizer, which brings its own malloc: nothing to count", status: 77
            )
        }
        let selected = { (name: String) in filter.map { name.contains($0) } ?? true }

        var measurements: [Measurement] = []
        for pipeline in pipelines() where selected(pipeline.name) {
            let count = PipelineCount.measure(pipeline)
            measurements.append(
                Measurement(
                    name: pipeline.name, perElement: count.perElement, perPipeline: count.perPipeline, variation: .none)
            )
        }
        if NotificationRig.paths.contains(where: { selected("notifications \($0.name)") }) {
            guard allocation_counter_attribute("libdbus-1.so") != 0 else {
                exitWith("ripple-allocations: libdbus is not loaded", status: 1)
            }
            do {
                let rig = try await NotificationRig.start()
                for path in NotificationRig.paths where selected("notifications \(path.name)") {
                    let count = try await rig.measure(path)
                    if path.transport == .bus {
                        measurements.append(
                            Measurement(
                                name: "notifications \(path.name): all but libdbus", perElement: count.rest,
                                perPipeline: nil, variation: .relative(0.05)))
                        measurements.append(
                            Measurement(
                                name: "notifications \(path.name): libdbus", perElement: count.libdbus,
                                perPipeline: nil, variation: .relative(0.3)))
                    } else {
                        // What a read of the socket allocates is shared by the notifications it brings.
                        measurements.append(
                            Measurement(
                                name: "notifications \(path.name)", perElement: count.all, perPipeline: nil,
                                variation: .relative(0.1)))
                    }
                }
                await rig.stop()
            } catch {
                exitWith("ripple-allocations: the notification paths could not be measured: \(error)", status: 1)
            }
        }

        if recording {
            do {
                try writeText(Limits.text(recording: measurements), to: limitsPath)
            } catch {
                exitWith("ripple-allocations: \(error)", status: 1)
            }
            print("recorded \(measurements.count) limits in \(limitsPath)")
            return
        }
        let limits: Limits
        do {
            limits = try Limits(contentsOf: limitsPath)
        } catch {
            exitWith("ripple-allocations: \(error)", status: 1)
        }
        exit(report(measurements, against: limits) ? 0 : 1)
    }

    /// Prints each measurement beside its limit; returns whether all are within their limits.
    static func report(_ measurements: [Measurement], against limits: Limits) -> Bool {
        print("\(pad("allocations", 44)) \(pad("per element", 20)) \(pad("per pipeline", 24)) verdict")
        var failures = 0
        for measurement in measurements {
            guard let limit = limits.byName[measurement.name] else {
                print("\(pad(measurement.name, 44)) \(pad(format(measurement.perElement), 20)) no limit recorded: FAIL")
                failures += 1
                continue
            }
            // The limits have three decimals; the measurements are exact counts divided.
            let within = { (measured: Double, limit: Double) in measured <= limit + 0.0005 }
            let elementOK = within(measurement.perElement, limit.perElement)
            var pipelineOK = true
            if let measured = measurement.perPipeline, let allowed = limit.perPipeline {
                pipelineOK = within(measured, allowed)
            }
            // Below its limit (a deterministic count only): recording now would lower the limit.
            let recorded = Limits.Limit(
                perElement: Limits.limit(for: measurement.perElement, measurement.variation),
                perPipeline: measurement.perPipeline.map { Limits.limit(for: $0, measurement.variation) })
            let isExact = if case .none = measurement.variation { true } else { false }
            let lowerPerPipeline =
                recorded.perPipeline.map { recorded in limit.perPipeline.map { recorded < $0 - 0.0005 } ?? false }
                ?? false
            let lower = isExact && (recorded.perElement < limit.perElement - 0.0005 || lowerPerPipeline)
            let perElement = "\(format(measurement.perElement)) ≤ \(format(limit.perElement))"
            let perPipeline =
                measurement.perPipeline.map { measured in
                    "\(format(measured)) ≤ \(limit.perPipeline.map(format) ?? "-")"
                } ?? "-"
            let verdict = elementOK && pipelineOK ? (lower ? "ok, below its limit" : "ok") : "ABOVE ITS LIMIT: FAIL"
            if !(elementOK && pipelineOK) { failures += 1 }
            print("\(pad(measurement.name, 44)) \(pad(perElement, 20)) \(pad(perPipeline, 24)) \(verdict)")
        }
        if failures > 0 {
            print(
                "\(failures) above their limits (Benchmarks/Allocations/limits.txt). A deliberate rise: record it with "
                    + "Scripts/check-allocations --record and say why in the commit.")
        }
        return failures == 0
    }

    /// Prints `message` on standard error and exits with `status`.
    static func exitWith(_ message: String, status: Int32) -> Never {
        let text = message + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
        exit(status)
    }
}
