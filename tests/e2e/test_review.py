"""The review after the match through the real bot (PTB against the fake Bot API, on SQLite and
PostgreSQL): asked for in private (/revision, /review, 📝 under the end of the match, the link
/partida offers), computed once and kept, refused clearly to anyone else and for any other
match, and /yo's lesson from it; and on the web table, for the person alone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.i18n import translator
from bot.model.refusals import Refusal, Refused
from bot.views.common import plain, refusal_text
from bot.views.quiz import asked, intro_text, question_of
from bot.views.review import lesson_text, review_pages
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import play_to_the_end
from tests.e2e.test_web import WEBAPP, call, launch
from tests.fakebot import BOT_USERNAME, FakeTelegram, FakeUser

T = translator("es")


def refused(code: Refused) -> str:
    return refusal_text(T, Refusal(code))


async def against_a_bot(h: Harness, ana: FakeUser) -> int:
    """A table of the group, to 15: Ana and a computer player she seats from the lobby (a
    practice, /nueva bot, is played in private: this match is the group's). Its number."""
    ana.send(GROUP, "/nueva 15")
    await h.settle()
    await ana.tap(GROUP, h.fake.last(GROUP).message_id, "🤖 + Bot")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.status.value == "playing"
    return table.id


async def played_match(h: Harness, ana: FakeUser) -> int:
    """Ana against a computer player, to 15, to the end: the match's number."""
    number = await against_a_bot(h, ana)
    await play_to_the_end(h, [ana], seed=6)
    await h.settle()
    return number


async def ask(h: Harness, user: FakeUser, text: str, chat: int | None = None) -> str:
    user.send(user.id if chat is None else chat, text)
    await h.settle()
    return h.fake.last(user.id if chat is None else chat).text


async def stored(h: Harness) -> int:
    row = await h.db.fetchone("SELECT COUNT(*) AS n FROM reviews")
    return int(row["n"]) if row else 0


async def test_a_review_is_asked_in_private_computed_once_and_kept(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    number = await played_match(h, ana)
    reviews = h.services.core.reviews
    assert reviews.computed == 0 and await stored(h) == 0  # nothing until someone asks

    got = await ask(h, ana, f"/revision {number}")
    assert f"Tu revisión de la partida {number}" in got
    assert any("Estoy repasando tus decisiones" in t for t in h.fake.texts(ana.id))
    assert reviews.computed == 1 and await stored(h) == 1
    found = await reviews.of(number, ana.id)
    # (its costly moments asked first: tests/e2e/test_quiz.py; none to ask, the review's
    # first page)
    order = asked(found)
    whole = review_pages(T, found, str(number))[0]
    said = str(number)
    if order:
        whole = intro_text(T, found, said) + "\n\n" + question_of(T, found, order[0], said)
    assert plain(got) == plain(whole)

    # asked again, by every door: the stored one, never computed again
    working = sum("Estoy repasando" in t for t in h.fake.texts(ana.id))
    assert await ask(h, ana, f"/review {number}") == got
    assert await ask(h, ana, f"/start v{number}") == got
    end = next(m for m in h.fake.live(ana.id) if any(
        b.get("text") == T("revision.button") for b in m.buttons()
    ))  # fmt: skip
    await ana.tap(ana.id, end.message_id, T("revision.button"))
    await h.settle()
    assert h.fake.last(ana.id).text == got
    assert sum("Estoy repasando" in t for t in h.fake.texts(ana.id)) == working
    assert reviews.computed == 1 and await stored(h) == 1

    # /partida in the group offers it (a link to the private chat)
    ana.send(GROUP, f"/partida {number}")
    await h.settle()
    links = [b.get("url", "") for b in h.fake.last(GROUP).buttons()]
    assert f"https://t.me/{BOT_USERNAME}?start=v{number}" in links

    # /yo: what costs her most often, from her reviewed matches (if it is a habit yet)
    lesson = await reviews.lesson(ana.id)
    yo = await ask(h, ana, "/yo")
    line = lesson_text(T, *lesson) if lesson is not None else "Lo que más puntos te cuesta"
    assert (line in yo) is (lesson is not None)


async def test_revision_alone_reviews_your_last_match_a_practice_too(harness: Harness) -> None:
    """/revision without a number: the review of the asker's last finished match, a practice
    too (a practice's end shows no number, and the group's /historial does not list it)."""
    h = harness
    ana = h.user(1, "Ana")
    assert await ask(h, ana, "/revision") == T("revision.usage")  # nothing played yet
    ana.send(ana.id, "/nueva bot fácil 15")
    await h.settle()
    practice = await h.services.tables.table_in(ana.id, 0)
    assert practice is not None
    ana.send(ana.id, "/abandonar")
    await h.settle()
    got = await ask(h, ana, "/revision")
    assert f"Tu revisión de la partida {practice.id}" in got, got


@pytest.mark.postgresql
async def test_bad_asks_are_refused_clearly_and_change_nothing(harness: Harness) -> None:
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    number = await played_match(h, ana)
    reviews = h.services.core.reviews
    usage = T("revision.usage")
    for text in ("/revision abc", "/revision 1 2", "/revision ²", "/revision -3"):
        assert await ask(h, ana, text) == usage, text
    assert await ask(h, beto, "/revision") == usage  # (no match of his to review)
    assert await ask(h, ana, "/revision 99999") == refused(Refused.REVIEW_NO_MATCH)
    # a stranger, and someone who did not play it, by every door
    assert await ask(h, beto, f"/revision {number}") == refused(Refused.REVIEW_NOT_YOURS)
    assert await ask(h, beto, f"/start v{number}") == refused(Refused.REVIEW_NOT_YOURS)
    # in the group: never there (her cards are hers), a link to the private chat instead
    said = await ask(h, ana, f"/revision {number}", chat=GROUP)
    assert said == plain(T("revision.private", number=number))
    links = [b.get("url", "") for b in h.fake.last(GROUP).buttons()]
    assert links == [f"https://t.me/{BOT_USERNAME}?start=v{number}"]
    # a match not over yet
    running = await against_a_bot(h, ana)
    assert running != number
    assert await ask(h, ana, f"/revision {running}") == refused(Refused.REVIEW_NOT_OVER)
    assert await ask(h, beto, f"/revision {running}") == refused(Refused.REVIEW_NOT_YOURS)
    assert reviews.computed == 0 and await stored(h) == 0  # nothing was computed or kept
    # without a number: her last finished match (the one still played is not over)
    assert f"Tu revisión de la partida {number}" in await ask(h, ana, "/revision")


@pytest.fixture
async def web(fake: FakeTelegram, db_target: Path | str) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, db_target, webapp_url=WEBAPP, webapp_name="mesa", web_port=0, webapp_max_age=3600
    ) as harness:
        yield harness


@pytest.mark.postgresql
async def test_the_web_table_gives_the_review_to_the_person_alone(web: Harness) -> None:
    h = web
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    path = "/api/table/{}/review"
    number = await against_a_bot(h, ana)
    table = await h.services.tables.get(number)
    assert table is not None
    code, body = await call(h, "GET", path.format(table.id), launch(h, ana))
    assert code == 409 and body["error"] == refused(Refused.REVIEW_NOT_OVER)
    await play_to_the_end(h, [ana], seed=6)
    await h.settle()
    code, _ = await call(h, "GET", path.format(table.id), None)
    assert code == 401  # nobody said who they are
    code, body = await call(h, "GET", path.format(table.id), launch(h, beto))
    assert code == 403 and body["error"] == refused(Refused.REVIEW_NOT_YOURS)
    code, body = await call(h, "GET", path.format(99999), launch(h, ana))
    assert code == 404
    assert h.services.core.reviews.computed == 0
    code, body = await call(h, "GET", path.format(table.id), launch(h, ana))
    assert code == 200, body
    assert body["table"] == table.id and f"Tu revisión de la partida {table.id}" in body["text"]
    assert "<b>" not in body["text"]
    found = await h.services.core.reviews.of(table.id, ana.id)
    assert len(body["moments"]) == len(found.slips) + len(found.praise)
    for moment in body["moments"]:
        assert {"hand", "step", "made", "best", "cost", "text"} <= set(moment)
    again = await call(h, "GET", path.format(table.id), launch(h, ana))
    assert again == (200, body) and h.services.core.reviews.computed == 1


async def test_revision_in_the_group_without_a_number_points_to_the_askers_last_match(
    harness: Harness,
) -> None:
    """/revision alone in the group (ephemeral or not): her review is hers, asked in private;
    the answer names her last match and links to its review, not "/revision <n>"."""
    h = harness
    ana = h.user(1, "Ana")
    number = await played_match(h, ana)
    for ephemeral in (False, True):
        asked = ana.send(GROUP, "/revision", ephemeral=ephemeral)
        await h.settle()
        if ephemeral:
            said = h.fake.ephemeral[(GROUP, ana.id)][h.fake.ephemeral_answers[(GROUP, asked)]]
        else:
            said = h.fake.last(GROUP)
        assert plain(said.text) == plain(T("revision.private", number=number)), said.text
        links = [b.get("url", "") for b in said.buttons()]
        assert links == [f"https://t.me/{BOT_USERNAME}?start=v{number}"]
    beto = h.user(2, "Beto")  # nothing of his to review: how to ask, said
    beto.send(GROUP, "/revision")
    await h.settle()
    assert h.fake.last(GROUP).text == T("revision.usage")
