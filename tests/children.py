"""A process's thinking processes, read from /proc (no dependency for it): the pools'
workers multiprocessing spawned (its resource tracker left out)."""

from __future__ import annotations

from pathlib import Path


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the name (which may hold spaces), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Running: neither gone nor a zombie nobody reaped yet."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def nice_of(pid: int) -> int:
    """`pid`'s nice value (0 if it is gone)."""
    fields = _stat(pid)
    return int(fields[16]) if fields is not None else 0


def thinking(parent: int) -> dict[int, int]:
    """`parent`'s pool processes alive, each with its nice value (the hints' runs at 10)."""
    found = {}
    for task in Path(f"/proc/{parent}/task").glob("*"):
        try:
            pids = (task / "children").read_text().split()
        except OSError:  # (a thread that ended meanwhile)
            continue
        for pid in map(int, pids):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            fields = _stat(pid)
            if b"spawn_main" in command and fields is not None and fields[0] != "Z":
                found[pid] = int(fields[16])
    return found
