"""💡 Hint floods (issue 45), and what they cost another table's computer player.

    python bench/hint_flood.py web [--requests 352 --seconds 14]
    python bench/hint_flood.py telegram [--people 30 --taps 5]

`web`: `python -m bot --local` in its own process (one process for the computer players, the
bots' usual 1.5 s pause); Ana, at a practice table against difícil, posts the hint route for
her move again and again (from her address, within its allowance: 20 a second, 60 at once),
while Beto, at another table (another address), plays against difícil. `telegram`: the real
bot (python-telegram-bot) against the fake Bot API of the tests, in this process, the same
pool and pause; `--people` players, each at a practice table of their own group, tap 💡 `--taps`
times at once (forged or real: the same button), while Zoe, in another group, plays against
difícil. The fake refuses an answer to a tap more than 15 s old, as Telegram does.

Reported: the CPU the bot burned during the flood (its process and its pools), how the asks
were answered, and Beto's or Zoe's computer player's delay (from their move sent to the
computer player's move seen; the pause is 1.5 s of it), before and during the flood.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.waiting import until  # noqa: E402

WINDOW = 15.0  # seconds Telegram lets a tap be answered


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tree(root: int) -> list[int]:
    """`root` and every process under it."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, []))
    return found


class CpuMeter:
    """CPU seconds of a process tree since `start` (the pools' processes included; one that
    ended meanwhile is left out, none does here)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.base: dict[int, float] = {}

    def start(self) -> None:
        self.base = {pid: _cpu(pid) for pid in _tree(self.root)}

    def spent(self) -> float:
        return sum(_cpu(pid) - self.base.get(pid, 0.0) for pid in _tree(self.root))


def summary(name: str, delays: list[float]) -> str:
    if not delays:
        return f"{name}: no move measured"
    return (
        f"{name}: {len(delays)} moves, median {statistics.median(delays):.2f} s,"
        f" max {max(delays):.2f} s"
    )


# -- the web flood -----------------------------------------------------------------------------
class Client:
    def __init__(self, http: aiohttp.ClientSession, base: str, session: str) -> None:
        self.http, self.base, self.session = http, base, session

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Local-Session": self.session}

    async def post(self, path: str, body: Any) -> tuple[int, Any]:
        async with self.http.post(f"{self.base}{path}", headers=self.headers, json=body) as r:
            return r.status, await r.json()

    async def view(self, table: int) -> dict[str, Any]:
        async with self.http.get(f"{self.base}/api/table/{table}", headers=self.headers) as r:
            found: dict[str, Any] = await r.json()
            return found


async def login(base: str, name: str, address: str) -> Client:
    http = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, local_addr=(address, 0))
    )
    async with http.post(f"{base}/api/local/login", json={"name": name}) as r:
        return Client(http, base, (await r.json())["session"])


async def my_turn(client: Client, table: int, within: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        view = await client.view(table)
        if view.get("actions") and view.get("seat") in view.get("waiting_on", []):
            return view
        await asyncio.sleep(0.1)
    raise TimeoutError("never my turn")


async def practice(client: Client) -> int:
    body = {"mode": "1v1", "level": "dificil", "target": 30}
    status, made = await client.post("/api/local/new", body)
    assert status == 200, made
    return int(made["table"])


async def web_player(client: Client, delays: list[float], stop: asyncio.Event) -> None:
    """Beto plays his table against difícil, timing each of its computer player's moves."""
    table = await practice(client)
    while not stop.is_set():
        view = await my_turn(client, table)
        if view.get("over"):
            table = await practice(client)
            continue
        action = view["actions"][-1]  # (a card, rather than a chant: the match goes on)
        kind, *card = action["code"].split(":")[1:]
        sent = time.perf_counter()
        status, fresh = await client.post(
            f"/api/table/{table}/act",
            {"step": view["step"], "kind": kind, "card": card[0] if card else None},
        )
        if status != 200 or fresh.get("over"):
            if fresh.get("over"):
                table = await practice(client)
            continue
        if fresh.get("seat") in fresh.get("waiting_on", []):
            continue  # his turn again: no computer player's move to time
        while True:
            await asyncio.sleep(0.05)
            now = await client.view(table)
            if now.get("step", 0) > fresh["step"] or now.get("over"):
                delays.append(time.perf_counter() - sent)
                break


