#!/usr/bin/env python3
"""bleak_peer: bleak (a BLE client for Python, from PyPI) as a peer in Ripple's notification benchmarks.

    bleak_peer.py --transport bus|socket --count N --characteristic UUID ADDRESS...

Finds and connects each peripheral with bleak (through bluetoothd's D-Bus API on the system bus;
DBUS_SYSTEM_BUS_ADDRESS is honoured), then subscribes to the characteristic: with StartNotify for `bus`,
with AcquireNotify for `socket` (bleak's `use_start_notify` option). Payloads are laid out as the
simulator's `timestamped` source: a little-endian UInt32 sequence number, then the CLOCK_MONOTONIC send
time in nanoseconds as a little-endian UInt64.

Prints one JSON object with the same schema as `ripple-ble bench --json`: received, lost, reordered, rate,
this process's CPU time per notification from subscribing to the last notification, latency percentiles.
"""
import argparse
import asyncio
import json
import math
import sys
import time

from bleak import BleakClient, BleakScanner


class Meter:
    def __init__(self, sources, count):
        self.count = count
        self.received = 0
        self.bytes = 0
        self.lost = 0
        self.reordered = 0
        self.next = [None] * sources
        self.first = None
        self.last = 0
        self.latencies = []
        self.done = asyncio.Event()

    def record(self, source, payload):
        now = time.monotonic_ns()
        self.received += 1
        self.bytes += len(payload)
        if self.first is None:
            self.first = now
        self.last = now
        if len(payload) >= 12:
            sent = int.from_bytes(payload[4:12], "little")
            if now >= sent:
                self.latencies.append(now - sent)
        if len(payload) >= 4:
            sequence = int.from_bytes(payload[0:4], "little")
            expected = self.next[source]
            if expected is None or sequence == expected:
                self.next[source] = (sequence + 1) & 0xFFFFFFFF
            elif (sequence - expected) & 0xFFFFFFFF < 0x80000000:
                self.lost += (sequence - expected) & 0xFFFFFFFF
                self.next[source] = (sequence + 1) & 0xFFFFFFFF
            else:
                self.reordered += 1
                self.lost = max(0, self.lost - 1)
        if self.received >= self.count:
            self.done.set()


def percentile(values, fraction):
    index = min(len(values) - 1, max(0, math.ceil(len(values) * fraction) - 1))
    return values[index] / 1000.0


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--transport", choices=["bus", "socket"], default="socket")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--characteristic", required=True)
    parser.add_argument("addresses", nargs="+")
    arguments = parser.parse_args()

    clients = []
    for address in arguments.addresses:
        device = await BleakScanner.find_device_by_address(address, timeout=30)
        if device is None:
            raise SystemExit(f"bleak_peer: {address} was not found")
        client = BleakClient(device, timeout=30)
        await client.connect()
        clients.append(client)

    meter = Meter(len(clients), arguments.count)
    cpu_start = time.process_time_ns()
    for index, client in enumerate(clients):
        def callback(_characteristic, data, source=index):
            meter.record(source, data)

        await client.start_notify(
            arguments.characteristic, callback, bluez={"use_start_notify": arguments.transport == "bus"})
    try:
        await asyncio.wait_for(meter.done.wait(), timeout=300)
    except asyncio.TimeoutError:
        pass
    cpu = time.process_time_ns() - cpu_start

    seconds = (meter.last - meter.first) / 1e9 if meter.first is not None and meter.last > meter.first else 0
    figures = {
        "client": "bleak", "transport": arguments.transport, "peripherals": len(clients),
        "received": meter.received, "bytes": meter.bytes, "lost": meter.lost, "reordered": meter.reordered,
        "dropped": 0, "seconds": seconds, "rate": (meter.received - 1) / seconds if seconds > 0 else 0,
        "cpu_ns": cpu, "cpu_ns_per_notification": cpu / meter.received if meter.received else 0,
    }
    if meter.latencies:
        meter.latencies.sort()
        figures["latency_p50_us"] = percentile(meter.latencies, 0.5)
        figures["latency_p99_us"] = percentile(meter.latencies, 0.99)
        figures["latency_max_us"] = meter.latencies[-1] / 1000.0
    print(json.dumps(figures, sort_keys=True), flush=True)
    for client in clients:
        try:
            await client.disconnect()
        except Exception:
            pass
    return 3 if meter.lost or meter.reordered else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
