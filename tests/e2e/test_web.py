"""The web table beside the Telegram bot (a Mini App): who may see what, and actions from the
page through the same service as a tap, checked over HTTP against the running bot, with
launch data signed as Telegram signs it (the fake Bot API's token)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

import aiohttp
import pytest

from bot.model.table import Table
from bot.web.initdata import sign
from tests.conftest import GROUP, TOKEN, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table, play_to_the_end
from tests.fakebot import BOT_USERNAME, FakeTelegram, FakeUser

WEBAPP = "https://truco.example.invalid/table"  # only ever written into buttons
MAX_AGE = 3600


@pytest.fixture
async def h(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, tmp_path / "web.db", webapp_url=WEBAPP, webapp_name="mesa", web_port=0,
        webapp_max_age=MAX_AGE,
    ) as harness:  # fmt: skip
        yield harness


def launch(h: Harness, user: FakeUser, token: str = TOKEN, age: float = 60, **extra: str) -> str:
    fields = {
        "auth_date": str(int(h.clock() - age)),
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
        "query_id": "AAE1",
        **extra,
    }
    return sign(fields, token)


async def call(
    h: Harness, method: str, path: str, init: str | None, body: Any = None
) -> tuple[int, Any]:
    web = h.services.web
    assert web is not None
    headers = {"X-Telegram-Init-Data": init} if init is not None else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, f"http://127.0.0.1:{web.port}{path}", headers=headers, json=body
        ) as response,
    ):
        text = await response.text()
        try:
            return response.status, json.loads(text)
        except json.JSONDecodeError:
            return response.status, text


async def started(h: Harness) -> tuple[Table, FakeUser, FakeUser]:
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    return table, ana, juan


async def test_only_telegrams_fresh_launch_data_opens_the_table(h: Harness) -> None:
    table, ana, _ = await started(h)
    path = f"/api/table/{table.id}"
    assert (await call(h, "GET", path, None))[0] == 401  # nothing
    assert (await call(h, "GET", path, launch(h, ana, token="999:other-bot")))[0] == 401
    assert (await call(h, "GET", path, launch(h, ana, age=MAX_AGE + 60)))[0] == 401  # stale
    fields = dict(parse_qsl(launch(h, ana)))
    fields["user"] = json.dumps({"id": 2, "first_name": "Juan"})  # Ana poses as Juan
    assert (await call(h, "GET", path, urlencode(fields)))[0] == 401
    status, view = await call(h, "GET", path, launch(h, ana))
    assert status == 200 and view["seat"] == table.seat_of(ana.id)
    # The local try-out's identity does not exist here.
    assert (await call(h, "POST", "/api/local/login", None, {"name": "x"}))[0] in (404, 405)


async def test_each_viewer_sees_what_their_seat_may_see_and_nothing_more(h: Harness) -> None:
    table, ana, juan = await started(h)
    carla, dario = h.user(3, "Carla"), h.user(4, "Dario")
    carla.joins(GROUP)  # a member of the group, not seated; Dario is a stranger
    assert table.state is not None and table.state.hand is not None
    held = {s: {c.code for c in table.state.hand.held[s]} for s in range(2)}
    path = f"/api/table/{table.id}"
    for user in (ana, juan):
        seat = table.seat_of(user.id)
        assert seat is not None
        status, view = await call(h, "GET", path, launch(h, user))
        assert status == 200 and {c["card"] for c in view["hand"]} == held[seat]
        shown = set(re.findall(r'"card": "(\w+)"', json.dumps(view)))
        assert not shown & held[1 - seat]  # not one of the other hand's cards, anywhere
    status, public = await call(h, "GET", path, launch(h, carla))
    assert status == 200 and public["seat"] is None and "hand" not in public
    assert not set(re.findall(r'"card": "(\w+)"', json.dumps(public))) & (held[0] | held[1])
    assert (await call(h, "GET", path, launch(h, dario)))[0] == 403
    assert (await call(h, "GET", "/api/table/999999", launch(h, ana)))[0] == 404


async def test_an_action_from_the_page_is_a_tap_stale_and_forged_ones_change_nothing(
    h: Harness,
) -> None:
    table, ana, juan = await started(h)
    assert table.state is not None
    mover = ana if table.state.hand and table.state.hand.turn == table.seat_of(ana.id) else juan
    waiting = juan if mover is ana else ana
    _, view = await call(h, "GET", f"/api/table/{table.id}", launch(h, mover))
    card = next(a for a in view["actions"] if a.get("card"))
    act = f"/api/table/{table.id}/act"
    body = {"step": view["step"], "kind": "p", "card": card["card"]}
    status, refused = await call(h, "POST", act, launch(h, waiting), body)
    assert status == 409 and refused["error"]  # not their turn: said, nothing changes
    status, refused = await call(h, "POST", act, launch(h, mover), {**body, "step": 0})
    assert status == 409 and refused["error"]  # an old step, and the same move is not legal
    assert (await call(h, "POST", act, launch(h, mover), {"step": "x", "kind": "??"}))[0] == 400
    carla = h.user(3, "Carla")
    carla.joins(GROUP)
    assert (await call(h, "POST", act, launch(h, carla), body))[0] == 403
    fresh = await h.services.tables.get(table.id)
    assert fresh is not None and fresh.state is not None
    assert fresh.state.step == view["step"]  # nothing of all that happened
    status, after = await call(h, "POST", act, launch(h, mover), body)
    assert status == 200 and after["step"] > view["step"]
    # It went through the same service as a tap: the group's board shows the card.
    await h.until(
        lambda: any(card["card"][:-1] in m.text and "1ª" in m.text for m in h.fake.live(GROUP))
    )
    # And replaying the same request is refused: the move is spent.
    assert (await call(h, "POST", act, launch(h, mover), body))[0] == 409


async def test_the_hand_opens_the_table_as_a_mini_app_and_the_board_links_it(h: Harness) -> None:
    table, ana, _ = await started(h)
    await h.settle()
    message = hand_message(h, ana)
    assert message is not None
    apps = [b for b in message.buttons() if "web_app" in b]
    assert apps == [{"text": "🃏 Ver la mesa", "web_app": {"url": f"{WEBAPP}?table={table.id}"}}]
    board = next(m for m in h.fake.live(GROUP) if m.text.startswith("🃏 <b>Truco</b> ·"))
    links = [b["url"] for b in board.buttons() if "url" in b]
    assert f"https://t.me/{BOT_USERNAME}/mesa?startapp=t{table.id}" in links
    assert action_buttons(message)  # the hand's own buttons are all still there


def test_the_local_identity_is_refused_whenever_a_token_is_set(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bot", "--local"],
        env={"TRUCO_BOT_TOKEN": TOKEN, "TRUCO_DATABASE": str(tmp_path / "x.db"), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert run.returncode == 2 and "without a token" in run.stderr


async def test_a_finished_match_is_watched_again_by_the_groups_members_only(h: Harness) -> None:
    """/partida gets ▶️ to watch the match on the web table (a direct link); the replay is every
    frame of the match in the public view, to the final score, with the deals and the seed; the
    group's members may watch it, a stranger may not, and a running match has no replay."""
    table, ana, juan = await started(h)
    code, _ = await call(h, "GET", f"/api/table/{table.id}/replay", launch(h, ana))
    assert code == 409  # still being played
    await play_to_the_end(h, [ana, juan], seed=3)
    await h.settle()
    ana.send(GROUP, f"/partida {table.id}")
    await h.settle()
    links = [b.get("url", "") for b in h.fake.last(GROUP).buttons()]
    assert f"https://t.me/{BOT_USERNAME}/mesa?startapp=r{table.id}" in links
    code, replay = await call(h, "GET", f"/api/table/{table.id}/replay", launch(h, juan))
    assert code == 200, replay
    done = await h.store.table(table.id)
    assert done is not None and done.state is not None
    log = await h.store.action_log(table.id)
    frames = replay["frames"]
    assert len(frames) == len(log)  # one frame an action, deals included
    assert frames[-1]["over"] and frames[-1]["scores"] == list(done.state.scores)
    assert [f["action"] for f in frames] == list(range(1, len(log) + 1))
    assert all("hand" not in f and f["seat"] is None for f in frames)  # the public view only
    assert replay["seed"] == done.seed and len(replay["deals"]) == done.state.hand_number
    # A member of the group who did not play may watch; someone outside it may not.
    carla, zoe = h.user(3, "Carla"), h.user(9, "Zoe")
    h.fake.members[GROUP] |= {ana.id, juan.id, carla.id}
    code, _ = await call(h, "GET", f"/api/table/{table.id}/replay", launch(h, carla))
    assert code == 200
    code, _ = await call(h, "GET", f"/api/table/{table.id}/replay", launch(h, zoe))
    assert code == 403


async def test_a_private_practice_is_replayed_to_its_player_and_refused_to_others_plainly(
    h: Harness,
) -> None:
    """A practice's place is its player's private chat: there is no group to be a member of,
    so the replay is hers alone, and anyone else is told it is someone else's private practice
    (not that the group could not be checked, which no waiting would mend)."""
    ana, zoe = h.user(1, "Ana"), h.user(9, "Zoe")
    ana.send(ana.id, "/nueva bot fácil 15")
    await h.settle()
    practice = await h.services.tables.table_in(ana.id, 0)
    assert practice is not None and practice.state is not None
    ana.send(ana.id, "/abandonar")
    await h.settle()
    code, replay = await call(h, "GET", f"/api/table/{practice.id}/replay", launch(h, ana))
    assert code == 200 and replay["frames"], replay
    asked = len([c for c in h.fake.calls if c[1] == "getChatMember"])
    code, refused = await call(h, "GET", f"/api/table/{practice.id}/replay", launch(h, zoe))
    assert code == 403
    assert refused["error"] == (
        "Esa es la práctica privada de otra persona: solo quien la jugó puede verla."
    ), refused
    assert len([c for c in h.fake.calls if c[1] == "getChatMember"]) == asked  # nobody to ask
