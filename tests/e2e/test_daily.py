"""🃏 La mano del día through the real bot (PTB against the fake Bot API): a group turns it on
in /config, gets a decision from its own reviewed matches at its hour, its members answer with
one tap (the first answer counts; a non-member and a late tap are refused), and the close tells
the best choice, what it was worth, what happened and who got it right; /yo keeps the tally and
the streak. The position shown is what its seat knew: re-deal the cards it never saw and the
post is the same to the letter."""

from __future__ import annotations

import os
import random
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot import codec
from bot.ai.puzzle import Puzzle
from bot.game import (
    DECK,
    Action,
    AnyAction,
    Deal,
    IllegalActionError,
    MatchState,
    observe,
    parse_any,
)
from bot.i18n import translator
from bot.model.daily import OPEN_SECONDS
from bot.storage.db import Conn
from bot.views.common import plain
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import action_buttons, hand_message
from tests.fakebot import FakeUser, StoredMessage

T = translator("es")
ZONE = ZoneInfo("America/Argentina/Buenos_Aires")  # (the operator's, make_settings)


async def reviewed_match(h: Harness, user: FakeUser, seed: int) -> int:
    """`user` against a computer player in the group, to 15 sin flor, to the end, and their
    review asked for in private: the match's number."""
    user.send(GROUP, "/nueva 15 sinflor")
    await h.settle()
    await user.tap(GROUP, h.fake.last(GROUP).message_id, "🤖 + Bot")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    rng = random.Random(seed)
    while True:  # (play_to_the_end stops at the group's first 🏆: this is the group's third)
        await h.settle()
        found = await h.services.tables.get(table.id)
        if found is None or found.status.value != "playing":
            break
        message = hand_message(h, user)
        assert message is not None, "the game waits on nobody"
        buttons = action_buttons(message)
        await user.tap(user.id, message.message_id, rng.choice(buttons)["text"])
    await h.settle()
    user.send(user.id, f"/revision {table.id}")
    await h.settle()
    assert await h.services.core.reviews.store.get(table.id, user.id) is not None
    return table.id


async def turn_on(h: Harness, admin: FakeUser, taps: int = 1) -> str:
    """The admin taps la mano del día's option in /config `taps` times: the label it shows."""
    admin.send(GROUP, "/config")
    await h.settle()
    panel = h.fake.last(GROUP)
    label = next(b["text"] for b in panel.buttons() if "Mano del día" in b["text"])
    for _ in range(taps):
        await admin.tap(GROUP, panel.message_id, label)
        await h.settle()
        panel = h.fake.messages[GROUP][panel.message_id]
        label = next(b["text"] for b in panel.buttons() if "Mano del día" in b["text"])
    return label


async def at_hour(h: Harness, hour: int, minutes: int = 1) -> None:
    """Move the bot's clock to the next `hour`:`minutes` in the group's zone, and wait for a
    round of la mano del día after it."""
    now = datetime.fromtimestamp(h.clock.now, ZONE)
    target = now.replace(hour=hour, minute=minutes, second=0, microsecond=0)
    if target <= now:
        target += timedelta(days=1)
    await advance(h, target.timestamp() - h.clock.now)


async def advance(h: Harness, seconds: float) -> None:
    daily = h.services.core.daily
    h.clock.advance(seconds)
    before = daily.rounds
    await h.until(lambda: daily.rounds > before)
    await h.settle()


def posts(h: Harness) -> list[StoredMessage]:
    head = "🃏 <b>La mano del día</b>"
    return [m for m in h.fake.messages[GROUP].values() if m.text.startswith(head)]


def closes(h: Harness) -> list[StoredMessage]:
    return [m for m in h.fake.messages[GROUP].values() if "la respuesta</b>" in m.text]


async def the_hand(h: Harness) -> tuple[int, str, int | None, Puzzle]:
    row = await h.db.fetchone(
        "SELECT id, source, game_id, data FROM daily_hands ORDER BY id DESC LIMIT 1"
    )
    assert row is not None
    data = codec.loads(row["data"])
    return int(row["id"]), str(row["source"]), row["game_id"], Puzzle.from_json(data["puzzle"])