async def web(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ, "TRUCO_MODE": "local", "TRUCO_WEB_PORT": str(port),
            "TRUCO_DATABASE": f"{tmp}/bench.db", "TRUCO_LOG_LEVEL": "WARNING",
            "TRUCO_AI_WORKERS": "1", "TRUCO_BOT_DELAY": "1.5",
        }  # fmt: skip
        env.pop("TRUCO_BOT_TOKEN", None)
        log_path = Path(tmp) / "server.log"
        with log_path.open("w") as log_file:
            server = subprocess.Popen(  # noqa: ASYNC220 (once, before anything is measured)
                [sys.executable, "-m", "bot", "--local"], cwd=ROOT, env=env,
                stdout=subprocess.PIPE, stderr=log_file, text=True,
            )  # fmt: skip
            assert server.stdout is not None
            server.stdout.readline()  # "the local table is at ..."
            base = f"http://127.0.0.1:{port}"
            ana = await login(base, "Ana", "127.0.0.1")
            beto = await login(base, "Beto", "127.0.0.2")
            table = await practice(ana)
            view = await my_turn(ana, table)
            stop = asyncio.Event()
            before: list[float] = []
            player = asyncio.create_task(web_player(beto, before, stop))
            await until(lambda: len(before) >= 3, 120)
            during: list[float] = []
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
            meter = CpuMeter(server.pid)
            meter.start()
            started = time.perf_counter()
            player = asyncio.create_task(web_player(beto, during, stop))
            statuses: Counter[int] = Counter()
            answered: list[float] = []

            async def ask(at: float) -> None:
                await asyncio.sleep(max(0.0, started + at - time.perf_counter()))
                sent = time.perf_counter()
                status, _ = await ana.post(f"/api/table/{table}/hint", {"step": view["step"]})
                statuses[status] += 1
                answered.append(time.perf_counter() - sent)

            gap = args.seconds / args.requests
            await asyncio.gather(*(ask(i * gap) for i in range(args.requests)))
            flooded = time.perf_counter() - started
            # the computer players' moves queued behind the flood, if any, come out now
            await until(lambda: bool(during) and time.perf_counter() - started > flooded + 2, 120)
            cpu = meter.spent()
            stop.set()
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
            for client in (ana, beto):
                await client.http.close()
            server.terminate()
            server.wait(30)
        errors = log_path.read_text().count("Traceback")
    print(f"web: {args.requests} hint requests in {flooded:.1f} s, answers {dict(statuses)},"
          f" answered within p50 {statistics.median(answered):.2f} s,"
          f" max {max(answered):.2f} s")  # fmt: skip
    print(f"  CPU burned by the bot (its process and pools): {cpu:.1f} s")
    print("  " + summary("another table's computer player, before the flood", before))
    print("  " + summary("... during it", during))
    print(f"  tracebacks in the bot's log: {errors}")


