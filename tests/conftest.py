"""Fixtures: the fake Bot API server and the real bot application polling it."""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from types import CodeType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from bot.app import build_application, running
from bot.config import Settings
from bot.runtime import Runtime
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.repo import Store
from bot.telegram.records import FRONT, TelegramTable
from tests.fakebot import TOKEN, FakeTelegram, FakeUser
from tests.pg import INSTALL_HINT, Cluster, find_bin
from tests.waiting import until

# A supergroup's id, as Telegram forms them (-100 and the channel's number): the tests open
# forum topics in it, which only supergroups have. (A basic group's id is a small negative
# number: tests/botapi_rules.py chat_type.)
GROUP = -1_001_000_000_555

# The order of the run (longest first, dealt out evenly among the test processes) and
# `--store-durations`, which rewrites the times that order reads; the test files rewritten (and
# the bot compiled) once before the test processes start; in a whole run, the statements the
# bot sent to each database, compared (what SQLite was sent, PostgreSQL must have been sent).
pytest_plugins = ["tests.schedule", "tests.warm", "tests.sqlseen"]

# The Pythons the tests start (`python -m bot` again and again, a sender, a second process on a
# database) load bot/'s modules from their compiled form once one of them has written it (in
# bot/__pycache__, ignored by git), instead of compiling every module again at each start: an
# environment that asks Python not to write it (PYTHONDONTWRITEBYTECODE) made each restart of
# tests/e2e/test_kill*.py compile the whole bot. (Read by the processes started from here on.)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# The property tests judge what the code does, never how fast a busy machine does it: no
# per-example deadline and no "too slow" health check (a run beside other work failed
# tests/unit/test_payloads.py on Hypothesis' timing alone, at load 15, while it passed alone).
# Each test's own settings (its number of examples) still apply on top of this profile.
settings.register_profile("truco", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("truco")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (README, .ci/run): two test processes a core. Most of a test's time is spent
    waiting (for the bot's answer, a restarted process, Chromium, PostgreSQL), not computing:
    with one process a core the cores stood idle half the time. (PYTEST_XDIST_AUTO_NUM_WORKERS,
    when set, still says how many: xdist's own reading of `auto` then.)"""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return 2 * len(os.sched_getaffinity(0))


# -- the slow tier ---------------------------------------------------------------------------
# `-m "not slow"` is the fast loop (README); the whole suite, what CI runs, includes these. They
# are marked here, from what a test uses, so that no test file has to say it.
def _starts_a_process(code: object, seen: set[object]) -> bool:
    """Whether a test's code, or a helper of the tests it calls (a function, a class's
    methods), runs `sys.executable`: the bot as a real `python -m bot`, or another Python.
    (Read from the compiled code's names, not its source: reading every test's source again
    took each test process a second or two of every run's collection.)"""
    if code in seen:
        return False
    seen.add(code)
    if inspect.isclass(code):
        return any(
            _starts_a_process(method, seen) for method in vars(code).values()
            if inspect.isfunction(method)
        )  # fmt: skip
    names = set(_names(getattr(code, "__code__", None)))
    if {"sys", "executable"} <= names:
        return True
    scope = getattr(code, "__globals__", {})
    for name in names:
        helper = scope.get(name)
        if (
            (inspect.isfunction(helper) or inspect.isclass(helper))
            and helper.__module__.startswith("tests.")
            and _starts_a_process(helper, seen)
        ):
            return True
    return False


def _names(code: CodeType | None) -> Iterator[str]:
    """The global names a function's code reads, its inner functions' included."""
    if code is None:
        return
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


def _why_slow(item: pytest.Item) -> str | None:
    fixtures = getattr(item, "fixturenames", ())
    if "browser" in fixtures:
        return "chromium"
    params = getattr(getattr(item, "callspec", None), "params", {})
    if params.get("db_target") == "postgresql" or "pg_cluster" in fixtures:
        return "postgresql"
    function = getattr(item, "function", None)
    if function is not None:
        if function not in _PROCESSES:
            _PROCESSES[function] = _starts_a_process(function, set())
        if _PROCESSES[function]:
            return "process"
    return None


_PROCESSES: dict[object, bool] = {}  # a test function -> whether it starts a process


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        why = _why_slow(item)
        if why is not None:
            item.add_marker(pytest.mark.slow(why))


class _Errors(logging.Handler):
    """Every ERROR the bot logs (an exception that escaped a handler, a failed call)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class FakeClock:
    """The wall clock of turn and lobby deadlines, moved by the test."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Harness:
    """The bot under test, with the helpers scripted users need."""

    def __init__(self, fake: FakeTelegram, settings: Settings) -> None:
        self.fake = fake
        self.settings = settings
        self.clock = FakeClock()
        self.app: Any = None
        self._stack: AsyncExitStack | None = None
        self.errors = _Errors()

    @property
    def services(self) -> Runtime:
        runtime: Runtime = self.app.bot_data["runtime"]
        return runtime

    @property
    def store(self) -> Store:
        """The bot's storage (the tests look at the database; the bot's front ends cannot)."""
        return self.services.core.store

    @property
    def db(self) -> Database:
        return self.services.core.store.db

    async def telegram(self, table_id: int) -> TelegramTable:
        """The Telegram adapter's records of a table: its board, hand messages, join token."""
        return TelegramTable.of(await self.services.core.records.of(FRONT, table_id))

    async def start(self) -> None:
        logging.getLogger().addHandler(self.errors)
        self.app = build_application(self.settings, clock=self.clock)
        self._stack = AsyncExitStack()
        await self._stack.enter_async_context(running(self.app, poll_timeout=1))

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None
        logging.getLogger().removeHandler(self.errors)

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    def user(self, user_id: int, name: str, started: bool = True) -> FakeUser:
        if started:
            self.fake.started.add(user_id)
        return FakeUser(self.fake, user_id, name)

    async def quiet(self) -> bool:
        """Every update taken and handled, and nothing left in the outbox."""
        # (an update taken from the queue is in the processor's count from its task's first
        # step on: `settle` asks twice, a moment apart, so one taken just now is seen)
        return (
            self.fake.unacked() == 0
            and self.app.update_queue.empty()
            and self.app.update_processor.current_concurrent_updates == 0
            and not self.services.outbox.busy()
            and not self.services.ai.busy()
            and not self.services.core.tournaments.busy()
            and not self.services.core.admission.busy()
            and not self.services.core.daily.busy()
            and await self.services.outbox.store.waiting() == 0
        )

    async def settle(self, within: float = 180.0) -> None:
        """Wait until every update is handled and every outgoing call is made: conditions the
        bot reports, not a guess of how long it takes, so a slow machine only waits longer.
        (180 s: a review, some 5 s of CPU, took past 90 s on a 2-core machine at load 15.)"""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if await self.quiet():
                await asyncio.sleep(0.002)
                if await self.quiet():
                    return
            await asyncio.sleep(0.002)
        raise TimeoutError("the bot did not settle")

    async def until(self, condition: Callable[[], bool], within: float = 90.0) -> None:
        """Wait for a condition of the test (a deadline, never a fixed sleep)."""
        await until(condition, within)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster | None]:
    """One throw-away PostgreSQL server per test process, started on first use (in a
    directory of /tmp of its own: pytest's are closed to the `postgres` user)."""
    bindir = find_bin()
    if bindir is None:
        yield None
        return
    cluster = Cluster(bindir, Path(tempfile.mkdtemp(prefix="truco-pg-")))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all-postgresql",
        action="store_true",
        help="run every test that starts the bot on PostgreSQL too, not only those marked"
        " `postgresql` (for work on the storage)",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that starts the bot (`db_target`) runs on SQLite; marked `postgresql`, on
    PostgreSQL too. Which tests carry the mark: tests/sqlseen.py checks, in a whole run, that
    every statement the bot sent to SQLite went to PostgreSQL too."""
    if "db_target" not in metafunc.fixturenames:
        return
    both = metafunc.definition.get_closest_marker("postgresql") is not None
    if both or metafunc.config.getoption("--all-postgresql"):
        metafunc.parametrize("db_target", ["sqlite", "postgresql"], indirect=True)
    else:
        metafunc.parametrize("db_target", ["sqlite"], indirect=True)


@pytest.fixture
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where the bot keeps its data in this test: a SQLite file, or a fresh PostgreSQL
    database (`pytest_generate_tests`: the tests marked `postgresql` run against both)."""
    if request.param == "sqlite":
        return tmp_path / "truco.db"
    cluster: Cluster | None = request.getfixturevalue("pg_cluster")
    if cluster is None:
        pytest.skip(INSTALL_HINT)
    url = cluster.new_database()
    request.addfinalizer(lambda: cluster.release(url))
    return url


def make_settings(base_url: str, database: Path | str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": TOKEN,
        "database": database,
        "api_base_url": base_url,
        "seed": 7,
        "group_interval": 0.005,
        "private_per_second": 620.0,  # (a private chat's second, 620 times faster, as a group's)
        "rate_group_per_minute": 1_000_000,
        "rate_overall_per_second": 1_000_000,
        "poll_timeout": 1,
        "lobby_seconds": 600,
        "turn_seconds": 0,
        "timer_tick": 0.1,
        "bot_delay": 0,
        "ai_workers": 0,
        "own_hand_defer": 0.0,  # (the tapper's hand at once: tests/e2e/test_calls_per_tap.py)
        "watched_board_interval": 0.0,  # (every board at once: the same file)
        "reply_burst": 1_000,  # the tests send many commands; tests/e2e/test_hardening.py not
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@asynccontextmanager
async def harness_with(
    fake: FakeTelegram, database: Path | str, **overrides: Any
) -> AsyncIterator[Harness]:
    """A running bot with settings of its own (a short lobby, a turn timer, ...)."""
    h = Harness(fake, make_settings(f"http://127.0.0.1:{fake.port}/bot", database, **overrides))
    await h.start()
    try:
        yield h
    finally:
        await h.stop()


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    # Telegram allows 20 calls a minute in a group; the tests pace groups 620 times faster
    # (0.005 s instead of 3.1 s: at 155 times, 0.02 s, the group's pace was most of an
    # end-to-end test's time), so the fake shrinks its minute by as much.
    server = FakeTelegram(group_limit=(20, 60 / 620))
    await server.start()
    yield server
    await server.stop()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file the bot's migrations have made, once per test process: a bot under test
    starts on a copy of it instead of migrating a new file at each test (the migrations
    themselves are tested where a test opens a database of its own: tests/service)."""
    path = tmp_path_factory.mktemp("template") / "truco.db"

    async def migrate() -> None:
        await (await open_database(path)).close()

    # (in a thread of its own: a session fixture may be set up while a test's loop runs)
    worker = threading.Thread(target=asyncio.run, args=(migrate(),))
    worker.start()
    worker.join()
    assert path.exists()
    return path


@pytest.fixture
def migrated_target(db_target: Path | str, sqlite_template: Path) -> Path | str:
    """`db_target`, a SQLite file already migrated (a copy of the template)."""
    if isinstance(db_target, Path) and not db_target.exists():
        shutil.copyfile(sqlite_template, db_target)
    return db_target


@pytest.fixture
async def harness(fake: FakeTelegram, migrated_target: Path | str) -> AsyncIterator[Harness]:
    base = f"http://127.0.0.1:{fake.port}/bot"
    h = Harness(fake, make_settings(base, migrated_target))
    await h.start()
    yield h
    await h.stop()
    # No exception escaped a handler, no outgoing call failed, in any test using the bot.
    assert [r.getMessage() for r in h.errors.records] == []