def choice_labels(post: StoredMessage) -> list[str]:
    """The post's buttons' labels, by the place of their choice among the puzzle's."""
    found = {int(b["callback_data"].split(":")[2]): b["text"] for b in post.buttons()}
    return [found[i] for i in range(len(found))]


def choice_of(puzzle: Puzzle, index: int) -> str:
    from bot.views.daily import choice_text

    return choice_text(T, puzzle, puzzle.choices[index].code)


async def redeal_hidden(h: Harness, game_id: int, step: int) -> None:
    """Deal anew, in the match's stored log, the cards the seat deciding at `step` had not seen
    by then (the other seats' cards not yet played), so that everything it saw stays as it was
    (the cards on the table, the points said aloud): its observation at `step` is the same, the
    deal is not. A card dealt anew takes the old one's place in the rest of that hand's moves;
    the hands after it are cut from the log (nothing of the position reads them)."""
    table = await h.services.tables.get(game_id)
    assert table is not None
    rows = await h.store.action_log(game_id)
    log: list[AnyAction] = [parse_any(code) for _, _, code in rows]
    seat = next(a.seat for a in log[step:] if isinstance(a, Action))
    start = max(i for i in range(step + 1) if isinstance(log[i], Deal))
    end = next((i for i in range(step + 1, len(log)) if isinstance(log[i], Deal)), len(log))
    deal = log[start]
    assert isinstance(deal, Deal)
    shown = {a.card for a in log[start:step] if isinstance(a, Action) and a.card is not None}
    hidden = [c for s, cards in enumerate(deal.hands) if s != seat for c in cards
              if c not in shown]  # fmt: skip
    seen = before(table.config, log[:end], step, seat)
    rng = random.Random(step)
    for _ in range(200):
        pool = [c for c in DECK if c not in shown and c not in deal.hands[seat]]
        swap = dict(zip(hidden, rng.sample(pool, len(hidden)), strict=True))
        hands = tuple(tuple(swap.get(c, c) for c in cards) for cards in deal.hands)
        moves = [
            Action(a.seat, a.kind, swap.get(a.card, a.card)) if isinstance(a, Action) else a
            for a in log[start + 1 : end]
        ]
        other = [*log[:start], Deal(hands), *moves]
        try:
            if hands != deal.hands and before(table.config, other, step, seat) == seen:
                break
        except IllegalActionError:
            continue
    else:
        raise AssertionError("no re-deal keeps what the seat saw")

    async def write(conn: Conn) -> None:
        for (seq, _, _), action in zip(rows[start:end], other[start:end], strict=True):
            await conn.run("UPDATE actions SET code = ? WHERE game_id = ? AND seq = ?",
                           (action.code, game_id, seq))  # fmt: skip
        if end < len(rows):
            await conn.run("DELETE FROM actions WHERE game_id = ? AND seq >= ?",
                           (game_id, rows[end][0]))  # fmt: skip

    await h.db.write(write)


def before(config: object, log: list[AnyAction], step: int, seat: int) -> object:
    """What `seat` saw at `step` (the whole log replayed: every later move still legal)."""
    state = MatchState(config)  # type: ignore[arg-type]
    seen = None
    for action in log:
        if state.step == step:
            seen = observe(state, seat)
        state.apply(action)
    return seen


