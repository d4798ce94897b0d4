"""A minimal BLE peripheral in Python on dbus-fast: the peer of the Ripple peripheral in
Scripts/peripheral-benchmarks.

It registers one GATT application (one service, one notify characteristic) and one advertisement with
bluetoothd (or the simulator) on --adapter, prints "serving" once both are registered, and, when a central
subscribes, sends --count numbered 20-byte notifications (a little-endian UInt32 sequence number, then
0xA5) as fast as the path takes them:
- --transport auto: the characteristic has NotifyAcquired, so bluetoothd acquires a socket
  (AcquireNotify) and each notification is one packet written to it; a full socket is retried after
  0.2 ms, as the Ripple peripheral under test does;
- --transport bus: each notification is a PropertiesChanged signal of Value (StartNotify); --rate paces
  them (that many a second; 0: unpaced, 64 at a time between two turns of the event loop). dbus-fast 5.2.0
  writes a signal to its bus socket at once and takes a full socket (BlockingIOError, EAGAIN, in
  _MessageWriter.write_callback) for a broken one: it closes the connection. So before each signal the
  peer waits until the socket holds less than half its send buffer (SIOCOUTQ; retried after 0.2 ms, as
  on the socket path), where libdbus, under the Ripple peripheral, queues what the socket cannot take.
It then waits for SIGTERM or SIGINT. The same UUIDs as `ripple-ble bench`'s stream.
"""

import argparse
import asyncio
import errno
import fcntl
import signal
import socket
import struct
import termios

from dbus_fast import BusType, Message, MessageType
from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_method, dbus_property

SERVICE = "52495054-0000-4000-8000-0000000000b0"
STREAM = "52495054-0000-4000-8000-0000000000b1"
ROOT = "/org/ripple/pyperipheral"
SERVICE_PATH = ROOT + "/service0"
CHARACTERISTIC_PATH = SERVICE_PATH + "/char0"
ADVERTISEMENT_PATH = ROOT + "/advertisement0"


def payload(sequence):
    return struct.pack("<I", sequence & 0xFFFFFFFF) + b"\xa5" * 16


class Service(ServiceInterface):
    def __init__(self):
        super().__init__("org.bluez.GattService1")

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return SERVICE

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True


class Characteristic(ServiceInterface):
    def __init__(self, count, acquires, rate, bus_socket):
        super().__init__("org.bluez.GattCharacteristic1")
        self.count = count
        self.rate = rate
        self.acquires = acquires
        self.value = b""
        self.sender = None
        self.socket = None
        self.bus_socket = bus_socket
        self.bus_room = bus_socket.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) // 2

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return STREAM

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return SERVICE_PATH

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return ["notify"]

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self.value

    @dbus_method()
    def ReadValue(self, options: "a{sv}") -> "ay":
        return self.value

    @dbus_method()
    def StartNotify(self):
        self.start(self.send_on_bus)

    @dbus_method()
    def StopNotify(self):
        self.stop()

    @dbus_method()
    def AcquireNotify(self, options: "a{sv}") -> "hq":
        self.stop()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        mine.setblocking(False)
        self.socket = mine
        asyncio.get_running_loop().add_reader(mine.fileno(), self.hang_up)
        self.sender = asyncio.get_running_loop().create_task(self.send_on_socket())
        mtu = options.get("mtu")
        return [theirs.detach(), mtu.value if mtu is not None else 23]

    def hang_up(self):
        try:
            if self.socket.recv(1, socket.MSG_DONTWAIT) == b"":
                raise ConnectionResetError
        except BlockingIOError:
            return
        except OSError:
            pass
        self.stop()

    def start(self, send):
        self.stop()
        self.sender = asyncio.get_running_loop().create_task(send())

    def stop(self):
        if self.sender is not None:
            self.sender.cancel()
            self.sender = None
        if self.socket is not None:
            asyncio.get_running_loop().remove_reader(self.socket.fileno())
            self.socket.close()
            self.socket = None

    def bus_has_room(self):
        """Whether the bus socket's unsent bytes are under half its send buffer (see the module's comment)."""
        unsent = struct.unpack("i", fcntl.ioctl(self.bus_socket.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
        return unsent < self.bus_room

    async def send_on_bus(self):
        loop = asyncio.get_running_loop()
        start = loop.time()
        for sequence in range(self.count):
            while not self.bus_has_room():
                await asyncio.sleep(0.0002)
            self.value = payload(sequence)
            self.emit_properties_changed({"Value": self.value})
            if self.rate:
                # On a schedule from the first one, so that the pace does not drift.
                await asyncio.sleep(max(0.0, start + (sequence + 1) / self.rate - loop.time()))
            elif sequence % 64 == 63:
                await asyncio.sleep(0)

    async def send_on_socket(self):
        sent = 0
        while sent < self.count:
            try:
                self.socket.send(payload(sent), socket.MSG_DONTWAIT)
                sent += 1
                if sent % 64 == 0:
                    await asyncio.sleep(0)
            except BlockingIOError:
                await asyncio.sleep(0.0002)
            except OSError as error:
                if error.errno in (errno.EPIPE, errno.ECONNRESET):
                    return
                raise


class Advertisement(ServiceInterface):
    def __init__(self):
        super().__init__("org.bluez.LEAdvertisement1")

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> "as":
        return [SERVICE]

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> "s":
        return "PyStream"

    @dbus_method()
    def Release(self):
        pass


class NotifyAcquiredCharacteristic(Characteristic):
    @dbus_property(access=PropertyAccess.READ)
    def NotifyAcquired(self) -> "b":
        return self.socket is not None


async def call(bus, path, interface, member, signature, body):
    reply = await bus.call(
        Message(destination="org.bluez", path=path, interface=interface, member=member, signature=signature,
                body=body))
    if reply.message_type == MessageType.ERROR:
        raise SystemExit(f"{member}: {reply.error_name} {reply.body}")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--transport", choices=["auto", "bus"], default="auto")
    parser.add_argument("--rate", type=int, default=0, help="bus path: notifications a second (0: unpaced)")
    arguments = parser.parse_args()

    bus = await MessageBus(bus_type=BusType.SYSTEM, negotiate_unix_fd=True).connect()
    acquires = arguments.transport == "auto"
    # dbus-fast has no public accessor for its socket; `_sock` is declared public in its Cython declarations.
    characteristic = (NotifyAcquiredCharacteristic if acquires else Characteristic)(
        arguments.count, acquires, arguments.rate, bus._sock)
    bus.export(SERVICE_PATH, Service())
    bus.export(CHARACTERISTIC_PATH, characteristic)
    bus.export(ADVERTISEMENT_PATH, Advertisement())
    adapter = f"/org/bluez/{arguments.adapter}"
    await call(bus, adapter, "org.bluez.GattManager1", "RegisterApplication", "oa{sv}", [ROOT, {}])
    await call(bus, adapter, "org.bluez.LEAdvertisingManager1", "RegisterAdvertisement", "oa{sv}",
               [ADVERTISEMENT_PATH, {}])
    print("serving", flush=True)
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(number, stop.set)
    await stop.wait()
    characteristic.stop()
    bus.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
