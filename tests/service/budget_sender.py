"""A sender as a process of its own (`python -m tests.service.budget_sender URL API OWNER
RATE`): a `Mailbox` on the shared PostgreSQL that delivers every row as a sendMessage to the
fake Bot API at API. It prints a JSON line each time its part of the bot's budget changes,
holds its whole process still when told (`hold` on its input) until told to go on (`go`), and
runs until it is stopped (or killed: tests/service/test_outbox_ceiling.py)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading

import aiohttp

from bot.model.outbox import Pending
from bot.service.mailbox import Delivery, Mailbox, Verdict
from bot.storage.connect import open_database
from bot.storage.outbox import OutboxStore
from bot.telegram.pacing import TelegramPacing

LEASE = 3.0  # a lane's lease and a sender's heartbeat's (a dead one's part is free within it)


class TooMany(Exception):
    def __init__(self, retry: float) -> None:
        super().__init__(f"429: retry after {retry}")
        self.retry = retry


def judge(error: Exception) -> Verdict:
    if isinstance(error, TooMany):
        return Verdict(wait=error.retry, said="429")
    return Verdict(called=False)


async def main(url: str, api: str, owner: str, rate: float) -> None:
    db = await open_database(url)
    outbox = Mailbox(
        db, TelegramPacing(0.0), rate, owner=owner, lease=LEASE, poll=0.1,
        store=OutboxStore(db, owner), judge=judge,
    )  # fmt: skip
    async with aiohttp.ClientSession() as session:

        async def deliver(row: Pending) -> Delivery:
            fields = {"chat_id": row.chat_id, "text": f"{owner} {row.payload.get('n', '')}"}
            async with session.post(f"{api}/sendMessage", json=fields) as answer:
                body = await answer.json()
            if answer.status == 429:
                raise TooMany(float(body["parameters"]["retry_after"]))
            return Delivery()

        outbox.start(deliver)
        loop = asyncio.get_running_loop()

        go_on = threading.Event()

        async def hold() -> None:
            """The loop held up (a busy machine, a long pause), at a moment no call is in
            flight: nothing it let go before can reach the Bot API late. It stands still until
            the test says `go` (however long the other sender takes to see it gone)."""
            while outbox.in_flight:  # noqa: ASYNC110 (a count of the budget's, no event)
                await asyncio.sleep(0.001)
            print(json.dumps({"owner": owner, "holding": True}), flush=True)
            go_on.wait()  # on purpose: the whole process stands still
            go_on.clear()
            print(json.dumps({"owner": owner, "held": True}), flush=True)

        def order() -> None:  # a line on its input: "hold", then "go"
            for line in sys.stdin:
                if line.startswith("hold"):
                    loop.call_soon_threadsafe(lambda: loop.create_task(hold()))
                elif line.startswith("go"):
                    go_on.set()

        threading.Thread(target=order, daemon=True).start()
        shown = -1.0
        try:
            while True:
                if outbox.share != shown:
                    shown = outbox.share
                    print(json.dumps({"owner": owner, "share": shown}), flush=True)
                await asyncio.sleep(0.02)
        finally:
            await outbox.close()
            await db.close()


if __name__ == "__main__":
    url, api, owner, rate = sys.argv[1:5]
    asyncio.run(main(url, api, owner, float(rate)))