# -- the Telegram flood ------------------------------------------------------------------------
class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def telegram(args: argparse.Namespace) -> None:
    from bot.app import build_application, running
    from bot.service.play import bot_to_move
    from tests.conftest import make_settings
    from tests.e2e.helpers import action_buttons, hand_message
    from tests.fakebot import FakeTelegram, FakeUser, _ApiError

    class Telegram(FakeTelegram):
        """The fake Bot API, refusing an answer to a tap older than Telegram allows."""

        pushed_at: dict[str, float]

        def push(self, update: dict[str, Any]) -> None:
            query = update.get("callback_query")
            if query is not None:
                self.pushed_at[query["id"]] = time.monotonic()
            super().push(update)

        async def api_answerCallbackQuery(self, params: dict[str, Any]) -> bool:
            at = self.pushed_at.get(params["callback_query_id"])
            if at is not None and time.monotonic() - at > WINDOW:
                self.late += 1
                raise _ApiError(400, "Bad Request: query is too old and response timeout expired")
            return await super().api_answerCallbackQuery(params)

    fake = Telegram(group_limit=(20, 60 / 155))
    fake.pushed_at = {}
    fake.late = 0  # type: ignore[attr-defined]
    await fake.start()
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    logging.getLogger().setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        settings = make_settings(
            f"http://127.0.0.1:{fake.port}/bot", Path(tmp) / "bench.db",
            bot_delay=1.5, ai_workers=1, seed=7,
        )  # fmt: skip
        app = build_application(settings)
        async with running(app, poll_timeout=1):
            runtime = app.bot_data["runtime"]
            tables = runtime.core.tables

            def hint_of(user: FakeUser) -> tuple[int, str] | None:
                message = hand_message(_H, user)  # type: ignore[arg-type]
                if message is None:
                    return None
                found = [b for b in message.buttons() if b["callback_data"].startswith("h:")]
                return (message.message_id, found[0]["callback_data"]) if found else None

            class _H:  # what tests.e2e.helpers.hand_message reads of a harness
                pass

            _H.fake = fake  # type: ignore[attr-defined]
            people = [FakeUser(fake, n, f"P{n}") for n in range(1, args.people + 1)]
            for user in people:
                fake.started.add(user.id)
                user.send(-1000 - user.id, "/nueva bot 30 sinflor")
            zoe = FakeUser(fake, 999, "Zoe")
            fake.started.add(zoe.id)
            zoe.send(-2000, "/nueva bot difícil 30 sinflor")
            deadline = time.monotonic() + 120
            while any(hint_of(u) is None for u in people):
                assert time.monotonic() < deadline, "the practice tables did not start"
                await asyncio.sleep(0.1)

            async def zoe_plays(delays: list[float], stop: asyncio.Event) -> None:
                while not stop.is_set():
                    table = await tables.table_in(-2000, 0)
                    message = hand_message(_H, zoe)  # type: ignore[arg-type]
                    if table is None or table.state is None or message is None:
                        await asyncio.sleep(0.05)
                        continue
                    if table.status.value != "playing":
                        zoe.send(-2000, "/nueva bot difícil 30 sinflor")
                        await asyncio.sleep(1)
                        continue
                    if bot_to_move(table) is not None or not any(
                        a.seat == table.seat_of(zoe.id) for a in table.state.legal_actions()
                    ):
                        await asyncio.sleep(0.05)
                        continue
                    buttons = action_buttons(message)
                    cards = [b for b in buttons if b["callback_data"].count(":") == 4]
                    chosen = (cards or buttons)[0]["callback_data"]  # (a card, else "quiero")
                    sent = time.perf_counter()
                    query = zoe.tap_data(zoe.id, message.message_id, chosen)
                    await zoe.answer_of(query, 60)
                    after = await tables.get(table.id)
                    if after is None or after.state is None or bot_to_move(after) is None:
                        continue
                    step = after.state.step
                    while True:
                        await asyncio.sleep(0.02)
                        now = await tables.get(table.id)
                        if now is None or now.state is None or now.state.step > step:
                            delays.append(time.perf_counter() - sent)
                            break

            stop = asyncio.Event()
            before: list[float] = []
            player = asyncio.create_task(zoe_plays(before, stop))
            await until(lambda: len(before) >= 3, 120)
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
            errors.records.clear()
            meter = CpuMeter(os.getpid())
            meter.start()
            during: list[float] = []
            player = asyncio.create_task(zoe_plays(during, stop))
            started = time.perf_counter()
            queries = []
            for user in people:
                found = hint_of(user)
                assert found is not None
                message_id, data = found
                queries += [user.tap_data(user.id, message_id, data) for _ in range(args.taps)]
            texts: Counter[str] = Counter()

            async def answer_of(query: str) -> None:
                try:
                    await asyncio.wait_for(fake.answer_events[query].wait(), WINDOW + 15)
                except TimeoutError:
                    texts["(no answer)"] += 1
                    return
                text = fake.answers[query]["text"]
                texts["💡 a hint" if text.startswith("💡") else text] += 1

            await asyncio.gather(*(answer_of(q) for q in queries))
            handling = app._Application__create_task_tasks  # every tap handled (a dropped
            await until(lambda: not any(not t.done() for t in handling), 60)  # one: unanswered)
            flooded = time.perf_counter() - started
            await until(lambda: bool(during) and time.perf_counter() - started > flooded + 2, 120)
            cpu = meter.spent()
            stop.set()
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)
    await fake.stop()
    tracebacks = sum(1 for r in errors.records if r.exc_info)
    print(f"telegram: {len(queries)} 💡 taps at once by {args.people} people,"
          f" all answered or dropped in {flooded:.1f} s; answers {dict(texts)}")  # fmt: skip
    print(f"  answers refused as too late: {fake.late}")  # type: ignore[attr-defined]
    print(f"  CPU burned by the bot (its process and pools): {cpu:.1f} s")
    print("  " + summary("another group's computer player, before the flood", before))
    print("  " + summary("... during it", during))
    print(f"  ERROR records: {len(errors.records)}, with a traceback: {tracebacks}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("front", choices=["web", "telegram"])
    parser.add_argument("--requests", type=int, default=352)
    parser.add_argument("--seconds", type=float, default=14.0)
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--taps", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(web(args) if args.front == "web" else telegram(args))


if __name__ == "__main__":
    main()
