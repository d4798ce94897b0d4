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

from bleak_checks import check, check_numbered, check_writes, collect_numbered, connect, finish

NAME = "Ripple Served"
SERVICE = "52495053-0000-4000-8000-0000000000d0"
STREAM = "52495053-0000-4000-8000-0000000000d1"
WRITABLE = "52495053-0000-4000-8000-0000000000d2"
COUNT = 500


async def run(adapter, label):
    from bleak import BleakScanner

    print(f"bleak on {adapter} against the Ripple peripheral ({label})")
    device = await BleakScanner.find_device_by_filter(
        lambda d, a: a.local_name == NAME, timeout=20, service_uuids=[SERVICE], bluez={"adapter": adapter}
    )
    if not check(device is not None, f"BleakScanner finds {NAME!r} advertising its service"):
        return
    # A link can drop while bluetoothd resolves the services; bleak's advice is to try again.
    client = await connect(device, attempts=3, timeout=20, bluez={"adapter": adapter})
    if client is None:
        return
    try:
        services = {service.uuid for service in client.services}
        check(SERVICE in services, "the services list the served service", str(sorted(services)))
        await check_writes(client, WRITABLE, b"\x12\x34", b"\x56")
        for path, arguments in [("StartNotify", {"bluez": {"use_start_notify": True}}),
                                ("AcquireNotify", {"bluez": {"use_start_notify": False}})]:
            # The peripheral numbers each subscription from 0: let it see this one end before the next.
            sequence = await collect_numbered(client, STREAM, COUNT, timeout=30, settle=0.5, **arguments)
            check_numbered(sequence, COUNT, f"bleak's {path}")
    finally:
        await client.disconnect()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci0", help="the central's adapter")
    parser.add_argument("--label", default="", help="what the peripheral runs, for the output")
    arguments = parser.parse_args()
    asyncio.run(asyncio.wait_for(run(arguments.adapter, arguments.label), timeout=180))
    finish("bleak against the Ripple peripheral")


if __name__ == "__main__":
    main()