@pytest.mark.postgresql
async def test_a_group_gets_its_hand_of_the_day_answers_it_and_hears_the_close(
    harness: Harness,
) -> None:
    h = harness
    ana, beto, caro, dani, eva = (h.user(i, n) for i, n in
                                  enumerate(["Ana", "Beto", "Caro", "Dani", "Eva"], start=1))
    fede = h.user(6, "Fede")
    h.fake.admins[GROUP].add(ana.id)
    # (seeds of scripted taps whose matches hold decisions that make good questions)
    numbers = [await reviewed_match(h, ana, 13), await reviewed_match(h, beto, 14),
               await reviewed_match(h, ana, 15)]
    assert len(set(numbers)) == 3

    # a match still in play never gives one: a review of it, were there one (made up here,
    # its moments the costliest of all), is passed over
    ana.send(GROUP, "/nueva 15 sinflor")
    await h.settle()
    await ana.tap(GROUP, h.fake.last(GROUP).message_id, "🤖 + Bot")
    await h.settle()
    running = await h.services.tables.table_in(GROUP, 0)
    assert running is not None and running.status.value == "playing"
    made_up = codec.loads(await h.services.core.reviews.store.get(numbers[0], ana.id) or "")
    for moment in made_up["slips"]:
        moment["best_worth"][0] = moment["made_worth"][0] + 9
    await h.db.write(lambda conn: conn.run(
        "INSERT INTO reviews (game_id, user_id, seat, data, created_at) VALUES (?, ?, ?, ?, ?)",
        (running.id, ana.id, 0, codec.dumps(made_up), h.clock.now),
    ))  # fmt: skip
    found = await h.services.core.daily.store.reviewed(GROUP, 0.0, 100)
    assert sorted({game for game, _, _ in found}) == sorted(numbers)

    # off until a group turns it on: days go by, nothing is posted
    await advance(h, 2 * 86400)
    assert posts(h) == []
    assert await turn_on(h, ana) == "🔄 Mano del día: 9 h"
    await at_hour(h, 9)
    [post] = posts(h)
    hand_id, source, game_id, puzzle = await the_hand(h)
    assert game_id in numbers and source.startswith(f"g:{game_id}:")
    labels = choice_labels(post)
    assert len(labels) == len(puzzle.choices) > 1

    # what the seat knew, and nothing else: the cards it never saw dealt anew (every card it
    # saw, every point said aloud kept), the hand of the day posed again: the same post
    await redeal_hidden(h, game_id, int(source.split(":")[2]))
    await h.db.write(lambda conn: conn.run("DELETE FROM daily_hands WHERE id = ?", (hand_id,)))
    h.services.core.daily.look_now()
    await advance(h, 0)
    first, post = posts(h)
    again_id, again_source, _, again = await the_hand(h)
    assert again_id != hand_id and again_source == source
    assert again == puzzle
    assert post.text == first.text and choice_labels(post) == labels
    hand_id = again_id

    # five answer: one twice (the first counts), one not a member, one after the close
    best = puzzle.best
    worse = next(i for i in range(len(labels)) if i not in puzzle.right)
    said = await beto.tap(GROUP, post.message_id, labels[best])
    assert said["text"] == f"Anotado: {labels[best]} · la respuesta, al cierre."
    await caro.tap(GROUP, post.message_id, labels[worse])
    await dani.tap(GROUP, post.message_id, labels[best])
    said = await dani.tap(GROUP, post.message_id, labels[worse])
    assert said["text"] == f"Ya respondiste {labels[best]} · vale la primera."
    fede.leave_group(GROUP)
    said = await fede.tap(GROUP, post.message_id, labels[best])
    assert said["text"] == T("refusal.daily_not_member")
    await h.settle()
    post = h.fake.messages[GROUP][post.message_id]
    assert "Respondieron 3" in post.text
    answers = await h.db.fetchall("SELECT user_id, choice FROM daily_answers WHERE hand_id = ?",
                                  hand_id)  # fmt: skip
    assert sorted((r["user_id"], r["choice"]) for r in answers) == [
        (beto.id, best), (caro.id, worse), (dani.id, best)]
    data = post.button(labels[best])["callback_data"]

    await advance(h, OPEN_SECONDS)
    [close] = closes(h)
    post = h.fake.messages[GROUP][post.message_id]
    assert post.buttons() == [] and "Cerrada: respondieron 3" in post.text
    said = await eva.answer_of(eva.tap_data(GROUP, post.message_id, data))
    assert said["text"] == T("refusal.daily_closed")
    text = plain(close.text)
    assert "✅ Acertaron 2 de 3: Beto, Dani" in text, text
    assert f"Lo mejor era {plain(choice_of(puzzle, best))}" in text
    assert "Lo que pasó: quien la jugó eligió" in text  # (nobody allowed their name)
    week = [(post, close)]

    # /yo keeps the tally and the streak
    assert "🃏 Mano del día: acertaste 1 de 1 · racha 1" in await said_to(h, beto, GROUP, "/yo")
    # Ana lets a decision of hers be shown with her name (hers to say, in private); Beto not
    assert T("daily.named_no") in await said_to(h, ana, ana.id, "/yo")
    await ana.tap(ana.id, h.fake.last(ana.id).message_id, T("daily.button.named"))
    await h.settle()
    assert h.fake.last(ana.id).text == T("daily.named_yes")

    # the rest of the week: Beto always right, Dani misses the fourth day, Caro always wrong
    for day in range(2, 8):
        await at_hour(h, 9)
        post = posts(h)[-1]
        hand_id, source, game_id, puzzle = await the_hand(h)
        labels = choice_labels(post)
        worse = next(i for i in range(len(labels)) if i not in puzzle.right)
        await beto.tap(GROUP, post.message_id, labels[puzzle.best])
        await caro.tap(GROUP, post.message_id, labels[worse])
        if day != 4:
            await dani.tap(GROUP, post.message_id, labels[puzzle.best])
        await advance(h, OPEN_SECONDS)
        close = closes(h)[-1]
        week.append((h.fake.messages[GROUP][post.message_id], close))
        owner = await h.db.fetchone("SELECT user_id FROM daily_hands WHERE id = ?", hand_id)
        text = plain(close.text)
        if owner is not None and owner["user_id"] == ana.id:
            assert f"era una mano de Ana (partida {game_id})" in text, text
        else:
            assert "era una mano de" not in text, text
    assert len({source for source in await sources(h)}) == 7  # (never the same one twice)
    # the first three days read the three matches, one each, rather than one match dry
    assert sorted(int(s.split(":")[1]) for s in (await sources(h))[:3]) == sorted(numbers)
    assert not [s for s in await sources(h) if s.startswith(f"g:{running.id}:")]
    yo = await said_to(h, beto, GROUP, "/yo")
    assert "🃏 Mano del día: acertaste 7 de 7 · racha 7" in yo and "la mejor" not in yo, yo
    yo = await said_to(h, dani, GROUP, "/yo")
    assert "🃏 Mano del día: acertaste 6 de 6 · racha 3" in yo and "la mejor" not in yo, yo
    yo = await said_to(h, caro, GROUP, "/yo")
    assert "🃏 Mano del día: acertaste 0 de 7" in yo and "racha" not in yo, yo
    if os.environ.get("DAILY_WEEK_OUT"):  # a week as the group read it (for the notes)
        dump(Path(os.environ["DAILY_WEEK_OUT"]), week)


