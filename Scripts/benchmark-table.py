#!/usr/bin/env python3
"""Prints the Ripple-versus-OpenCombine table from ordo-one/benchmark's `histogramPercentiles` output.

Each benchmark is named "<framework> | <pipeline> | <elements per iteration>"; the median (p50) wall-clock
time and malloc count of one iteration are divided by the elements to give per-element figures.

The D-Bus benchmarks ("RippleDBus" against "libdbus C", a minimal C client on the same bus) are printed as
throughput: operations (signals received, round trips) per second on each side, and RippleDBus's share of
the C ceiling, by wall-clock time and by the CPU time of the benchmark process (the receiver's own work:
the dbus-daemon's is not in it).

The simulator's benchmark (SimulatorBenchmarks) is printed as its AcquireNotify throughput and the CPU time
its emitter thread spends per notification.
"""
import collections
import glob
import os
import re
import sys

UNITS = {"ns": 1, "μs": 1_000, "us": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "K": 1_000, "M": 1_000_000, "G": 1_000_000_000}


def median(path):
    with open(path) as handle:
        header = handle.readline()
        scale = 1
        unit = re.search(r"\((ns|μs|us|ms|s|K|M|G)\)", header)
        if unit:
            scale = UNITS[unit.group(1)]
        for line in handle:
            percentile, value = line.split("\t")
            if percentile.strip() == "50":
                return float(value) * scale
    return None


# Each measured side and the peer it is compared with in the same run.
PAIRS = [("Ripple", "OpenCombine"), ("EventLoop", "DispatchQueue")]

# Measured against a ceiling: throughput, and the subject's share of the peer's.
CEILING_PAIRS = [("RippleDBus", "libdbus C")]

# Cases whose peer row is another case's (the C client has one way to make blocking round trips).
PEER_CASE = {"dbus-roundtrip-blocking": "dbus-roundtrip"}

# What one element of a case is, for the throughput tables.
OPERATION = {"dbus-signals": "signals", "dbus-roundtrip": "round trips", "dbus-roundtrip-blocking": "round trips"}


def main(folder):
    rows = collections.defaultdict(dict)
    pattern = re.compile(r"\.([A-Za-z][A-Za-z_]*?)_\|_(.+)_\|_(\d+)\.(wallClock|cpuTotal|mallocCountTotal)\.histogram")
    for path in glob.glob(os.path.join(folder, "*.tsv")):
        match = pattern.search(os.path.basename(path))
        if not match:
            continue
        side, case, elements, metric = match.groups()
        value = median(path)
        if value is None:
            continue
        rows[case.replace("_", " ")].setdefault(side.replace("_", " "), {})[metric] = value / int(elements)

    cell = lambda value, digits: "—" if value is None else f"{value:.{digits}f}"
    # Times below 10 ns get more decimals, so that eagerly folded pipelines still show a ratio.
    time_cell = lambda value: cell(value, 1 if value is None or value >= 10 else 3)
    for subject, peer in PAIRS:
        cases = sorted(case for case in rows if subject in rows[case] or peer in rows[case])
        if not cases:
            continue
        print(f"| {subject} vs {peer} | {subject} ns/element | {peer} ns/element | {subject} speed-up "
              f"| {subject} mallocs/element | {peer} mallocs/element |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for case in cases:
            ours, theirs = rows[case].get(subject, {}), rows[case].get(peer, {})
            time_ours, time_theirs = ours.get("wallClock"), theirs.get("wallClock")
            ratio = f"{time_theirs / time_ours:.2f}×" if time_ours and time_theirs else "—"
            print(
                f"| {case} | {time_cell(time_ours)} | {time_cell(time_theirs)} | {ratio} | "
                f"{cell(ours.get('mallocCountTotal'), 3)} | {cell(theirs.get('mallocCountTotal'), 3)} |"
            )
        print()
    for subject, peer in CEILING_PAIRS:
        print_ceiling_table(rows, subject, peer, cell)
    print_simulator_table(folder)


def print_simulator_table(folder):
    """The simulator's own figures: AcquireNotify notifications per second and emitter CPU per
    notification (p50), from SimulatorBenchmarks' custom metrics."""
    found = {}
    for path in glob.glob(os.path.join(folder, "*SimulatorBenchmarks.*.tsv")):
        name = os.path.basename(path)
        for metric in ("notifications_s", "emitter_CPU_ns_notification", "cpuTotal"):
            if f".{metric}.histogram" in name:
                case = name.split("SimulatorBenchmarks.", 1)[1].split(f".{metric}.", 1)[0].replace("_", " ")
                found.setdefault(case, {})[metric] = median(path)
    if not found:
        return
    print("| simulator | notifications/s (p50) | emitter CPU ns/notification (p50) |")
    print("| --- | ---: | ---: |")
    for case, metrics in sorted(found.items()):
        rate, cpu = metrics.get("notifications_s"), metrics.get("emitter_CPU_ns_notification")
        print(f"| {case} | {'—' if rate is None else f'{rate:,.0f}'} | {'—' if cpu is None else f'{cpu:.0f}'} |")
    print()


def print_ceiling_table(rows, subject, peer, cell):
    """One row per case the subject measured: its throughput beside the peer's, and its share of it."""
    cases = sorted(case for case in rows if subject in rows[case])
    if not cases:
        return
    print(f"| {subject} vs {peer} | {subject} ns/op | {peer} ns/op | {subject} ops/s | {peer} ops/s "
          f"| % of ceiling | {subject} CPU ns/op | {peer} CPU ns/op | % of ceiling (CPU) "
          f"| {subject} mallocs/op | {peer} mallocs/op |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    per_second = lambda time: "—" if not time else f"{1e9 / time:,.0f}"
    for case in cases:
        ours = rows[case][subject]
        theirs = rows.get(PEER_CASE.get(case, case), {}).get(peer, {})
        time_ours, time_theirs = ours.get("wallClock"), theirs.get("wallClock")
        cpu_ours, cpu_theirs = ours.get("cpuTotal"), theirs.get("cpuTotal")
        share = lambda mine, peers: f"{100 * peers / mine:.0f}%" if mine and peers else "—"
        label = f"{case} ({OPERATION.get(case, 'operations')})"
        print(
            f"| {label} | {cell(time_ours, 0)} | {cell(time_theirs, 0)} | {per_second(time_ours)} | "
            f"{per_second(time_theirs)} | {share(time_ours, time_theirs)} | {cell(cpu_ours, 0)} | "
            f"{cell(cpu_theirs, 0)} | {share(cpu_ours, cpu_theirs)} | {cell(ours.get('mallocCountTotal'), 2)} | "
            f"{cell(theirs.get('mallocCountTotal'), 2)} |"
        )
    print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
