"""Long readings in pages a phone shows whole (issue 72): /partida of a long match, /revision of a
match with many decisions, /reglas, /tabla of a big group, each through the real bot against the
fake Bot API. Every page is at most `PAGE_LINES` phone lines (bench/board_lines.py's measure);
the ◀️ n/m ▶️ pager turns them in place (the same message edited; an ephemeral answer with
editEphemeralMessageText); a page never cuts a block (a hand, a decision) that fits one; a stale
or forged page button changes nothing."""

from __future__ import annotations

import re
from pathlib import Path

from bot.i18n import translator
from bot.model.refusals import Refusal, Refused
from bot.views.common import phone_lines, plain, refusal_text
from bot.views.pages import PAGE_LINES
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import open_table, play_to_the_end
from tests.e2e.test_review import played_match
from tests.e2e.test_tournaments import sign_up, tourney_message
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage

T = translator("es")
NEXT, BACK = "▶️", "◀️"


def page_of(message: StoredMessage) -> tuple[int, int] | None:
    """The pager's "n/m" under a message (None: one page, no pager)."""
    for button in message.buttons():
        found = re.fullmatch(r"(\d+)/(\d+)", button["text"])
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def has(message: StoredMessage, text: str) -> bool:
    return any(b["text"] == text for b in message.buttons())


def data_of(message: StoredMessage, text: str) -> str:
    return str(message.button(text)["callback_data"])


async def turn_all(h: Harness, user: FakeUser, chat: int, message_id: int) -> list[str]:
    """Every page of a paged message, turned with ▶️ to its last and back with ◀️ to its
    first: its texts in order (asserting the pager says where it is and the message is edited
    in place, never sent anew)."""
    stored = h.fake.messages[chat]
    count = len(stored)
    pages = [stored[message_id].text]
    where = page_of(stored[message_id])
    assert where is not None and where[0] == 1, where
    total = where[1]
    while has(stored[message_id], NEXT):
        await user.tap(chat, message_id, NEXT)
        await h.settle()
        pages.append(stored[message_id].text)
        assert page_of(stored[message_id]) == (len(pages), total)
    assert len(pages) == total and has(stored[message_id], BACK) is (total > 1)
    for number in range(total - 1, 0, -1):  # and back: the same pages
        await user.tap(chat, message_id, BACK)
        await h.settle()
        assert stored[message_id].text == pages[number - 1]
        assert page_of(stored[message_id]) == (number, total)
    assert len(stored) == count  # turned in place: no new message
    return pages


def fit(pages: list[str]) -> None:
    for number, page in enumerate(pages, start=1):
        assert phone_lines(page) <= PAGE_LINES, (number, phone_lines(page), plain(page))


async def unchanged_by(
    h: Harness, user: FakeUser, chat: int, message: StoredMessage, data: str
) -> str:
    """Tap `data` on `message` (a stale or forged button): what the tap was answered, asserting
    nothing in the chat changed."""
    before = (message.text, message.reply_markup, len(message.history), len(h.fake.messages[chat]))
    answer = await user.answer_of(user.tap_data(chat, message.message_id, data))
    await h.settle()
    after = (message.text, message.reply_markup, len(message.history), len(h.fake.messages[chat]))
    assert after == before, answer
    return str(answer["text"])


