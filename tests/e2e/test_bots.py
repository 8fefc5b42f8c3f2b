"""Computer players at real tables: through the buttons, across a restart, on a clock."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from bot.ai.characters import character_of
from bot.ai.signs import signs_to_show
from bot.game import replay
from bot.game.actions import parse_any
from bot.game.seats import duel_pair
from bot.i18n import translator
from bot.model.table import BOT_IDS, Table
from bot.service.ai import signs_for
from bot.storage.snapshots import to_json
from bot.views.common import computer_names, plain
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import (
    action_buttons,
    hand_message,
    match_over,
    open_table,
    play_to_the_end,
    play_until_a_duel,
)
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage

t_es = translator("es")


async def the_table(h: Harness) -> Table:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    return table


async def practice_of(h: Harness, user: FakeUser) -> Table:
    """The practice table of `user`: its place is their private chat with the bot."""
    table = await h.services.tables.table_in(user.id, 0)
    assert table is not None
    return table


async def play_practice(h: Harness, user: FakeUser, seed: int) -> Table:
    """Tap legal buttons in `user`'s chat until their practice is over; the finished table."""
    table_id = (await practice_of(h, user)).id

    async def over() -> bool:
        table = await h.services.tables.get(table_id)
        return table is not None and not table.is_open

    await play_to_the_end(h, [user], seed=seed, chat=0, stop=over)
    done = await h.services.tables.get(table_id)
    assert done is not None
    return done


async def bot_name(h: Harness, table: Table, seat: int) -> str:
    """The name the computer player in `seat` has at this table ("🤖 Lola")."""
    names = await h.services.core.people.at(table)
    return computer_names(translator(table.language), table, names)[seat]