def dump(path: Path, week: list[tuple[StoredMessage, StoredMessage]]) -> None:
    path.write_text("\n\n".join(
        f"=== day {i} ===\n{plain(p.text)}\n\n--- close ---\n{plain(c.text)}"
        for i, (p, c) in enumerate(week, start=1)
    ) + "\n")  # fmt: skip


async def said_to(h: Harness, user: FakeUser, chat: int, text: str) -> str:
    user.send(chat, text)
    await h.settle()
    return h.fake.last(chat).text


async def sources(h: Harness) -> list[str]:
    return [str(r["source"]) for r in await h.db.fetchall("SELECT source FROM daily_hands")]


@pytest.mark.postgresql
async def test_a_group_without_reviewed_matches_gets_one_from_the_bank(harness: Harness) -> None:
    """No reviewed match of its own: the bank's. Tapping through the hours in /config posts
    nothing (an hour passed before it was chosen is not that day's); off again, nothing."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    h.fake.admins[GROUP].add(ana.id)
    await at_hour(h, 23)  # (every hour of the list is behind, and within a day)
    assert await turn_on(h, ana, taps=8) == "🔄 Mano del día: 22 h"  # through all of them
    await advance(h, 60)
    assert posts(h) == []
    await at_hour(h, 22)
    [post] = posts(h)
    _, source, game_id, puzzle = await the_hand(h)
    assert game_id is None and source.startswith("b:")
    assert "Una decisión de una partida entre bots" in post.text
    assert puzzle.good
    labels = choice_labels(post)
    said = await beto.tap(GROUP, post.message_id, labels[puzzle.best])
    assert said["text"].startswith("Anotado")
    # Ana, in private, lets a decision of hers be named, and changes her mind
    assert T("daily.named_no") in await said_to(h, ana, ana.id, "/yo")
    await ana.tap(ana.id, h.fake.last(ana.id).message_id, T("daily.button.named"))
    await h.settle()
    await ana.tap(ana.id, h.fake.last(ana.id).message_id, T("daily.button.anon"))
    await h.settle()
    assert h.fake.last(ana.id).text == T("daily.named_no")
    assert not await h.services.core.daily.named(ana.id)

    await advance(h, OPEN_SECONDS)
    [close] = closes(h)
    text = plain(close.text)
    assert "Lo que pasó: el bot eligió" in text and "✅ Acertó 1 de 1: Beto" in text, text
    assert "🃏 Mano del día: acertaste 1 de 1 · racha 1" in await said_to(h, beto, GROUP, "/yo")
    # turned off: the next days, nothing
    assert await turn_on(h, ana, taps=0) == "🔄 Mano del día: 22 h"
    panel = h.fake.last(GROUP)
    await ana.tap(GROUP, panel.message_id, "🔄 Mano del día: 22 h")
    await h.settle()
    await at_hour(h, 22)
    await advance(h, 86400)
    assert len(posts(h)) == 1


async def test_the_close_and_the_tally_read_well_on_a_phone(harness: Harness) -> None:
    """Two days from the bank, read as the group reads them: no "respondieron 0", a tap's
    pop-up without a doubled stop ("¡Truco!."), one right said in the singular, each choice's
    count apart from its label ("2 🪵 ×1", not "2 🪵 1"), the "why" not repeating the values'
    line, a month's ranking only once it ranks two people and with equals sharing a place; /yo
    without what says nothing ("racha 0", a best equal to the streak, a month equal to it all)."""
    h = harness
    ana, beto, caro, dani = (h.user(i, n) for i, n in
                             enumerate(["Ana", "Beto", "Caro", "Dani"], start=1))  # fmt: skip
    h.fake.admins[GROUP].add(ana.id)
    # (the 10th of next month: both days in one month, whatever day the test runs)
    now = datetime.fromtimestamp(h.clock.now, ZONE)
    tenth = (now.replace(day=1) + timedelta(days=32)).replace(day=10, hour=8)
    h.clock.advance(tenth.timestamp() - h.clock.now)
    await turn_on(h, ana)
    await at_hour(h, 9)
    post = posts(h)[-1]
    assert "Todavía no respondió nadie · la respuesta, a las" in post.text, post.text
    _, _, _, puzzle = await the_hand(h)
    labels = choice_labels(post)
    said = await beto.tap(GROUP, post.message_id, labels[puzzle.best])
    assert said["text"] == f"Anotado: {labels[puzzle.best]} · la respuesta, al cierre."
    said = await beto.tap(GROUP, post.message_id, labels[puzzle.best])
    assert said["text"] == f"Ya respondiste {labels[puzzle.best]} · vale la primera."
    await advance(h, OPEN_SECONDS)
    text = plain(closes(h)[-1].text)
    assert "✅ Acertó 1 de 1: Beto" in text, text
    assert f"Respuestas: {labels[puzzle.best]} ×1" in text, text
    assert "Este mes" not in text, text  # (one person: a ranking of nobody against nobody)
    why = next(part for part in text.split("\n\n") if part.startswith("Por qué"))
    assert "en promedio" not in why, text  # (the values' line says the points)

    await at_hour(h, 9)
    post = posts(h)[-1]
    _, _, _, puzzle = await the_hand(h)
    labels = choice_labels(post)
    worse = next(i for i in range(len(labels)) if i not in puzzle.right)
    await dani.tap(GROUP, post.message_id, labels[puzzle.best])
    await caro.tap(GROUP, post.message_id, labels[worse])
    await advance(h, OPEN_SECONDS)
    text = plain(closes(h)[-1].text)
    assert "✅ Acertó 1 de 2: Dani" in text, text
    assert "🏆 Este mes: 1. Beto 1/1 · 1. Dani 1/1 · 3. Caro 0/1" in text, text
    yo = plain(await said_to(h, beto, GROUP, "/yo"))
    assert "🃏 Mano del día: acertaste 1 de 1\n" in yo + "\n", yo  # (no run now, best of 1)
    yo = plain(await said_to(h, dani, GROUP, "/yo"))
    assert "🃏 Mano del día: acertaste 1 de 1 · racha 1\n" in yo + "\n", yo
    yo = plain(await said_to(h, caro, GROUP, "/yo"))
    assert "🃏 Mano del día: acertaste 0 de 1\n" in yo + "\n", yo