async def test_partida_of_a_long_match_in_pages_that_fit_a_phone(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 30")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    await play_to_the_end(h, [ana, juan], seed=12)
    state = (await h.store.table(table.id)).state  # type: ignore[union-attr]
    assert state is not None and state.hand_number >= 10
    ana.send(GROUP, f"/partida {table.id}")
    await h.settle()
    account = h.fake.last(GROUP)
    pages = await turn_all(h, ana, GROUP, account.message_id)
    print(f"/partida {table.id}: {state.hand_number} hands in {len(pages)} pages of "
          f"{[phone_lines(p) for p in pages]} phone lines")  # fmt: skip
    assert len(pages) >= 3
    fit(pages)
    # each hand whole on one page: its head and its last line ("Van: ...") together
    hands = []
    for page in pages:
        heads = re.findall(r"<b>Mano (\d+)</b> · da", page)
        assert len(heads) == page.count("Van: "), plain(page)
        hands += [int(n) for n in heads]
        assert f"Partida {table.id}" in page  # what it is, on every page
    assert hands == list(range(1, state.hand_number + 1))
    # the pager's own page ("n/m"): nothing to do
    middle = next(b["text"] for b in account.buttons() if "/" in b["text"])
    await unchanged_by(h, ana, GROUP, account, data_of(account, middle))
    # a stale page (a button from when the match had more pages) and a forged match
    stale = re.sub(r":\d+$", ":99", data_of(account, NEXT))
    said = await unchanged_by(h, juan, GROUP, account, stale)
    assert said == T("refusal.stale_page"), said
    said = await unchanged_by(h, juan, GROUP, account, "p:m:424242:1")
    assert "No hay una partida terminada" in said


async def test_a_review_with_many_decisions_in_pages_each_decision_whole(
    harness: Harness,
) -> None:
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    number = await played_match(h, ana)
    ana.send(ana.id, f"/revision {number}")
    await h.settle()
    # (it asks its costliest moments first: the whole review is a tap away)
    asked = h.fake.last(ana.id)
    if any(b["text"] == "📄 Ver la revisión entera" for b in asked.buttons()):
        await ana.tap(ana.id, asked.message_id, "📄 Ver la revisión entera")
        await h.settle()
    review = h.fake.last(ana.id)
    found = await h.services.core.reviews.of(number, ana.id)
    told = len(found.slips) + len(found.praise)
    assert told >= 4, told  # a review with many decisions
    pages = await turn_all(h, ana, ana.id, review.message_id)
    print(f"/revision {number}: {told} decisions in {len(pages)} pages of "
          f"{[phone_lines(p) for p in pages]} phone lines")  # fmt: skip
    assert len(pages) >= 2
    fit(pages)
    # a decision is never cut: its head and difícil's move (or the other move) on one page
    for page in pages:
        heads = len(re.findall(r"te (costó|valió) <b>", page))
        ends = page.count("Lo que habría hecho 🤖 difícil") + page.count("En cambio, ")
        assert heads == ends, plain(page)
        assert f"partida {number}" in page
    # a stale page, and someone else's review (a forged button in his own chat)
    stale = re.sub(r":\d+$", ":99", data_of(review, NEXT))
    said = await unchanged_by(h, ana, ana.id, review, stale)
    assert said == T("refusal.stale_page"), said
    beto.send(beto.id, "/yo")
    await h.settle()
    his = h.fake.last(beto.id)
    said = await unchanged_by(h, beto, beto.id, his, data_of(review, NEXT))
    assert said == refusal_text(T, Refusal(Refused.REVIEW_NOT_YOURS)), said


async def test_reglas_in_pages_in_the_group_and_as_an_ephemeral_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "r.db") as h:
        ana = h.user(71, "Ana", started=False)
        ana.send(GROUP, "/reglas")
        await h.settle()
        rules = h.fake.last(GROUP)
        pages = await turn_all(h, ana, GROUP, rules.message_id)
        assert len(pages) >= 2
        fit(pages)
        assert all("Machete" in page for page in pages)
        # each rule's paragraph whole on one page
        for title in ("Fuerza", "Truco", "Envido", "Flor", "Mazo", "Partida"):
            assert sum(f"<b>{title}</b>" in page for page in pages) == 1, title
        stale = re.sub(r":\d+$", ":99", data_of(rules, NEXT))
        assert await unchanged_by(h, ana, GROUP, rules, stale) == T("refusal.stale_page")

        # asked as an ephemeral command: the pages turn in her ephemeral answer
        before = len(h.fake.live(GROUP))
        asked = ana.send(GROUP, "/reglas", ephemeral=True)
        await h.settle()
        shown = h.fake.ephemeral[(GROUP, ana.id)][h.fake.ephemeral_answers[(GROUP, asked)]]
        assert shown.text == pages[0] and page_of(shown) == (1, len(pages))
        turned = [shown.text]
        while has(shown, NEXT):
            await ana.tap_ephemeral(GROUP, shown.message_id, NEXT)
            await h.settle()
            turned.append(shown.text)
        assert turned == pages and page_of(shown) == (len(pages), len(pages))
        await ana.tap_ephemeral(GROUP, shown.message_id, BACK)
        await h.settle()
        assert shown.text == pages[-2]
        assert len(h.fake.live(GROUP)) == before  # the group saw none of it
        # /ayuda too: in pages, turned in her ephemeral answer
        asked = ana.send(GROUP, "/ayuda", ephemeral=True)
        await h.settle()
        shown = h.fake.ephemeral[(GROUP, ana.id)][h.fake.ephemeral_answers[(GROUP, asked)]]
        assert page_of(shown) == (1, 2) and "/nueva" in shown.text
        await ana.tap_ephemeral(GROUP, shown.message_id, NEXT)
        await h.settle()
        assert page_of(shown) == (2, 2) and "/tabla" in shown.text
        fit(shown.history)
        assert not h.errors.records, [r.getMessage() for r in h.errors.records]