async def four_at_2v2(h: Harness) -> list[FakeUser]:
    """Ana and Caro against Beto and Dani, started."""
    users = [h.user(1 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    ana, beto, caro, dani = users
    ana.send(GROUP, "/nueva 2v2 15")
    await h.settle()
    lobby = h.fake.last(GROUP)
    for user, label in ((beto, "✋ Equipo 2"), (caro, "✋ Equipo 1"), (dani, "✋ Equipo 2")):
        await user.tap(GROUP, lobby.message_id, label)
        await h.settle()
    return users


async def abandon(h: Harness, user: FakeUser) -> StoredMessage:
    """/abandonar mid-match: the group's prompt to choose a bot or the end."""
    user.send(GROUP, "/abandonar")
    await h.settle()
    return next(m for m in reversed(h.fake.live(GROUP)) if "dejó la mesa" in m.text)


async def logged(h: Harness, game_id: int) -> list[tuple[int | None, str]]:
    rows = await h.db.fetchall(
        "SELECT user_id, code FROM actions WHERE game_id = ? ORDER BY seq", game_id
    )
    return [(r["user_id"], r["code"]) for r in rows]


async def test_a_whole_match_against_a_hard_bot_through_the_buttons(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva bot difícil 15")
    await h.settle()
    table = await practice_of(h, ana)
    assert table.seats == [1, BOT_IDS["dificil"]]
    name = await bot_name(h, table, 1)
    assert name.startswith("🤖 ")  # it says it is a bot, by its name
    assert any(name in text for text in h.fake.texts(ana.id))
    assert hand_message(h, ana) is not None  # her cards, privately
    game_id = table.id
    await play_practice(h, ana, seed=4)
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", game_id)
    assert record is not None and record["termination"] == "target" and record["bots"] == 1
    # Practice: nobody's rating moved.
    assert await h.db.fetchall("SELECT * FROM ratings") == []
    log = await logged(h, game_id)
    bot_moves = [code for user, code in log if user == BOT_IDS["dificil"]]
    assert bot_moves and all(code.startswith("1:") for code in bot_moves)
    final = replay(table.config, [parse_any(code) for _, code in log])
    assert final.is_over and list(final.scores) == [record["score0"], record["score1"]]
    ana.send(GROUP, "/yo")
    await h.settle()
    won = int(record["winner_side"] == 0)
    assert f"🤖 difícil: jugadas 1 · ganadas {won} · perdidas {1 - won}" in h.fake.last(GROUP).text


@pytest.mark.postgresql
async def test_three_people_and_a_bot_play_2v2(harness: Harness) -> None:
    h = harness
    ana, beto, caro = h.user(1, "Ana"), h.user(2, "Beto"), h.user(3, "Caro")
    ana.send(GROUP, "/nueva 2v2 15")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await beto.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await caro.tap(GROUP, lobby.message_id, "✋ Equipo 1")
    await h.settle()
    # Only the opener seats bots; anyone else is told so and nothing changes.
    answer = await beto.tap(GROUP, lobby.message_id, "🤖 + Bot al equipo 2")
    assert answer["text"] == "Solo quien abrió la mesa cambia las opciones."
    table = await the_table(h)
    assert table.seats == [1, 2, 3, None]
    answer = await ana.tap(GROUP, lobby.message_id, "🤖 + Bot al equipo 2")
    assert answer["text"] == "Se sentó un bot."
    await h.settle()
    table = await the_table(h)
    assert table.seats == [1, 2, 3, BOT_IDS["normal"]] and table.state is not None
    name = await bot_name(h, table, 3)
    assert any(f"Beto</b> y <b>{name}" in text for text in h.fake.texts(GROUP))
    game_id = table.id
    await play_to_the_end(h, [ana, beto, caro], seed=9)
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", game_id)
    assert record is not None and record["bots"] == 1
    seats = await h.db.fetchall(
        "SELECT user_id FROM match_players WHERE game_id = ? ORDER BY seat", game_id
    )
    assert [r["user_id"] for r in seats] == [1, 2, 3, BOT_IDS["normal"]]
    assert await h.db.fetchall("SELECT * FROM player_match_stats") == []
    ana.send(GROUP, "/tabla")
    await h.settle()
    assert "Bot" not in h.fake.last(GROUP).text


async def test_lobby_bots_levels_and_a_table_of_bots_alone(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await ana.tap(GROUP, lobby.message_id, "🤖 + Bot")
    await h.settle()
    table = await the_table(h)
    assert table.status.value == "playing" and table.seats == [1, BOT_IDS["normal"]]
    ana.send(GROUP, "/cancelar")
    await h.settle()
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await ana.tap(GROUP, lobby.message_id, "🚪 Salir")
    await h.settle()
    answer = await ana.tap(GROUP, lobby.message_id, "🤖 + Bot")
    assert answer["text"] == "Se sentó un bot."
    await h.settle()
    answer = await ana.tap(GROUP, lobby.message_id, "🤖 + Bot")
    assert answer["text"] == "Una mesa no puede ser solo de bots: falta al menos una persona."
    await ana.tap(GROUP, lobby.message_id, "🔄 Bots: normal")
    await h.settle()
    table = await the_table(h)
    # each computer player comes with its character ("🤖 Tito · mentiroso · difícil")
    character = character_of(table.id, 0).value[:4]  # (its gender: tests/unit/test_gender.py)
    assert f"{await bot_name(h, table, 0)} · {character}" in h.fake.last(GROUP).text
    assert table.seats == [BOT_IDS["dificil"], None]
    forged = ana.tap_data(GROUP, lobby.message_id, f"l:{table.id}:b:7")
    assert (await ana.answer_of(forged))["text"] == "Ese botón no es válido."
    await ana.tap(GROUP, lobby.message_id, "🤖 − Sacar bot")
    await h.settle()
    table = await the_table(h)
    assert table.seats == [None, None]
    assert "🤖 − Sacar bot" not in [b["text"] for b in h.fake.last(GROUP).buttons()]
    stale = ana.tap_data(GROUP, lobby.message_id, f"l:{table.id}:r:")
    assert (await ana.answer_of(stale))["text"] == "No hay ningún bot en la mesa."


@pytest.mark.postgresql
async def test_the_bot_pauses_like_a_person_and_resumes_after_a_restart(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    async with harness_with(fake, db_target, bot_delay=1.5, turn_seconds=60) as h:
        ana = h.user(1, "Ana")
        ana.send(GROUP, "/nueva bot 15")
        await h.settle()
        table = await practice_of(h, ana)
        assert table.state is not None
        # Ana is mano: she plays; the bot is to move next.
        message = hand_message(h, ana)
        assert message is not None
        card = next(b for b in action_buttons(message) if b["callback_data"].count(":") == 4)
        await ana.tap(1, message.message_id, card["text"])
        await h.settle()
        table = await practice_of(h, ana)
        assert table.state is not None
        step = table.state.step
        assert h.services.tables.waiting_users(table) == set()  # the game waits on the bot
        assert table.deadline is None  # and a bot never runs out of time
        sweeps = h.app.bot_data.get("sweeps", 0)
        h.clock.advance(1.0)  # not yet: its pause is 1.5 s of the bot's clock
        await h.until(lambda: h.app.bot_data.get("sweeps", 0) >= sweeps + 3)
        await h.settle()
        assert (await practice_of(h, ana)).state.step == step  # type: ignore[union-attr]
        await h.restart()  # it was about to move
        table = await practice_of(h, ana)
        assert table.state is not None and table.state.step == step
        h.clock.advance(1.5)
        await h.until(lambda: h.services.ai.decisions >= 1)
        await h.settle()
        table = await practice_of(h, ana)
        assert table.state is not None and table.state.step > step
        assert table.deadline is not None  # Ana's turn again: her clock runs
        log = await logged(h, table.id)
        assert sum(1 for user, _ in log if user == BOT_IDS["normal"]) >= 1


async def test_a_bot_thinks_in_a_process_of_its_own(fake: FakeTelegram, tmp_path: Path) -> None:
    async with harness_with(fake, tmp_path / "pool.db", ai_workers=1) as h:
        ana = h.user(1, "Ana")
        ana.send(GROUP, "/nueva bot fácil 15")
        await h.settle()
        done = await play_practice(h, ana, seed=2)
        assert done.state is not None and done.state.is_over and h.services.ai.decisions > 5


async def test_an_empty_seat_in_2v2_goes_to_a_bot_or_ends_the_match(harness: Harness) -> None:
    """Dani leaves: the league counts the match at once as his side's loss (a bot in his seat
    cannot unrate it), and only his partner, Beto, chooses what happens to the seat."""
    h = harness
    ana, beto, caro, dani = await four_at_2v2(h)
    prompt = await abandon(h, dani)
    assert "<b>Dani</b>" in prompt.text and "<b>Beto</b>," in prompt.text
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 0 and record["bots"] == 0
    rated = await h.db.fetchall("SELECT user_id, matches FROM ratings ORDER BY user_id")
    assert [(r["user_id"], r["matches"]) for r in rated] == [(1, 1), (2, 1), (3, 1), (4, 1)]
    table = await the_table(h)
    step = table.state.step if table.state else -1
    # Paused: nobody moves until somebody chooses; the one who left does not choose.
    message = hand_message(h, ana)
    assert message is not None
    answer = await ana.tap(1, message.message_id, action_buttons(message)[0]["text"])
    assert "en pausa" in answer["text"]
    answer = await dani.tap(GROUP, prompt.message_id, "🤖 Que siga un bot")
    assert answer["text"] == "No estás jugando en esta mesa."
    for rival in (ana, caro):  # the rivals cannot take the win before the partner chooses
        answer = await rival.tap(GROUP, prompt.message_id, "🏁 Terminar")
        assert answer["text"].startswith("Elige su pareja")
    answer = await beto.tap(GROUP, prompt.message_id, "🤖 Que siga un bot")
    assert answer["text"] == "Sigue un bot."
    await h.settle()
    table = await the_table(h)
    assert table.seats == [1, 2, 3, BOT_IDS["normal"]] and table.state is not None
    assert table.state.step == step and table.vacated is None
    answer = await beto.tap(GROUP, prompt.message_id, "🏁 Terminar")
    assert answer["text"] == "Eso ya se decidió."
    await play_to_the_end(h, [ana, beto, caro], seed=5)
    # The match played on with a bot; the league keeps it as it stood when Dani left.
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 0
    again = await h.db.fetchall("SELECT user_id, matches FROM ratings ORDER BY user_id")
    assert [(r["user_id"], r["matches"]) for r in again] == [(1, 1), (2, 1), (3, 1), (4, 1)]


async def test_ending_instead_of_a_bot_concedes_for_the_side_that_left(harness: Harness) -> None:
    h = harness
    ana, beto, caro, _ = await four_at_2v2(h)
    prompt = await abandon(h, caro)
    answer = await beto.tap(GROUP, prompt.message_id, "🏁 Terminar")  # a rival: not his call
    assert answer["text"].startswith("Elige su pareja")
    answer = await ana.tap(GROUP, prompt.message_id, "🏁 Terminar")
    assert answer["text"] == "Partida terminada."
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 1 and record["bots"] == 0
    rated = await h.db.fetchall("SELECT matches FROM ratings")
    assert [r["matches"] for r in rated] == [1, 1, 1, 1]  # rated once, not again at the end


async def test_a_side_whose_partner_is_a_bot_concedes_at_once(harness: Harness) -> None:
    """Nobody of the leaving side is left to choose: the match ends, the rivals win."""
    h = harness
    ana, beto, caro = h.user(1, "Ana"), h.user(2, "Beto"), h.user(3, "Caro")
    ana.send(GROUP, "/nueva 2v2 15")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await beto.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await caro.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await h.settle()
    await ana.tap(GROUP, lobby.message_id, "🤖 + Bot al equipo 1")
    await h.settle()
    ana.send(GROUP, "/abandonar")
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 1
    assert await h.services.tables.table_in(GROUP, 0) is None


async def test_senas_between_a_person_and_a_bot_partner(harness: Harness) -> None:
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    ana.send(GROUP, "/nueva 2v2 15")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await beto.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await h.settle()
    await ana.tap(GROUP, lobby.message_id, "🤖 + Bot al equipo 1")
    await h.settle()
    await ana.tap(GROUP, lobby.message_id, "🤖 + Bot al equipo 2")
    await h.settle()
    table = await the_table(h)
    assert table.seats == [1, 2, BOT_IDS["normal"], BOT_IDS["normal"]]
    # Each bot showed its partner (and only its partner) its señas, privately.
    assert table.state is not None and table.state.hand is not None
    dealt = table.state.hand.dealt
    for user, bot_seat in ((1, 2), (2, 3)):
        name = await bot_name(h, table, bot_seat)
        got = [t for t in h.fake.texts(user) if f"{name}</b> te hace una seña" in t]
        t = translator("es")
        meanings = [f"({t(f'sign.meaning.{s}')})" for s in signs_to_show(dealt[bot_seat])]
        assert len(got) == len(meanings)
        assert all(any(m in text for text in got) for m in meanings)
    # Ana shows hers: the bot takes it into account for this hand.
    message = hand_message(h, ana)
    if message is None:  # the bots moved first and it is Beto's turn: Ana still has her hand
        message = next(m for m in reversed(h.fake.live(1)) if m.buttons())
    await ana.tap(1, message.message_id, "🤫 Hacer una seña")
    await h.settle()
    menu = h.fake.messages[1][message.message_id]
    answer = await ana.tap(1, message.message_id, menu.buttons()[0]["text"])
    assert answer["text"] == "Seña enviada."
    table = await the_table(h)
    assert table.state is not None
    assert signs_for(table, 2) == ("ae",)


async def test_a_practice_shows_the_partners_senas_in_the_hand_message(harness: Harness) -> None:
    """In a practice the computer partner's señas are lines of the hand message (as a hand
    shown in the group has them), not messages of their own: a notification each, they came
    by the dozen and pushed the hand up the chat."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(ana.id, "/nueva bot 2v2 15")
    await h.settle()
    table = await practice_of(h, ana)
    assert table.state is not None and table.state.hand is not None
    partner = table.geometry.partners(0)[0]
    name = (await bot_name(h, table, partner)).removeprefix("🤖 ")
    t = translator("es")
    meanings = [t(f"sign.meaning.{s}") for s in signs_for(table, 0)]
    assert meanings  # (the partner showed some: the test tells something)
    hand_id = (await h.telegram(table.id)).hands[ana.id]
    apart = [m.text for m in h.fake.live(ana.id) if m.message_id != hand_id]
    assert not [x for x in apart if "te hace una seña" in x], apart
    hand = plain(h.fake.messages[ana.id][hand_id].text)
    for meaning in meanings:
        assert f"🤫 {name} te hace una seña" in hand and f"({meaning})" in hand, hand


@pytest.mark.postgresql
async def test_the_groups_default_bot_level_is_set_in_config(harness: Harness) -> None:
    h = harness
    ana, boss = h.user(1, "Ana"), h.user(9, "Boss")
    h.fake.admins[GROUP].add(9)
    boss.send(GROUP, "/config")
    await h.settle()
    panel = h.fake.last(GROUP)
    assert "🤖 Bots: normal" in panel.text
    answer = await ana.tap(GROUP, panel.message_id, "🔄 Bots: normal")
    assert "Solo los admins" in answer["text"]
    await boss.tap(GROUP, panel.message_id, "🔄 Bots: normal")
    await h.settle()
    assert "🤖 Bots: difícil" in h.fake.messages[GROUP][panel.message_id].text
    ana.send(GROUP, "/nueva bot")  # no level given: the group's
    await h.settle()
    table = await practice_of(h, ana)
    assert table.seats == [1, BOT_IDS["dificil"]]
    ana.send(ana.id, "/cancelar")  # (in her chat, where the practice is: conceded)
    await h.settle()
    ana.send(GROUP, "/nueva bot fácil")  # a level given: that one
    await h.settle()
    table = await practice_of(h, ana)
    assert table.seats == [1, BOT_IDS["facil"]]


async def test_one_tables_bots_never_queue_ahead_of_another_tables(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Three tables, each one person and three computer players, thinking on one worker: a
    table has at most one decision in the queue, so a move waits behind at most one decision
    of each other table, however many moves its own bots have in a row."""
    import threading
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any

    from bot.service.pools import Supervised

    class Recording(ThreadPoolExecutor):
        """One worker, first come first served; it notes what each decision waited behind."""

        def __init__(self) -> None:
            super().__init__(max_workers=1)
            self.queued: list[str] = []  # the tables of the decisions waiting, in order
            self.waits: list[tuple[str, list[str]]] = []  # a decision, and those ahead of it
            self.guard = threading.Lock()

        def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            if fn.__name__ != "_think":  # (what a finished match taught of its people)
                return super().submit(fn, *args, **kwargs)
            table = str(args[2]).split(":")[1]  # the decision's seed: "<seed>:<table>:<step>:…"
            with self.guard:
                self.waits.append((table, list(self.queued)))
                self.queued.append(table)

            def run() -> Any:
                with self.guard:
                    self.queued.remove(table)
                time.sleep(0.02)  # a slow worker (a busy machine): the queue fills up
                return fn(*args, **kwargs)

            return super().submit(run)

    async with harness_with(fake, tmp_path / "fair.db", seed=3) as h:
        pool = Recording()
        h.services.ai._pool = Supervised("players", lambda: pool)  # (this pool, supervised)
        groups = [GROUP, GROUP - 1, GROUP - 2]
        people = [h.user(70 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro"])]
        for user, chat in zip(people, groups, strict=True):
            user.send(chat, "/nueva bot difícil 2v2 15")  # (slow decisions: they overlap)
        await h.settle()
        for _ in range(100):  # the people play on; their bots answer
            for user in people:
                message = hand_message(h, user)
                if message is not None and action_buttons(message):
                    await user.tap(user.id, message.message_id,
                                   action_buttons(message)[0]["text"])  # fmt: skip
            await h.settle()
            if len(pool.waits) > 80:
                break
        pool.shutdown(wait=True)
        assert len(pool.waits) > 60 and len({t for t, _ in pool.waits}) == 3
        competed = sum(1 for _, ahead in pool.waits if ahead)
        print(f"{len(pool.waits)} decisions, {competed} queued behind another table's")
        assert competed >= 5  # the tables did compete
        for table, ahead in pool.waits:
            assert table not in ahead  # never two decisions of one table in the queue
            assert len(ahead) == len(set(ahead)) <= 2  # at most one of each other table


async def test_two_bot_partners_let_the_stronger_answer(harness: Harness) -> None:
    """Alone with a bot partner against two bots: when both rival bots may answer a chant,
    the one whose señas (shown to each other) say the better hand for it answers."""
    from bot.ai.signs import answers_first
    from bot.game import MatchState
    from bot.game.actions import Action, ActionKind
    from bot.game.state import Pending

    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva bot 2v2 15")
    await h.settle()
    table = await practice_of(h, ana)
    assert table.seats[0] == 1 and all(s is not None and s < 0 for s in table.seats[1:])
    await play_practice(h, ana, seed=3)
    log = [parse_any(code) for _, code in await logged(h, table.id)]
    state = MatchState(table.config)
    checked = 0
    for action in log:
        hand = state.hand
        if (
            isinstance(action, Action)
            and hand is not None
            and hand.pending() in (Pending.ENVIDO, Pending.TRUCO)
            and action.seat in (1, 3)
            and action.kind is not ActionKind.FLOR
            and {a.seat for a in state.legal_actions()} >= {1, 3}
        ):
            family = hand.pending().value  # type: ignore[union-attr]
            first = answers_first(signs_to_show(hand.dealt[1]), signs_to_show(hand.dealt[3]),
                                  family)  # fmt: skip
            assert action.seat == (1 if first else 3), (action, hand.dealt)
            checked += 1
        state.apply(action)
    assert checked >= 2  # the match did put the question to the pair


async def six_in_a_duel(h: Harness) -> tuple[list[FakeUser], Table]:
    """Six people at /nueva 3v3 15, played by taps until a pica-pica hand's first duel is on."""
    names = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede"]
    users = [h.user(31 + i, name) for i, name in enumerate(names)]
    await open_table(h, users, "3v3 15")
    await play_until_a_duel(h, users, seed=45)
    return users, await the_table(h)


async def test_r45_a_computer_player_takes_a_seat_mid_pica_pica_and_nothing_changes(
    harness: Harness,
) -> None:
    """R45: in the first duel of a pica-pica hand, a player whose duel comes later leaves; a
    partner hands the seat to a computer player, which plays that duel when it comes; the
    hand's three duels and the redondo after it come as scheduled."""
    h = harness
    users, table = await six_in_a_duel(h)
    state = table.state
    assert state is not None and state.hand is not None
    number = state.hand.number
    later = duel_pair(6, state.hand.dealer, 2)  # the third duel's two seats
    leaver = next(u for u in users if table.seat_of(u.id) == later[0])
    seat = later[0]
    prompt = await abandon(h, leaver)
    partner = next(u for u in users if table.seat_of(u.id) in table.geometry.partners(seat))
    answer = await partner.tap(GROUP, prompt.message_id, "🤖 Que siga un bot")
    assert answer["text"] == "Sigue un bot."
    await h.settle()
    table = await the_table(h)
    assert table.seats[seat] == BOT_IDS["normal"] and table.vacated is None
    people = [u for u in users if u is not leaver]

    async def hand_over() -> bool:
        now = (await the_table(h)).state
        return now is None or now.is_over or now.hand is None or now.hand.number != number

    await play_to_the_end(h, people, seed=46, stop=hand_over)
    table = await the_table(h)
    assert table.state is not None
    log = await logged(h, table.id)
    moves = [parse_any(code) for _, code in log]
    # the computer player moved in the third duel, and only there
    bot_moves = [parse_any(code) for user, code in log if user == BOT_IDS["normal"] and ":" in code]
    assert bot_moves and all(a.seat == seat for a in bot_moves)  # type: ignore[union-attr]
    # the schedule did not change: one deal for the three duels, then a redondo
    again = replay(table.config, moves)
    assert to_json(again) == to_json(table.state)
    if not table.state.is_over:
        assert table.state.hand is not None and table.state.hand.number == number + 1
        assert table.state.hand.duel is None


@pytest.mark.postgresql
async def test_r45_a_side_that_concedes_in_a_duel_concedes_the_match_whole(
    harness: Harness,
) -> None:
    h = harness
    users, table = await six_in_a_duel(h)
    assert table.state is not None and table.state.hand is not None
    first, _ = duel_pair(6, table.state.hand.dealer, 1)  # a seat not in the duel on
    leaver = next(u for u in users if table.seat_of(u.id) == first)
    prompt = await abandon(h, leaver)
    partner = next(u for u in users if table.seat_of(u.id) in table.geometry.partners(first))
    answer = await partner.tap(GROUP, prompt.message_id, "🏁 Terminar")
    assert answer["text"] == "Partida terminada."
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 1 - table.geometry.side(first)
    assert match_over(h)
    done = await h.services.tables.get(table.id)
    assert done is not None and done.status.value == "finished"


@pytest.mark.postgresql
async def test_practice_is_private_while_the_group_plays_its_own_table(harness: Harness) -> None:
    """/nueva bot in the group says it goes to private and opens it there: the board and the
    hand are one message in Ana's chat, the group's own /nueva stays free for Beto and Caro,
    both matches are played to the end at once, the practice counts for nobody's /tabla and
    is looked back on from the private chat."""
    h = harness
    ana, beto, caro = h.user(1, "Ana"), h.user(2, "Beto"), h.user(3, "Caro")
    ana.send(GROUP, "/nueva bot difícil 15")
    await h.settle()
    told = h.fake.last(GROUP).text
    assert "privado" in told, told
    assert await h.services.tables.table_in(GROUP, 0) is None  # the group's table is free
    practice = await practice_of(h, ana)
    assert practice.seats == [1, BOT_IDS["dificil"]] and practice.state is not None
    assert practice.hints  # a practice teaches
    # In her chat, one message with the cards, the score and whose turn: no board of its own
    tables = [m for m in h.fake.live(ana.id) if "🃏" in m.text]
    assert len(tables) == 1, [m.text for m in tables]
    assert hand_message(h, ana) is tables[0]
    assert not any(b["text"] == "🃏 Mis cartas" for b in tables[0].buttons())
    # the group plays its own table meanwhile
    await open_table(h, [beto, caro], "1v1 15")
    group_table = await the_table(h)
    assert group_table.seats == [2, 3] and group_table.state is not None
    ana_id, group_id = practice.id, group_table.id

    async def both_over() -> bool:
        done = [await h.services.tables.get(n) for n in (ana_id, group_id)]
        return all(t is not None and not t.is_open for t in done)

    await play_to_the_end(h, [ana, beto, caro], seed=11, chat=0, stop=both_over)
    await h.settle()
    assert match_over(h)  # the group's match ended in the group
    assert not any(str(ana_id) in b.get("callback_data", "") for m in h.fake.live(GROUP)
                   for b in m.buttons() if "callback_data" in b)  # fmt: skip
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", ana_id)
    assert record is not None and record["bots"] == 1
    rated = await h.db.fetchall("SELECT user_id FROM ratings ORDER BY user_id")
    assert [r["user_id"] for r in rated] == [2, 3]  # a practice never counts
    ending = [m.text for m in h.fake.live(ana.id) if "Ganaste" in m.text or "Perdiste" in m.text]
    assert len(ending) == 1, [m.text for m in h.fake.live(ana.id)][-3:]
    # Looked back on in private: the practice; in the group: the group's match only
    ana.send(ana.id, "/historial")
    await h.settle()
    mine = h.fake.last(ana.id)
    assert "Ana" in mine.text and "🔎" in str(mine.buttons()), mine.text
    ana.send(GROUP, "/historial")
    await h.settle()
    listing = h.fake.last(GROUP)
    assert "Beto" in listing.text and "Ana" not in listing.text, listing.text


@pytest.mark.postgresql
async def test_practice_opened_in_private_and_left_with_abandonar(harness: Harness) -> None:
    """/nueva bot in the private chat plays there; /abandonar there concedes it; a second
    practice cannot start while one is on, and the group is never written to."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(ana.id, "/nueva bot fácil 2v2 15")
    await h.settle()
    practice = await practice_of(h, ana)
    assert practice.seats[0] == 1 and all(s is not None and s < 0 for s in practice.seats[1:])
    assert practice.state is not None
    ana.send(GROUP, "/nueva bot")  # one practice at a time: it is in her chat already
    await h.settle()
    assert "privado" in h.fake.last(GROUP).text
    assert await h.services.tables.table_in(GROUP, 0) is None
    assert (await practice_of(h, ana)).id == practice.id
    ana.send(ana.id, "/abandonar")
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", practice.id)
    assert record is not None and record["termination"] == "concession" and record["bots"] == 3
    assert await h.db.fetchall("SELECT * FROM ratings") == []
    # 🔁 Revancha from her chat: the same practice again, there
    end = next(m for m in h.fake.live(ana.id) if m.text.startswith("🥈"))
    answer = await ana.tap(ana.id, end.message_id, "🔁 Revancha")
    assert answer["text"] == "🔁 Revancha: mesa abierta.", answer
    await h.settle()
    again = await practice_of(h, ana)
    assert again.id != practice.id and again.rematch_of == practice.id
    assert again.seats == practice.seats and again.state is not None
    assert not any("🃏" in text for text in h.fake.texts(GROUP))


async def test_practice_asked_by_someone_the_bot_cannot_write_to(harness: Harness) -> None:
    """/nueva bot in the group from someone who never started the bot: no table anywhere,
    and the group is told how to let the bot write to them."""
    h = harness
    ana = h.user(1, "Ana", started=False)
    ana.send(GROUP, "/nueva bot")
    await h.settle()
    told = h.fake.last(GROUP)
    assert "no puedo escribirte" in told.text, told.text
    assert any("url" in b for b in told.buttons())
    assert await h.services.tables.table_in(ana.id, 0) is None
    assert await h.services.tables.table_in(GROUP, 0) is None


async def test_practice_in_private_keeps_its_clock(fake: FakeTelegram, tmp_path: Path) -> None:
    """A private practice table on a turn timer: the reminder comes once, in private (no
    mention meant for a group), and the timer plays for her there."""
    async with harness_with(fake, tmp_path / "clock.db", turn_seconds=60) as h:
        ana = h.user(1, "Ana")
        ana.send(ana.id, "/nueva bot 15 sinflor")
        await h.settle()
        practice = await practice_of(h, ana)
        assert practice.deadline is not None  # Ana is mano: her clock runs
        h.clock.advance(31)
        await h.until(lambda: any("te quedan" in t for t in h.fake.texts(ana.id)))
        await h.settle()
        reminders = [t for t in h.fake.texts(ana.id) if "te quedan" in t]
        assert len(reminders) == 1 and "tg://user" not in reminders[0], reminders
        h.clock.advance(30)
        await h.until(lambda: any("Se le acabó el tiempo" in t for t in h.fake.texts(ana.id)))
        await h.settle()
        assert h.fake.texts(GROUP) == []


async def test_a_practices_first_message_says_each_computer_player_as_its_name_asks(
    harness: Harness,
) -> None:
    """Computer players with a woman's name are "compañera", "mentirosa", "cantora", "guapa"
    in the practice's first message (3v3: five of the twelve names, women's among them)."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(ana.id, "/nueva bot 3v3 15")
    await h.settle()
    table = await practice_of(h, ana)
    start = next(plain(m.text) for m in h.fake.live(ana.id) if "Práctica" in m.text)
    women = {"Lola", "Chela", "Nena", "Mirta", "Beba", "Pirucha"}
    feminine = {"mentiroso": "mentirosa", "cantor": "cantora", "guapo": "guapa"}
    named = {s: (await bot_name(h, table, s)).removeprefix("🤖 ") for s in table.bot_seats}
    assert women & set(named.values()), named  # (the test tells something)
    for seat, name in named.items():
        character = character_of(table.id, seat).value
        said = feminine.get(character, character) if name in women else character
        assert f"🤖 {name} ({said})" in start, start
    partners = [named[s] for s in table.geometry.partners(0)]
    word = "compañeras" if all(n in women for n in partners) else "compañeros"
    assert f"Tus {word}: " in start, start


async def test_one_robot_mark_where_it_tells(harness: Harness) -> None:
    """🤖 marks a computer player where it tells: in the practice's start (with its
    character, and the level said once) and at the first mention of each one in a message,
    not on every line of the hand."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(ana.id, "/nueva bot difícil 2v2 15")
    await h.settle()
    table = await practice_of(h, ana)
    bots = [(await bot_name(h, table, s)).removeprefix("🤖 ") for s in table.bot_seats]
    start = next(plain(m.text) for m in h.fake.live(ana.id) if "Práctica" in m.text)
    assert start.count("difícil") == 1, start  # the level, once
    for seat, name in zip(table.bot_seats, bots, strict=True):
        character = character_of(table.id, seat).value  # (its gender: the test above)
        assert f"🤖 {name} ({character[:4]}" in start, start

    async def three_hands() -> bool:
        now = await h.services.tables.get(table.id)
        return now is None or now.state is None or now.state.hand_number >= 4 or not now.is_open

    await play_to_the_end(h, [ana], seed=12, chat=0, stop=three_hands)
    seen = 0
    for text in h.fake.texts(ana.id):
        shown = plain(text)
        for name in bots:
            if re.search(rf"\b{name}\b", shown) is None:
                continue
            seen += 1
            assert shown.count(f"🤖 {name}") <= 1, shown  # marked once a message
            first = re.search(rf"\b{name}\b", shown)
            assert first is not None and shown[: first.start()].endswith("🤖 "), shown
        assert "🤖 Decide 🤖" not in shown
    assert seen > 10
