"""Every web route that changes something checks what its Telegram twin checks (the seat, the
group's membership, the opener or an admin): each is walked with a seated member, a seated
player who left the group, a member who is not seated and a stranger, through the web route
and through the twin's button on the real bot (the fake Bot API), and the two must agree.
A route added without its twin written down here fails the walk (issue 45: "🔁 Revancha on
the web skips the membership check")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.callbacks import ActData, HintData, HintOp, RematchData, SignData, pack
from bot.game import ActionKind
from bot.game.actions import KIND_CODES
from bot.i18n import translator
from bot.model.refusals import Refused
from bot.service.changes import Refusal
from bot.views.common import plain, refusal_text
from bot.web.auth import LocalAuth
from bot.web.hub import Hub
from bot.web.server import WebTable
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import open_table, play_to_the_end
from tests.e2e.test_web import call, launch
from tests.fakebot import FakeTelegram, FakeUser

TABLE = "/api/table/{id}"
# Each route that changes something, its Telegram twin, and what the twin checks.
TWINS: dict[str, tuple[str, frozenset[str]]] = {
    TABLE + "/act": ("a card or a chant from the hand message (_move)", frozenset({"seat"})),
    TABLE + "/sign": ("a seña from the hand message (_sign)", frozenset({"seat"})),
    TABLE + "/hint": ("💡 from the hand message (_hint)", frozenset({"seat"})),
    TABLE + "/handoff": ("🤖 Que decida from the hand message (_hint)", frozenset({"seat"})),
    TABLE + "/rematch": ("🔁 Revancha (_rematch)", frozenset({"seat", "member"})),
}
# The try-out's own: they exist in local mode only, where there is no Telegram and every
# local person is of the one local "group"; a Mini App never has them.
LOCAL_ONLY = {
    "/api/local/login": "no twin: a name typed on this machine",
    "/api/local/new": "/nueva (anyone in the group opens a table)",
    TABLE + "/join": "✋ Unirme (a member who is not seated sits)",
}


def _texts() -> dict[str, str]:
    """What each check's refusal says (Spanish, the group's language), to its check."""
    t = translator("es")
    checks = {
        Refused.NOT_SEATED: "seat", Refused.REMATCH_NOT_YOURS: "seat",
        Refused.NOT_MEMBER: "member", Refused.MEMBER_UNKNOWN: "member",
        Refused.ONLY_OPENER: "opener", Refused.ONLY_OPENER_OR_ADMIN: "opener",
    }  # fmt: skip
    texts = {refusal_text(t, Refusal(code)): check for code, check in checks.items()}
    texts[t("popup.not_playing")] = "seat"
    texts[t("web.error.not_here")] = "member"  # (the web's own: only members see a table)
    texts[t("web.error.try_later")] = "member"
    return texts


TEXTS = _texts()


def checked(text: str) -> str:
    """The check a refusal stands for; "through" when none stopped it (it may still have been
    refused for what the move itself is: a stale step, no hints at this table)."""
    return TEXTS.get(text, "through")


def posts(app_of: WebTable) -> set[str]:
    app = app_of.app()
    return {
        route.resource.canonical.replace("{id:[0-9]{1,15}}", "{id}")
        for route in app.router.routes()
        if route.method == "POST" and route.resource is not None
    }


@pytest.fixture
async def h(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, tmp_path / "routes.db", webapp_url="https://x.invalid/t", webapp_name="mesa",
        web_port=0,
    ) as harness:  # fmt: skip
        yield harness


def test_every_route_that_changes_something_has_its_twin_written_down(h: Harness) -> None:
    web = h.services.web
    assert web is not None
    assert posts(web.table) == set(TWINS)  # a Mini App: the local routes are not there
    local = LocalAuth()
    assert posts(WebTable(h.services.core, local, Hub(), local)) == set(TWINS) | set(LOCAL_ONLY)


async def web_check(h: Harness, route: str, table_id: int, who: FakeUser, body: Any) -> str:
    code, answer = await call(h, "POST", route.format(id=table_id), launch(h, who), body)
    assert code in (200, 400, 403, 409), (route, who.first_name, code, answer)
    return "through" if code == 200 else checked(answer["error"])


async def twin_check(h: Harness, who: FakeUser, data: str) -> str:
    """The twin's button, forged into the person's own chat (where a hand message is)."""
    answer = await who.answer_of(who.tap_data(who.id, 1, data))
    await h.settle()
    return checked(answer.get("text") or "")


async def test_each_route_checks_what_its_telegram_twin_checks(h: Harness) -> None:
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    carla, zoe = h.user(3, "Carla"), h.user(9, "Zoe")
    await open_table(h, [ana, juan], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    carla.send(GROUP, "hola")  # a member of the group, not at the table
    juan.leave_group(GROUP)  # seated, but no longer in the group
    people = [ana, juan, carla, zoe]
    step = 0  # a step long gone: whoever gets past the checks changes nothing
    mazo = ActionKind.MAZO
    live: dict[str, tuple[dict[str, Any], str]] = {
        TABLE + "/act": (
            {"step": step, "kind": KIND_CODES[mazo]},
            pack(ActData(table.id, step, mazo)),
        ),
        TABLE + "/sign": ({"step": step, "sign": "ev"}, pack(SignData(table.id, step, "ev"))),
        TABLE + "/hint": ({"step": step}, pack(HintData(table.id, step, HintOp.HINT))),
        TABLE + "/handoff": ({"step": step}, pack(HintData(table.id, step, HintOp.HAND_OFF))),
    }
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for route, (body, data) in live.items():
        for who in people:
            found[(route, who.first_name)] = (
                await web_check(h, route, table.id, who, body),
                await twin_check(h, who, data),
            )
    h.fake.left[GROUP].discard(juan.id)  # (back for the match's end, which he plays out)
    await play_to_the_end(h, [ana, juan], seed=3)
    await h.settle()
    juan.leave_group(GROUP)
    route = TABLE + "/rematch"
    for who in [juan, carla, zoe, ana]:  # (Ana last: she gets through and opens it)
        found[(route, who.first_name)] = (
            await web_check(h, route, table.id, who, None),
            await twin_check(h, who, pack(RematchData(table.id))),
        )
    wrong = {}
    for (route, name), (web, twin) in found.items():
        checks = TWINS[route][1]
        assert twin == "through" or twin in checks, (route, name, twin)
        # The web also shows nothing of a group's table to a stranger (before the seat).
        if web != twin and not (name == "Zoe" and web == "member" and twin == "seat"):
            wrong[(route, name)] = (web, twin)
    assert wrong == {}
    # The ones the checks let through (and the ones they stop), as the twins have them:
    assert {k for k, (_, twin) in found.items() if twin == "through"} == {
        *((r, n) for r in live for n in ("Ana", "Juan")),
        (route, "Ana"),
    }
    lobby = await h.services.tables.table_in(GROUP, 0)
    assert lobby is not None and lobby.rematch_of == table.id and lobby.seats == [1, None]


@pytest.mark.slow("many cases: the whole suite runs them")
async def test_the_review_route_checks_what_revision_checks(h: Harness) -> None:
    """GET /api/table/<n>/review computes and keeps a review: it is walked like the routes
    that change something, against its twin (/revision <n> in private): a player of the match
    gets their own review, even out of the group; a member of the group who did not play it and
    a stranger are refused with the same words, and nothing is computed for them."""
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    carla, zoe = h.user(3, "Carla"), h.user(9, "Zoe")
    await open_table(h, [ana, juan], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    await play_to_the_end(h, [ana, juan], seed=3)
    await h.settle()
    carla.send(GROUP, "hola")  # a member of the group, not at the table
    juan.leave_group(GROUP)  # he played it, and left the group since
    t = translator("es")
    not_yours = refusal_text(t, Refusal(Refused.REVIEW_NOT_YOURS))
    reviews = h.services.core.reviews
    found: dict[str, tuple[tuple[int, str], str]] = {}
    for who in [zoe, carla, ana, juan]:
        code, answer = await call(
            h, "GET", TABLE.format(id=table.id) + "/review", launch(h, who), None
        )  # fmt: skip
        web = answer.get("error") or answer["text"]
        who.send(who.id, f"/revision {table.id}")
        await h.settle()
        # (the review asks its questions first: its whole text is a tap away)
        whole = [m for m in h.fake.live(who.id)
                 if any(b["text"] == "📄 Ver la revisión entera" for b in m.buttons())]  # fmt: skip
        if whole:
            await who.tap(who.id, whole[-1].message_id, "📄 Ver la revisión entera")
            await h.settle()
        found[who.first_name] = ((code, web), plain(h.fake.last(who.id).text))
        if who in (zoe, carla):
            assert reviews.computed == 0  # (nothing computed for who did not play)
    title = f"📝 Tu revisión de la partida {table.id}"
    assert found["Zoe"] == ((403, not_yours), not_yours)
    assert found["Carla"] == ((403, not_yours), not_yours)
    for name in ("Ana", "Juan"):
        (code, web), twin = found[name]
        # (the chat shows the whole review in pages a phone shows whole: its first page is the
        # page's text's beginning, line for line)
        lines = [x for x in web.splitlines() if x.strip()]
        first = [x for x in twin.splitlines() if x.strip()]
        assert code == 200 and web.startswith(title) and lines[: len(first)] == first, found[name]
    assert reviews.computed == 2  # one each, the twin's the one kept
