"""A loopback port for a server a test starts a moment later."""

from __future__ import annotations

import random
import socket
from pathlib import Path


def free_port() -> int:
    """A port free now, for a server started a moment later (and started again on it after a
    kill): below the kernel's range of ports it gives out by itself, to listeners bound to port 0
    and to every outgoing connection, which took a worker's port between its kill and its
    restart ("Address already in use", once in a whole run)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(10_000, max(10_001, low))
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:  # (no luck there: any port the kernel gives)
        sock.bind(("127.0.0.1", 0))
        found: int = sock.getsockname()[1]
        return found
