#!/usr/bin/env python3
"""Turns the notification benchmarks' results (JSON lines, one per client run, written by the
NotificationBenchmarks target) into a Markdown table with the goals checked, and a PNG plot of
notifications per second and client CPU per notification for each client and path.

    notification-report.py RESULTS.jsonl --table OUT.md --plot OUT.png --machine "…"

Figures of repeated runs are medians, with their spread (lowest–highest) beside the main ones; loss and
reordering are summed over the runs.
"""
import argparse
import collections
import json
import statistics

ORDER = {"Ripple": 0, "C libdbus": 1, "C socket": 1, "bleak": 2}


def load(path):
    runs = collections.defaultdict(list)
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line:
                run = json.loads(line)
                runs[(run["scenario"], run["client"])].append(run)
    merged = {}
    for key, group in runs.items():
        first = dict(group[0])
        for field in ("rate", "cpu_ns_per_notification", "latency_p50_us", "latency_p99_us", "latency_max_us"):
            values = [run[field] for run in group if field in run]
            if values:
                first[field] = statistics.median(values)
                first[field + "_spread"] = (min(values), max(values))
        first["lost"] = sum(run.get("lost", 0) for run in group)
        first["reordered"] = sum(run.get("reordered", 0) for run in group)
        first["dropped"] = sum(run.get("dropped", 0) for run in group)
        first["runs"] = len(group)
        # The path the client reports it used (`transport`); a scenario whose runs took different paths is
        # neither's, and shows under neither.
        if len({run.get("transport") for run in group}) > 1:
            first["transport"] = "mixed"
        merged[key] = first
    return list(merged.values())


def pick(runs, **fields):
    return sorted(
        (run for run in runs if all(run.get(key) == value for key, value in fields.items())),
        key=lambda run: (ORDER.get(run["client"], 9), run["client"]))


def micro(ns):
    return f"{ns / 1000:.2f}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


