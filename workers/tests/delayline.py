"""A userspace delay line on a TUN device: every packet read is written back after a delay.

Usage (inside the router namespace): ``python delayline.py TUN_NAME DELAY_SECONDS``. It
creates the device, prints ``ready`` and runs until killed; the device goes with it. Packets
written back re-enter the router as if received on the TUN device and are forwarded on.
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def main() -> None:
    name, delay = sys.argv[1], float(sys.argv[2])
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    print("ready", flush=True)
    queue: collections.deque[tuple[float, bytes]] = collections.deque()
    while True:
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        ready, _, _ = select.select([fd], [], [], timeout)
        if ready:
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                queue.append((time.monotonic() + delay, packet))
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            with contextlib.suppress(OSError):  # a packet the kernel refuses is lost, as on a wire
                os.write(fd, queue.popleft()[1])


if __name__ == "__main__":
    main()