async def test_a_tournament_bracket_in_pages_the_page_turned_kept_while_play_is_there(
    harness: Harness,
) -> None:
    """A knockout of 16 at its start: its bracket (27 phone lines whole) in pages, the round
    in play shown first; a page turned stays turned when a result edits the message, while
    the round is still being played."""
    h = harness
    users = [h.user(601 + i, name) for i, name in enumerate(
        f"{first} {last}" for first in ("Valentina", "Maximiliano", "Florencia", "Bartolomé")
        for last in ("Fernández", "Sarmiento", "Albarracín", "Domínguez")
    )]  # fmt: skip
    message = await sign_up(h, users, "ko 15")
    assert phone_lines(message.text) <= PAGE_LINES
    await users[0].tap(GROUP, message.message_id, "▶️ Empezar")
    await h.settle()
    bracket = tourney_message(h)
    assert page_of(bracket) == (1, 2) and "Octavos" in bracket.text, plain(bracket.text)
    pages = [bracket.text]
    await users[1].tap(GROUP, bracket.message_id, NEXT)
    await h.settle()
    pages.append(bracket.text)
    fit(pages)
    assert page_of(bracket) == (2, 2) and "Final" in bracket.text
    # a result (a player concedes in private): the message is edited, on the page turned
    users[2].send(users[2].id, "/abandonar")
    await h.settle()
    assert page_of(bracket) == (2, 2) and len(bracket.history) > 2
    await users[1].tap(GROUP, bracket.message_id, BACK)
    await h.settle()
    assert page_of(bracket) == (1, 2) and "Octavos" in bracket.text
    fit([bracket.text])
    stale = re.sub(r":\d+$", ":9", data_of(bracket, NEXT))
    assert await unchanged_by(h, users[3], GROUP, bracket, stale) == T("refusal.stale_page")
    forged = re.sub(r"^p:k:\d+:", "p:k:424242:", data_of(bracket, NEXT))
    said = await unchanged_by(h, users[3], GROUP, bracket, forged)
    assert said == refusal_text(T, Refusal(Refused.NO_TOURNEY)), said


async def test_tabla_of_a_big_group_and_yo_in_pages(harness: Harness) -> None:
    """/tabla of 26 players (each a conceded match in): in pages, turned in place; a stale
    page changes nothing. /yo's pager (a page of whose numbers the button says) refuses a
    person the bot never saw and a page there is not, changing nothing."""
    h = harness
    people = [h.user(700 + i, f"Jugador{i} Apellido{i}") for i in range(26)]
    for first, second in zip(people[::2], people[1::2], strict=True):
        await open_table(h, [first, second], "1v1 15")
        first.send(GROUP, "/abandonar")  # a concession is a match of the league
        await h.settle()
    people[0].send(GROUP, "/tabla")
    await h.settle()
    table = h.fake.last(GROUP)
    pages = await turn_all(h, people[0], GROUP, table.message_id)  # (her own row on each)
    assert len(pages) >= 2
    fit(pages)
    told = " ".join(plain(p) for p in pages)
    assert all(f"Jugador{i} " in told for i in range(26))
    stale = re.sub(r":\d+$", ":9", data_of(table, NEXT))
    assert await unchanged_by(h, people[2], GROUP, table, stale) == T("refusal.stale_page")

    people[3].send(GROUP, "/yo")
    await h.settle()
    yo = h.fake.last(GROUP)
    assert "Jugador3" in yo.text and phone_lines(yo.text) <= PAGE_LINES
    for data in (f"p:y:{people[3].id}:5", "p:y:999999999999999:1"):
        assert await unchanged_by(h, people[4], GROUP, yo, data) == T("refusal.stale_page")
