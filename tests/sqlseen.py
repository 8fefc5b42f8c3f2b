"""The statements the bot sends to its databases, seen in a whole run of the suite: each one it
sends to SQLite must have been sent to PostgreSQL too, with every kind of argument it had.

The storage writes one SQL for both (SQLite's, translated for PostgreSQL in
bot/storage/postgres.py). Most tests that start the bot run on SQLite alone; the tests marked
`@pytest.mark.postgresql` run on both (tests/conftest.py). Which ones carry the mark is not a
guess: at the end of a whole run (`pytest -n auto`, README, as CI runs it), this plugin fails the
run if a statement the bot sent to SQLite never went to PostgreSQL, or went only with arguments
of other types (a float where an integer had been, a string where a number), and names the
tests that sent it, one of which to mark. A run of part of the suite (a file, `-k`, `-m`)
checks nothing and records nothing.

Not counted: the statements the tests send themselves (to look at the database), and the
statements only SQLite's own branches send (`SQLITE_ONLY`: there PostgreSQL sends one
statement of its own, run by the tests that run its branch).

What statements do not show is how the server orders two transactions at once (its advisory
locks, its isolation): the tests of simultaneous taps carry the mark for that, chosen by hand,
beside the tests of several workers that run on PostgreSQL alone.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

# Statements (their beginnings) sent from SQLite's side of a branch on the dialect.
SQLITE_ONLY = (
    "PRAGMA ",  # bot/storage/sqlite.py
    # bot/storage/outbox.py: a delivery, a lane's claim, its pace, a queue's read, SQLite's way
    # (PostgreSQL's are one statement each: `WITH gone AS (...)`, `INSERT ... RETURNING`, ...)
    "DELETE FROM outbox WHERE id = ? AND version = ?",
    "UPDATE outbox SET done = ? WHERE id = ?",
    "UPDATE lanes SET next_at = ? WHERE chat_id = ? AND owner = ?",
    "INSERT INTO lanes AS l ",
    "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at, stamp) VALUES",
    "SELECT owner, next_at, COALESCE(",
    "SELECT id, chat_id, kind, key, payload, version, priority, loud > done AS is_loud,"
    " created_at, stamp FROM outbox WHERE chat_id = ? ORDER BY",
)

_OUTPUT = "sqlseen"  # (a test process's part, sent to xdist's controller)
Seen = dict[str, dict[str, set[tuple[int, str]]]]  # dialect -> statement -> (group, type)


def whole_run(config: pytest.Config) -> bool:
    """The run is the whole suite: no selection by keyword, mark, file or last failures."""
    option = config.option
    if getattr(option, "keyword", "") or getattr(option, "markexpr", ""):
        return False
    if getattr(option, "lf", False) or getattr(option, "deselect", None):
        return False
    if getattr(option, "exitfirst", False) or getattr(option, "maxfail", 0):
        return False
    tests = Path(config.rootpath, "tests").resolve()
    args = [Path(config.invocation_params.dir, a.split("::")[0]).resolve() for a in config.args]
    return all(a == tests or a == Path(config.rootpath).resolve() for a in args)


_GROUP = re.compile(r"'(?:[^']|'')*'|\?(?:\s*,\s*\?)*")  # a literal, or a run of `?, ?, ...`
_IN = re.compile(r"\bIN\s*\(\s*$", re.IGNORECASE)  # (a list of one is a list too)


@functools.lru_cache(maxsize=4096)
def _shape(sql: str) -> tuple[str, tuple[int, ...]]:
    """The statement with each list of placeholders (an `IN (?, ?, ?)`) written once, and for
    each argument the run it fills."""
    groups: list[int] = []
    parts: list[str] = []
    last = 0
    for match in _GROUP.finditer(sql):
        if match.group(0).startswith("'"):
            continue
        parts.append(sql[last : match.start()])
        listed = "," in match.group(0) or _IN.search(sql, 0, match.start()) is not None
        parts.append("?…" if listed else "?")
        groups.extend([len(set(groups))] * match.group(0).count("?"))
        last = match.end()
    parts.append(sql[last:])
    return " ".join("".join(parts).split()), tuple(groups)


class Recorder:
    def __init__(self) -> None:
        self.seen: Seen = {"sqlite": {}, "postgresql": {}}
        self.senders: dict[str, set[str]] = {}  # a SQLite statement -> tests that sent it
        self.test = ""

    def note(self, dialect: str, sql: str, rows: Iterable[Sequence[object]]) -> None:
        text, groups = _shape(sql)
        kinds = self.seen[dialect].setdefault(text, set())
        for args in rows:
            for index, arg in enumerate(args):
                if arg is not None:
                    kinds.add((groups[index] if index < len(groups) else index, type(arg).__name__))
        if dialect == "sqlite":
            self.senders.setdefault(text, set()).add(self.test)


_KEY = pytest.StashKey[Recorder]()


def _from_tests() -> bool:
    """Whether the statement being sent comes from a test's own code (not the bot's)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith(("bot.storage.sqlite", "bot.storage.postgres", __name__)):
            return name.startswith("tests.")
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _watch(cls: type, method: str, dialect: str, recorder: Recorder, star: bool) -> None:
    original: Callable[..., Any] = getattr(cls, method)

    @functools.wraps(original)
    async def watched(self: object, sql: str, *rest: Any) -> Any:
        if not _from_tests():
            if method == "executemany":
                rows = [tuple(r) for r in rest[0]]
                recorder.note(dialect, sql, rows)
                return await original(self, sql, rows)
            recorder.note(dialect, sql, [rest if star else (rest[0] if rest else ())])
        return await original(self, sql, *rest)

    setattr(cls, method, watched)


