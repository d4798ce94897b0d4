"""Checks RippleBlueZSimulator with bleak, a BLE client written by others.

Started by Scripts/interop-bleak, which builds `ripple-bluez-sim` and installs bleak into a virtual
environment. This script starts the simulator on a private bus of its own (never the system bus), points
bleak at it through DBUS_SYSTEM_BUS_ADDRESS, and checks, with exact expectations:

- BleakScanner finds the heart-rate monitor with its name, RSSI and service UUIDs (also when scanning
  with a service filter);
- BleakClient connects, lists the services, reads, writes with and without response;
- 10,000 numbered notifications arrive complete and in order over StartNotify, and again over
  AcquireNotify;
- a disconnect made by the peripheral (through the simulator's control service) reaches bleak.

Exit status 0 when every check passed; each check prints one line.
"""

import argparse
import asyncio
import json
import os
import subprocess

from bleak_checks import check, check_numbered, check_writes, collect_numbered, connect, finish

HEART_RATE_SERVICE = "0000180d-0000-1000-8000-00805f9b34fb"
BODY_SENSOR_LOCATION = "00002a38-0000-1000-8000-00805f9b34fb"
BATTERY_LEVEL = "00002a19-0000-1000-8000-00805f9b34fb"
CONTROL_NAME = "org.ripple.BlueZSimulator"
CONTROL_PATH = "/org/ripple/BlueZSimulator"
CONTROL_INTERFACE = "org.ripple.BlueZSimulator1"

def start_simulator(executable, world):
    """Starts ripple-bluez-sim; returns the process and the bus address it printed first. Its standard input
    is a pipe only this process holds: the simulator stops when this process ends, however it ends."""
    process = subprocess.Popen(
        [executable, "--world", world, "--exit-when-stdin-closes"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline().strip()
    prefix = "DBUS_SYSTEM_BUS_ADDRESS="
    if not line.startswith(prefix):
        process.kill()
        raise SystemExit(f"ripple-bluez-sim printed {line!r} instead of its bus address")
    return process, line[len(prefix):]


async def control(method, signature, body):
    """Calls the simulator's control service."""
    from dbus_fast import BusType, Message, MessageType
    from dbus_fast.aio import MessageBus

    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    try:
        reply = await bus.call(
            Message(
                destination=CONTROL_NAME,
                path=CONTROL_PATH,
                interface=CONTROL_INTERFACE,
                member=method,
                signature=signature,
                body=body,
            )
        )
        if reply.message_type == MessageType.ERROR:
            raise RuntimeError(f"{method}: {reply.error_name} {reply.body}")
        return reply.body
    finally:
        bus.disconnect()


async def run(world):
    from bleak import BleakScanner

    hrm_name = world["hrm_name"]
    stream = world["stream_characteristic"]
    writable = world["writable_characteristic"]
    count = world["notifications"]

    print("scanning")
    found = {}

    def on_advertisement(device, advertisement):
        # The first advertisement seen: its RSSI is the world's (later ones wander by the preset's variation).
        if advertisement.local_name == hrm_name and "device" not in found:
            found["device"] = device
            found["advertisement"] = advertisement

    async with BleakScanner(on_advertisement):
        for _ in range(100):
            if "device" in found:
                break
            await asyncio.sleep(0.1)
    if not check("device" in found, f"BleakScanner finds {hrm_name!r}"):
        return
    device, advertisement = found["device"], found["advertisement"]
    check(device.name == hrm_name, "its name", repr(device.name))
    check(device.address == world["hrm_address"], "its address", device.address)
    check(advertisement.rssi == world["hrm_rssi"], "its RSSI", str(advertisement.rssi))
    check(HEART_RATE_SERVICE in advertisement.service_uuids, "its service UUIDs", str(advertisement.service_uuids))

    filtered = await BleakScanner.find_device_by_filter(
        lambda d, a: a.local_name == hrm_name, timeout=10, service_uuids=[HEART_RATE_SERVICE]
    )
    check(filtered is not None and filtered.address == device.address, "a scan filtered by the heart-rate UUID finds it")

    disconnected = asyncio.Event()
    print("connecting")
    client = await connect(device, disconnected_callback=lambda _: disconnected.set(), timeout=20)
    if client is None:
        return
    try:
        services = {service.uuid for service in client.services}
        check(HEART_RATE_SERVICE in services, "the services list the heart-rate service", str(sorted(services)))
        for uuid in world["expected_services"]:
            check(uuid in services, f"the services list {uuid}")

        location = await client.read_gatt_char(BODY_SENSOR_LOCATION)
        check(bytes(location) == bytes(world["body_sensor_location"]), "reads the body sensor location", location.hex())
        battery = await client.read_gatt_char(BATTERY_LEVEL)
        check(len(battery) == 1 and 0 <= battery[0] <= 100, "reads the battery level", battery.hex())

        await check_writes(client, writable, b"\x01\x02\x03", b"\x04\x05")

        for path, arguments in [("StartNotify", {}), ("AcquireNotify", {"bluez": {"use_start_notify": False}})]:
            print(f"{count} notifications over {path}")
            sequence = await collect_numbered(client, stream, count, timeout=60, **arguments)
            check_numbered(sequence, count, path)

        print("the peripheral disconnects")
        await control("Disconnect", "ss", [device.address, "remote"])
        try:
            await asyncio.wait_for(disconnected.wait(), timeout=20)
        except asyncio.TimeoutError:
            pass
        check(disconnected.is_set(), "bleak sees the disconnect")
        check(not client.is_connected, "the client is no longer connected")
    finally:
        await client.disconnect()


def expectations(path):
    """What the checks expect, read from the world file (its first peripheral is the heart-rate monitor
    "preset", its own service holds the numbered stream and the writable characteristic)."""
    with open(path) as file:
        description = json.load(file)
    monitor = description["peripherals"][0]
    characteristics = [c for service in monitor.get("services", []) for c in service.get("characteristics", [])]
    stream = next(c for c in characteristics if "notifications" in c)
    writable = next(c for c in characteristics if "write" in c.get("flags", []))
    return {
        "hrm_name": monitor["name"],
        "hrm_address": monitor["address"],
        "hrm_rssi": monitor["rssi"],
        # The preset is a chest strap (Body Sensor Location 1) with Battery and Device Information.
        "body_sensor_location": [1],
        "expected_services": [
            "0000180f-0000-1000-8000-00805f9b34fb",
            "0000180a-0000-1000-8000-00805f9b34fb",
            service_uuid(monitor["services"][0]["uuid"]),
        ],
        "stream_characteristic": service_uuid(stream["uuid"]),
        "writable_characteristic": service_uuid(writable["uuid"]),
        "notifications": stream["notifications"]["count"],
    }


def service_uuid(text):
    """A UUID of the world file in the 128-bit form bleak uses."""
    text = text.lower().removeprefix("0x")
    if len(text) in (4, 8):
        return text.rjust(8, "0") + "-0000-1000-8000-00805f9b34fb"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulator", required=True, help="path of the ripple-bluez-sim executable")
    parser.add_argument("--world", required=True, help="the world file to serve")
    arguments = parser.parse_args()

    world = expectations(arguments.world)
    process, address = start_simulator(arguments.simulator, arguments.world)
    os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = address
    print(f"bleak against ripple-bluez-sim on {address}")
    try:
        asyncio.run(asyncio.wait_for(run(world), timeout=300))
    finally:
        process.terminate()
        try:
            print(process.communicate(timeout=20)[0], end="")
        except subprocess.TimeoutExpired:
            process.kill()
    finish("bleak interop")


if __name__ == "__main__":
    main()
