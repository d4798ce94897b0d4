"""bleak, as the central on hci0, against a Ripple peripheral (`ripple-ble serve`) on hci1, through real
bluetoothd in Scripts/bluez-guest.

Started by Scripts/guest/peripheral-checks, which starts `ripple-ble serve --world
Tools/Examples/Worlds/served.yaml --adapter hci1 --transport TRANSPORT` first. Checks, with exact
expectations: BleakScanner finds "Ripple Served" with its service UUID; BleakClient connects, reads,
writes with and without response (read back); the numbered notifications arrive complete and in order
over bleak's StartNotify and again over its AcquireNotify.

Exit status 0 when every check passed; each check prints one line.
"""

import argparse
import asyncio
import struct
import sys

NAME = "Ripple Served"
SERVICE = "52495053-0000-4000-8000-0000000000d0"
STREAM = "52495053-0000-4000-8000-0000000000d1"
WRITABLE = "52495053-0000-4000-8000-0000000000d2"
COUNT = 500

failures = []


def check(condition, what, detail=""):
    """Records and prints one check."""
    if condition:
        print(f"  ok    {what}")
    else:
        print(f"  FAIL  {what} {detail}")
        failures.append(what)
    return condition


async def collect_numbered(client, count, **notify_arguments):
    """Subscribes, takes `count` notifications (the peripheral starts at 0 for each subscription),
    unsubscribes; returns the sequence numbers seen."""
    received = []
    done = asyncio.Event()

    def on_notification(_, data):
        received.append(struct.unpack_from("<I", data)[0] if len(data) >= 4 else -1)
        if len(received) >= count:
            done.set()

    await client.start_notify(STREAM, on_notification, **notify_arguments)
    try:
        await asyncio.wait_for(done.wait(), timeout=30)
    except asyncio.TimeoutError:
        pass
    await client.stop_notify(STREAM)
    # The peripheral sees the subscription end before the next one starts its sequence again.
    await asyncio.sleep(0.5)
    return received


async def run(adapter, label):
    from bleak import BleakClient, BleakScanner

    print(f"bleak on {adapter} against the Ripple peripheral ({label})")
    device = await BleakScanner.find_device_by_filter(
        lambda d, a: a.local_name == NAME, timeout=20, service_uuids=[SERVICE], bluez={"adapter": adapter}
    )
    if not check(device is not None, f"BleakScanner finds {NAME!r} advertising its service"):
        return
    for attempt in (1, 2, 3):
        client = BleakClient(device, timeout=20, bluez={"adapter": adapter})
        try:
            await client.connect()
            break
        except Exception as error:  # bleak raises BleakError or a D-Bus error for a link that drops
            # A link can drop while bluetoothd resolves the services; bleak's advice is to try again, with a
            # new client (the failed one may still count itself connected).
            print(f"  note  connecting failed (attempt {attempt}): {error}")
            try:
                await client.disconnect()
            except Exception:
                pass
            if attempt == 3:
                check(False, "BleakClient connects")
                return
            await asyncio.sleep(2)
    try:
        check(client.is_connected, "BleakClient connects")
        services = {service.uuid for service in client.services}
        check(SERVICE in services, "the services list the served service", str(sorted(services)))
        await client.write_gatt_char(WRITABLE, b"\x12\x34", response=True)
        check(bytes(await client.read_gatt_char(WRITABLE)) == b"\x12\x34", "writes with response (read back)")
        await client.write_gatt_char(WRITABLE, b"\x56", response=False)
        check(bytes(await client.read_gatt_char(WRITABLE)) == b"\x56", "writes without response (read back)")
        for path, arguments in [("StartNotify", {"bluez": {"use_start_notify": True}}),
                                ("AcquireNotify", {"bluez": {"use_start_notify": False}})]:
            sequence = await collect_numbered(client, COUNT, **arguments)
            first_wrong = next((i for i, s in enumerate(sequence) if s != i), None)
            check(sequence == list(range(COUNT)), f"{COUNT} notifications in order, none lost, over bleak's {path}",
                  f"(got {len(sequence)}, first wrong at {first_wrong})")
    finally:
        await client.disconnect()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci0", help="the central's adapter")
    parser.add_argument("--label", default="", help="what the peripheral runs, for the output")
    arguments = parser.parse_args()
    asyncio.run(asyncio.wait_for(run(arguments.adapter, arguments.label), timeout=180))
    if failures:
        print(f"bleak against the Ripple peripheral: {len(failures)} check(s) failed: {failures}")
        sys.exit(1)
    print("bleak against the Ripple peripheral: every check passed")


if __name__ == "__main__":
    main()
