"""A throw-away PostgreSQL server for the tests: initdb and pg_ctl in a temporary directory,
on a free loopback port, removed at the end. Needs the server binaries (Debian: `apt-get
install postgresql`); as root it runs them as the `postgres` user, as PostgreSQL insists."""

from __future__ import annotations

import os
import pwd
import queue
import shutil
import subprocess
import threading
import uuid
from pathlib import Path

from tests.ports import free_port

INSTALL_HINT = (
    "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: "
    "`sudo apt-get install postgresql` (Debian/Ubuntu) runs these tests too"
)


def find_bin() -> Path | None:
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for candidate in sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True):
        return candidate.parent
    return None


class Cluster:
    def __init__(self, bindir: Path, base: Path) -> None:
        self.bindir = bindir
        self.base = base
        self.data = base / "data"
        self.port = free_port()
        # Fresh databases made ahead by a thread of their own (creating one takes a few tenths
        # of a second, while most tests mostly wait): a test takes one made for nobody else.
        self.ready: queue.Queue[str] = queue.Queue(maxsize=2)
        self.closing = threading.Event()
        self.maker: threading.Thread | None = None
        # Databases a test is done with, dropped by the same thread between two it makes: each
        # is a copy of template1 (some 300 files), and a worker's hundreds of them left to the
        # end made its last test's teardown (removing the cluster's folder) take 10 to 60 s.
        self.done: queue.Queue[str] = queue.Queue()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(base, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, cwd=self.base)

    def start(self) -> None:
        self._run(
            str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "truco",
            "-E", "UTF8", "--no-sync", "--locale=C",
        )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        )
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-o", options, "-w",
            "-l", str(self.base / "server.log"), "start",
        )  # fmt: skip
        self.maker = threading.Thread(target=self._make_ahead, name="pg-databases", daemon=True)
        self.maker.start()

    def _make_ahead(self) -> None:
        while not self.closing.is_set():
            self._drop_done()
            try:
                url = self._create()
            except subprocess.CalledProcessError:
                if self.closing.is_set():
                    return
                raise
            while not self.closing.is_set():
                try:
                    self.ready.put(url, timeout=0.1)
                    break
                except queue.Full:
                    self._drop_done()
                    continue

    def _drop_done(self) -> None:
        """Drop the databases tests are done with (`release`), their connections cut."""
        while not self.closing.is_set():
            try:
                name = self.done.get_nowait()
            except queue.Empty:
                return
            # (a failure leaves it to the folder's removal at the end)
            subprocess.run(
                [str(self.bindir / "dropdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                 "truco", "--force", "--if-exists", name],
                capture_output=True,
            )  # fmt: skip

    def release(self, url: str) -> None:
        """A test is done with the database at `url`: dropped soon, in the background."""
        self.done.put(url.rsplit("/", 1)[1])

    def stop(self) -> None:
        self.closing.set()
        if self.maker is not None:
            self.maker.join(timeout=30)
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            # Removed in the background: a worker's cluster holds some thousands of files, and
            # removing them took 6 to 17 s of a whole run's last seconds (the disk discards
            # each file's blocks as it goes); nothing reads the folder once the server stopped.
            subprocess.run(
                ["sh", "-c", 'rm -rf -- "$1" >/dev/null 2>&1 &', "sh", str(self.base)],
                check=False, start_new_session=True,
            )  # fmt: skip

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://truco@127.0.0.1:{self.port}/{name}"

    def new_database(self) -> str:
        """A database of its own for one test, fresh (never opened); its URL."""
        if self.maker is None or not self.maker.is_alive():
            return self._create()
        return self.ready.get(timeout=120)

    def _create(self) -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        subprocess.run(
            [str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
             "truco", name],
            check=True, capture_output=True,
        )  # fmt: skip
        return self.url(name)
