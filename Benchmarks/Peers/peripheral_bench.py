"""Notifications per second and CPU per notification of a BLE peripheral: the Ripple peripheral
(`ripple-ble serve`, RippleBlueZ's PeripheralManager) and a minimal Python one on dbus-fast
(dbusfast_peripheral.py), side by side in one run, on both of the peripheral's paths to bluetoothd: an
acquired socket (AcquireNotify) and Value changes on the bus (PropertiesChanged).

Started by Scripts/peripheral-benchmarks. For each run, peer and path: the peripheral registers on hci1
and, once a central subscribes, sends --count numbered 20-byte notifications as fast as the path takes
them; `ripple-ble bench` on hci0 (the same central for every peer: over its own socket where bluetoothd
offers AcquireNotify, over the bus on the simulator, which offers a central StartNotify only) connects,
receives them all and reports its rate (first to last notification). The peripheral's CPU time (user +
system, from /proc) includes nothing of the connection: it is read when the central starts measuring (subscribing) and when it is done.

--simulated: against the simulator (`ripple-ble sim`, two adapters on a private bus); otherwise against
bluetoothd on the system bus (inside Scripts/bluez-guest). There the central starts scanning before the
peripheral starts advertising: the guest's virtual controllers (btvirt) report an advertisement once, when
it starts or when a scan starts, and the guest's kernel (6.1) drops a report that comes while its
discovery is still starting, so an advertisement already on when the central starts scanning is never seen.
--bus-rate paces both peripherals' PropertiesChanged path at that many notifications a second (bluetoothd
queues an unpaced burst of Value changes without bound, and what it does with them is not the peripheral's
cost; on the simulator, the same offered load for both); the socket path is never paced: the socket's
room paces it. The peripheral's
output is kept: a failed measurement prints it, and the table names its last line. The central stops after --duration
seconds at the latest, so a run that loses notifications ends with the count it got. Prints one JSON line
per measurement, then a Markdown table of the medians (--table writes it to a file too).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

STREAM = "52495054-0000-4000-8000-0000000000b1"
HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def adapter_address(name, environment):
    output = subprocess.run(
        ["dbus-send", "--system", "--print-reply=literal", "--dest=org.bluez", f"/org/bluez/{name}",
         "org.freedesktop.DBus.Properties.Get", "string:org.bluez.Adapter1", "string:Address"],
        env=environment, capture_output=True, text=True, check=True).stdout
    return output.split()[-1]


def forget(environment, central_address, peripheral_address):
    """Removes each adapter's device object for the other, so that no run finds the last one's cache."""
    for adapter, address in (("hci0", peripheral_address), ("hci1", central_address)):
        subprocess.run(
            ["dbus-send", "--system", "--print-reply", "--dest=org.bluez", f"/org/bluez/{adapter}",
             "org.bluez.Adapter1.RemoveDevice", f"objpath:/org/bluez/{adapter}/dev_{address.replace(':', '_')}"],
            env=environment, capture_output=True)


def start_peripheral(command, environment):
    # A pipe on its standard input that only this process holds: `ripple-ble serve --exit-when-stdin-closes`
    # stops when this process ends, however it ends.
    process = subprocess.Popen(command, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("serving"):
            # The rest of its output (a traceback, say), kept for a failed measurement; read as it comes, so
            # that the pipe never fills.
            process.output = lines
            process.reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
            process.reader.start()
            return process
    process.kill()
    raise SystemExit(f"{command[0]} did not start serving: {''.join(lines)}")


def output(process):
    """What the peripheral printed, once it has stopped."""
    process.reader.join(timeout=5)
    return "".join(process.output)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def ripple_world(count, rate):
    """peripheral.yaml with this run's count and rate (none: unpaced), in a temporary file."""
    with open(os.path.join(HERE, "peripheral.yaml")) as file:
        text = file.read()
    source = f"notifications: {{ count: {count}, " + (f"rate: {rate}, " if rate else "") + "payload: numbered, size: 20 }"
    text = text.replace("notifications: { count: 20000, payload: numbered, size: 20 }", source)
    world = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    world.write(text)
    world.close()
    return world.name