def table(runs, machine):
    lines = [f"Measured {machine}; the simulator, its dbus-daemon and the client share the machine's CPUs as the "
             "scheduler places them (pinning them apart made every client's wake-up latency worse on this "
             "virtual machine: an idle vCPU takes up to a millisecond to wake).", ""]
    ceilings = {"bus": "C libdbus", "socket": "C socket"}
    lines += [
        "**Throughput and cost** (one peripheral sending as fast as the path takes; client CPU time from "
        "subscribing to the last notification, per notification; median of the runs, the runs taking the "
        "clients in turn, and the lowest–highest of them):", "",
        "| path | payload | client | runs | notifications/s | client CPU µs/notification | spread µs | × C ceiling | × bleak | lost + reordered |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for transport in ("socket", "bus"):
        for size in (20, 244):
            group = pick(runs, transport=transport, payload_bytes=size, pace="flood", peripherals=1)
            by_client = {run["client"]: run for run in group}
            ceiling = by_client.get(ceilings[transport], {}).get("cpu_ns_per_notification")
            bleak = by_client.get("bleak", {}).get("cpu_ns_per_notification")
            for run in group:
                cpu = run["cpu_ns_per_notification"]
                path = "AcquireNotify (socket)" if transport == "socket" else "StartNotify (D-Bus)"
                low, high = run["cpu_ns_per_notification_spread"]
                lines.append(
                    f"| {path} | {size} B | {run['client']} | {run['runs']} | {run['rate']:,.0f} | {micro(cpu)} | "
                    f"{micro(low)}–{micro(high)} | {ratio(cpu, ceiling)} | {ratio(cpu, bleak)} | "
                    f"{run['lost'] + run['reordered'] + run['dropped']} |")
    lines += [
        "", "**Latency** (20-byte notifications paced by the simulator; send time stamped in the payload, "
        "same machine clock; median of the runs, p99's lowest–highest beside it):", "",
        "| path | rate | client | runs | p50 µs | p99 µs | p99 spread µs | max µs | lost + reordered |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for transport in ("socket", "bus"):
        for rate in (2000, 10000):
            for run in pick(runs, transport=transport, pace=rate, peripherals=1):
                path = "socket" if transport == "socket" else "D-Bus"
                low, high = run.get("latency_p99_us_spread", (0, 0))
                lines.append(
                    f"| {path} | {rate:,}/s | {run['client']} | {run['runs']} | {run.get('latency_p50_us', 0):.1f} | "
                    f"{run.get('latency_p99_us', 0):.1f} | {low:.1f}–{high:.1f} | {run.get('latency_max_us', 0):.1f} | "
                    f"{run['lost'] + run['reordered'] + run['dropped']} |")
    lines += [
        "", "**Scale** (20-byte notifications from 1, 8 and 32 peripherals at once, as fast as they go):", "",
        "| path | client | peripherals | notifications/s | client CPU µs/notification |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for transport in ("socket", "bus"):
        for client in ("Ripple", ceilings[transport]):
            for count in (1, 8, 32):
                for run in pick(runs, transport=transport, payload_bytes=20, pace="flood", peripherals=count, client=client):
                    path = "socket" if transport == "socket" else "D-Bus"
                    lines.append(
                        f"| {path} | {client} | {count} | {run['rate']:,.0f} | {micro(run['cpu_ns_per_notification'])} |")
    lines += ["", "**Goals**:", ""] + goals(runs)
    # Rows go by the path the client used: a run that asked for the socket and fell back to StartNotify
    # counts as a bus run (or as neither, when its repeats differed); say so rather than hide it.
    other = [run for run in runs if run.get("requested_transport", run.get("transport")) != run.get("transport")]
    if other:
        lines += ["", "**Runs that took another path than the one asked for**:", ""]
        lines += [f"- {run['scenario']}, {run['client']}: asked for {run['requested_transport']}, took "
                  f"{run['transport']}" for run in sorted(other, key=lambda run: (run["scenario"], run["client"]))]
    return "\n".join(lines) + "\n"


def figure(runs, **fields):
    found = pick(runs, **fields)
    return found[0] if found else None


def goals(runs):
    def cpu(client, transport, size=20):
        run = figure(runs, client=client, transport=transport, payload_bytes=size, pace="flood", peripherals=1)
        return run["cpu_ns_per_notification"] if run else None

    def p99(client, transport):
        run = figure(runs, client=client, transport=transport, pace=2000, peripherals=1)
        return run.get("latency_p99_us") if run else None

    def check(text, value, limit, unit=""):
        if value is None:
            return f"- {text}: not measured"
        return f"- {text}: {value:.2f}{unit} (goal {limit}{unit}) — {'met' if value <= limit else 'missed'}"

    lines = []
    for size in (20, 244):
        ripple_bus, c_bus, bleak_bus = cpu("Ripple", "bus", size), cpu("C libdbus", "bus", size), cpu("bleak", "bus", size)
        ripple_socket, c_socket, bleak_socket = (
            cpu("Ripple", "socket", size), cpu("C socket", "socket", size), cpu("bleak", "socket", size))
        lines.append(check(f"D-Bus path, {size} B: Ripple's CPU per notification ÷ the C libdbus client's",
                           ripple_bus / c_bus if ripple_bus and c_bus else None, 1.1, "×"))
        lines.append(check(f"D-Bus path, {size} B: Ripple ÷ bleak",
                           ripple_bus / bleak_bus if ripple_bus and bleak_bus else None, 1.0, "×"))
        lines.append(check(f"socket path, {size} B: Ripple ÷ the C socket reader",
                           ripple_socket / c_socket if ripple_socket and c_socket else None, 1.5, "×"))
        lines.append(check(f"socket path, {size} B: Ripple ÷ bleak",
                           ripple_socket / bleak_socket if ripple_socket and bleak_socket else None, 0.4, "×"))
    ripple_p99, c_p99 = p99("Ripple", "socket"), p99("C socket", "socket")
    lines.append(check("socket path, p99 latency at 2,000/s: Ripple ÷ the C socket reader (medians of the runs)",
                       ripple_p99 / c_p99 if ripple_p99 and c_p99 else None, 1.5, "×"))
    lines.append(check("p99 latency at 2,000/s, D-Bus path, Ripple", p99("Ripple", "bus"), 500, " µs"))
    lines.append(check("p99 latency at 2,000/s, socket path, Ripple", p99("Ripple", "socket"), 100, " µs"))
    for transport in ("socket", "bus"):
        costs = []
        for count in (1, 8, 32):
            run = figure(runs, client="Ripple", transport=transport, payload_bytes=20, pace="flood", peripherals=count)
            costs.append(run["cpu_ns_per_notification"] if run else None)
        if all(costs):
            lines.append(f"- {transport} path, Ripple's CPU per notification at 1/8/32 peripherals: "
                         + " / ".join(f"{value / 1000:.2f} µs" for value in costs)
                         + f" ({costs[2] / costs[0]:.2f}× from 1 to 32)")
    return lines


def plot(runs, path, machine):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = [("socket", "AcquireNotify (socket)"), ("bus", "StartNotify (D-Bus)")]
    clients = ["Ripple", "C", "bleak"]
    colours = {"Ripple": "#1f77b4", "C": "#7f7f7f", "bleak": "#ff7f0e"}
    figure_, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.25
    for axis, metric, label in (
        (axes[0], "rate", "notifications per second"),
        (axes[1], "cpu_ns_per_notification", "client CPU µs per notification"),
    ):
        for offset, client in enumerate(clients):
            values = []
            for transport, _ in groups:
                name = client if client != "C" else ("C socket" if transport == "socket" else "C libdbus")
                run = figure(runs, client=name, transport=transport, payload_bytes=20, pace="flood", peripherals=1)
                value = run[metric] if run else 0
                values.append(value / 1000 if metric == "cpu_ns_per_notification" else value)
            positions = [index + (offset - 1) * width for index in range(len(groups))]
            bars = axis.bar(positions, values, width, label=client if client != "C" else "C (libdbus / socket reader)",
                            color=colours[client])
            axis.bar_label(bars, fmt="%.3g", fontsize=7)
        axis.set_xticks(range(len(groups)), [title for _, title in groups])
        axis.set_ylabel(label)
        axis.set_yscale("log")
        axis.set_title(label + " (20-byte notifications)", fontsize=10)
    axes[0].legend(fontsize=8)
    figure_.suptitle(f"Notification throughput against the simulated bluetoothd — {machine}", fontsize=9)
    figure_.tight_layout()
    figure_.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--table", required=True)
    parser.add_argument("--plot", required=True)
    parser.add_argument("--machine", required=True)
    arguments = parser.parse_args()
    runs = load(arguments.results)
    text = table(runs, arguments.machine)
    with open(arguments.table, "w") as handle:
        handle.write(text)
    plot(runs, arguments.plot, arguments.machine)
    print(text)


if __name__ == "__main__":
    main()
