"""What the bleak checks share: recorded checks, connecting with a fresh client per attempt, writes read
back, numbered notifications collected and compared, and the exit status.

Imported by bleak_interop.py (bleak against ripple-bluez-sim) and bleak_peripheral.py (bleak against
`ripple-ble serve` on real bluetoothd); both run from this folder, so Python finds it beside them.
"""

import asyncio
import struct
import sys

failures = []


def check(condition, what, detail=""):
    """Records and prints one check; returns the condition."""
    if condition:
        print(f"  ok    {what}")
    else:
        print(f"  FAIL  {what} {detail}")
        failures.append(what)
    return condition


async def connect(device, attempts=1, pause=2, **client_arguments):
    """Connects a BleakClient to `device`, trying `attempts` times, each with a new client (a failed one may
    still count itself connected), `pause` seconds apart. Checks that it connected; returns the connected
    client, or None."""
    from bleak import BleakClient

    for attempt in range(1, attempts + 1):
        client = BleakClient(device, **client_arguments)
        try:
            await client.connect()
        except Exception as error:  # bleak raises BleakError or a D-Bus error for a link that drops
            print(f"  note  connecting failed (attempt {attempt} of {attempts}): {error}")
            try:
                await client.disconnect()
            except Exception:
                pass
            if attempt < attempts:
                await asyncio.sleep(pause)
            continue
        check(client.is_connected, "BleakClient connects")
        return client
    check(False, "BleakClient connects")
    return None


async def check_writes(client, characteristic, with_response, without_response):
    """Writes `with_response` with a response and then `without_response` without one, each read back."""
    await client.write_gatt_char(characteristic, with_response, response=True)
    check(bytes(await client.read_gatt_char(characteristic)) == with_response, "writes with response (read back)")
    await client.write_gatt_char(characteristic, without_response, response=False)
    check(
        bytes(await client.read_gatt_char(characteristic)) == without_response, "writes without response (read back)"
    )


async def collect_numbered(client, characteristic, count, timeout, settle=0, **notify_arguments):
    """Subscribes, takes `count` notifications (each starts with its little-endian 32-bit number; at most
    `timeout` seconds), unsubscribes and waits `settle` seconds; returns the numbers seen."""
    received = []
    done = asyncio.Event()

    def on_notification(_, data):
        received.append(struct.unpack_from("<I", data)[0] if len(data) >= 4 else -1)
        if len(received) >= count:
            done.set()

    await client.start_notify(characteristic, on_notification, **notify_arguments)
    try:
        await asyncio.wait_for(done.wait(), timeout=timeout)
    except asyncio.TimeoutError:
        pass
    await client.stop_notify(characteristic)
    if settle:
        await asyncio.sleep(settle)
    return received


def check_numbered(sequence, count, path):
    """Checks that `sequence` is 0 ..< `count`: every notification, in order, over `path`."""
    first_wrong = next((i for i, number in enumerate(sequence) if number != i), None)
    check(
        sequence == list(range(count)),
        f"{count} notifications in order, none lost, over {path}",
        f"(got {len(sequence)}, first wrong at {first_wrong})",
    )


def finish(what):
    """Prints the outcome; exits with status 1 when a check failed."""
    if failures:
        print(f"{what}: {len(failures)} check(s) failed: {failures}")
        sys.exit(1)
    print(f"{what}: every check passed")