def measure(arguments, environment, peer, transport, central_address, peripheral_address):
    rate = arguments.bus_rate if transport == "bus" else 0
    world = None
    if peer == "ripple":
        world = ripple_world(arguments.count, rate)
        command = [arguments.ripple_ble, "serve", "--world", world, "--adapter", "hci1", "--transport", transport,
                   "--exit-when-stdin-closes"]
    else:
        command = [arguments.python, os.path.join(HERE, "dbusfast_peripheral.py"), "--adapter", "hci1", "--count",
                   str(arguments.count), "--transport", transport, "--rate", str(rate)]
    # Long enough for every notification at the paced rate (or the socket's), short enough to end a lossy run.
    duration = arguments.duration + (arguments.count / rate if rate else 0)
    forget(environment, central_address, peripheral_address)
    central = subprocess.Popen(
        [arguments.ripple_ble, "bench", "--real", "--adapter", "hci0", "--timeout", "30", peripheral_address,
         STREAM, "--count", str(arguments.count), "--duration", str(duration), "--transport", "auto",
         "--payload", "numbered", "--json"],
        env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    progress = []
    # The central scans first (see above), and its discovery has started when the peripheral advertises.
    for line in central.stderr:
        progress.append(line)
        if line.startswith("scanning for"):
            break
    time.sleep(2)
    try:
        peripheral = start_peripheral(command, environment)
    except BaseException:
        central.kill()
        central.wait()
        raise
    finally:
        if world is not None:
            os.unlink(world)
    try:
        # From the moment the central subscribes: the peripheral's cost of sending, not of being connected to.
        for line in central.stderr:
            progress.append(line)
            if line.startswith("measuring"):
                break
        before = cpu_seconds(peripheral.pid)
        stdout, stderr = central.communicate(timeout=duration + 60)
        after = cpu_seconds(peripheral.pid)
        central.stdout_text, central.stderr_text = stdout, "".join(progress) + stderr
    finally:
        stop(peripheral)
    try:
        figures = json.loads(central.stdout_text.strip().splitlines()[-1])
    except (IndexError, ValueError):
        # Recorded, not fatal: the other measurements still run (the table says what failed).
        error = next((line.split("error: ", 1)[1].strip() for line in central.stderr_text.splitlines()
                      if "error: " in line), f"exit {central.returncode}")
        printed = output(peripheral)
        last = next((line.strip() for line in reversed(printed.splitlines()) if line.strip()), "")
        if last and not last.startswith("serving"):
            error += f"; the peripheral's last line: {last[:100]}"
        print(f"ripple-ble bench failed against {peer} ({transport}): {central.stderr_text}"
              f"the peripheral printed:\n{printed}", file=sys.stderr)
        return {"peer": peer, "path": "socket" if transport == "auto" else "bus", "count": arguments.count,
                "received": 0, "error": error}
    # Per notification the central received (a lossy run sent more than it got; a bounded one fewer than asked).
    return {
        "peer": peer, "path": "socket" if transport == "auto" else "bus", "count": arguments.count,
        "received": figures["received"], "lost": figures["lost"], "rate": figures["rate"],
        # The central's side (`ripple-ble bench --transport auto` reports what it got): the simulator's
        # central takes StartNotify (its forwarded characteristics have no AcquireNotify), bluetoothd's socket.
        "central_path": figures.get("transport"),
        "cpu_us_per_notification": (after - before) * 1e6 / max(figures["received"], 1),
    }


def table(results, title):
    rows = [f"{title}\n", "| peripheral | path to bluetoothd | notifications/s | CPU µs per notification | received |",
            "| --- | --- | ---: | ---: | ---: |"]
    names = {"ripple": "Ripple (`ripple-ble serve`)", "dbus-fast": "Python, dbus-fast"}
    paths = {"socket": "AcquireNotify socket", "bus": "PropertiesChanged"}
    for path in ("socket", "bus"):
        for peer in ("ripple", "dbus-fast"):
            runs = [r for r in results if r["peer"] == peer and r["path"] == path and "error" not in r]
            failed = [r for r in results if r["peer"] == peer and r["path"] == path and "error" in r]
            if failed:
                rows.append(f"| {names[peer]} | {paths[path]} | failed in {len(failed)} of "
                            f"{len(failed) + len(runs)} runs: {failed[0]['error']} | | |")
            if not runs:
                continue
            rate = statistics.median(r["rate"] for r in runs)
            cpu = statistics.median(r["cpu_us_per_notification"] for r in runs)
            spread = f" ({min(r['cpu_us_per_notification'] for r in runs):.1f}–" \
                     f"{max(r['cpu_us_per_notification'] for r in runs):.1f})" if len(runs) > 1 else ""
            received = f"{min(r['received'] for r in runs)}/{runs[0]['count']}"
            rows.append(f"| {names[peer]} | {paths[path]} | {rate:,.0f} | {cpu:.1f}{spread} | {received} |")
    return "\n".join(rows) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ripple-ble", required=True, help="the ripple-ble executable")
    parser.add_argument("--python", required=True, help="a Python with dbus-fast")
    parser.add_argument("--simulated", action="store_true", help="against `ripple-ble sim`, not bluetoothd")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--bus-rate", type=int, default=0,
                        help="notifications a second on the PropertiesChanged path, both peers (0: unpaced)")
    parser.add_argument("--duration", type=float, default=120,
                        help="seconds the central waits at most (plus count / bus rate on the paced bus path)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--table", help="also write the Markdown table to this file")
    parser.add_argument("--title", default="")
    arguments = parser.parse_args()

    environment = dict(os.environ)
    simulator = None
    if arguments.simulated:
        simulator = subprocess.Popen(
            [arguments.ripple_ble, "sim", "--world", os.path.join(HERE, "peripheral-world.yaml"),
             "--exit-when-stdin-closes"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = simulator.stdout.readline().strip()
        if not line.startswith("DBUS_SYSTEM_BUS_ADDRESS="):
            simulator.kill()
            raise SystemExit(f"ripple-ble sim printed {line!r}")
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = line.split("=", 1)[1]
    results = []
    try:
        central_address = adapter_address("hci0", environment)
        peripheral_address = adapter_address("hci1", environment)
        for _ in range(arguments.runs):
            for transport in ("auto", "bus"):
                for peer in ("ripple", "dbus-fast"):
                    result = measure(arguments, environment, peer, transport, central_address, peripheral_address)
                    print(json.dumps(result), flush=True)
                    results.append(result)
    finally:
        if simulator is not None:
            stop(simulator)
    title = arguments.title or ("On the simulator" if arguments.simulated else "Against bluetoothd 5.66")
    text = table(results, title)
    print(text)
    if arguments.table:
        with open(arguments.table, "w") as file:
            file.write(text)
    if any(r["received"] < r["count"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