def pytest_configure(config: pytest.Config) -> None:
    if not whole_run(config):
        return
    recorder = Recorder()
    config.stash[_KEY] = recorder
    if not hasattr(config, "workerinput") and getattr(config.option, "numprocesses", None):
        return  # (xdist's controller runs no test: it gathers what its processes saw)
    from bot.storage import postgres, sqlite

    for method in ("execute", "run", "executemany", "fetchall", "fetchone"):
        _watch(sqlite._SqliteConn, method, "sqlite", recorder, star=False)
        _watch(postgres._PgConn, method, "postgresql", recorder, star=False)
    for method in ("fetchone", "fetchall"):
        _watch(postgres.PostgresDatabase, method, "postgresql", recorder, star=True)
    _watch(sqlite.SqliteDatabase, "report", "sqlite", recorder, star=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Any:
    recorder = item.config.stash.get(_KEY, None)
    if recorder is not None:
        recorder.test = item.nodeid
    return (yield)


def _plain(recorder: Recorder) -> dict[str, Any]:
    return {
        "seen": {d: {s: sorted(k) for s, k in by.items()} for d, by in recorder.seen.items()},
        "senders": {s: sorted(t) for s, t in recorder.senders.items()},
    }


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    recorder = config.stash.get(_KEY, None)
    if recorder is None:
        return
    if hasattr(config, "workerinput"):  # a test process: its part goes to the controller
        config.workeroutput[_OUTPUT] = _plain(recorder)  # type: ignore[attr-defined]
        return
    if session.testsfailed or session.shouldfail or session.shouldstop:
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if not recorder.seen["postgresql"]:  # (no server here: its tests skipped, and said why)
        if reporter is not None:
            reporter.write_line("tests/sqlseen.py: PostgreSQL never ran, nothing to compare")
        return
    missing = unsent(recorder)
    if missing:
        lines = ["Sent to SQLite and never to PostgreSQL (mark a test that sends it"
                 " @pytest.mark.postgresql, tests/sqlseen.py):"]  # fmt: skip
        for text, kinds, senders in missing:
            lines.append(f"  {text[:160]}" + (f"  (arguments {kinds})" if kinds else ""))
            lines.append(f"    sent by {', '.join(senders[:3])}")
        if reporter is not None:
            reporter.write_sep("=", "statements PostgreSQL never ran", red=True)
            reporter.write_line("\n".join(lines))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_testnodedown(node: Any, error: object) -> None:
    recorder = node.config.stash.get(_KEY, None)
    part = getattr(node, "workeroutput", {}).get(_OUTPUT)
    if recorder is None or part is None:
        return
    for dialect, by in part["seen"].items():
        for text, kinds in by.items():
            recorder.seen[dialect].setdefault(text, set()).update(tuple(k) for k in kinds)
    for text, tests in part["senders"].items():
        recorder.senders.setdefault(text, set()).update(tests)


def unsent(recorder: Recorder) -> list[tuple[str, list[tuple[int, str]], list[str]]]:
    """Each statement sent to SQLite and not to PostgreSQL (or not with some kind of argument
    it had): the statement, the kinds missing ([] for the statement itself), who sent it.

    A statement PostgreSQL ran inside a larger one counts (the commit of a change is one
    statement there, `WITH g AS (UPDATE games ...), a AS (INSERT INTO actions ...) ...`, where
    SQLite sends each part in a transaction): with the kinds of the arguments it had there."""
    found = []
    postgresql = recorder.seen["postgresql"]
    for text, kinds in sorted(recorder.seen["sqlite"].items()):
        if text.startswith(SQLITE_ONLY):
            continue
        ran = False
        had: set[tuple[int, str]] = set()
        for other, their in postgresql.items():
            at = other.find(text)
            if at < 0:
                continue
            ran = True
            shift = other[:at].count("?")  # (the placeholders' runs before it)
            had |= {(group - shift, kind) for group, kind in their if group >= shift}
        missing = sorted(kinds - had) if ran else []
        if ran and not missing:
            continue
        found.append((text, missing, sorted(recorder.senders.get(text, ()))))
    return found
