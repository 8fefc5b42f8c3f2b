"""The table as players meet it: lobby, joining, bad taps, races, restarts, privacy."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.game import MatchConfig, MatchState, observe, replay
from bot.game.actions import parse_any
from bot.game.events import CardPlayed, HandEnded
from bot.storage.snapshots import to_json
from bot.telegram.rows import sign_menu_row
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, match_over, open_table, play_to_the_end
from tests.fakebot import FakeTelegram

CARD = re.compile(r"(1[0-2]|[1-7]|ancho) de (oro|copa|espada|basto)")
SUITS = {"oro": "o", "copa": "c", "espada": "e", "basto": "b"}


SHORT = re.compile(r"(1[0-2]|[1-7])(🪙|🍷|🗡️|🪵)")  # "7🗡️": the rounds on the board
EMOJI = {"🪙": "o", "🍷": "c", "🗡️": "e", "🪵": "b"}


def cards_in(text: str) -> set[str]:
    """Every card a text names, long ("ancho de espada", "4 de copa") or short ("4🍷")."""
    named = {f"{1 if n == 'ancho' else n}{SUITS[s]}" for n, s in CARD.findall(text)}
    return named | {f"{n}{EMOJI[e]}" for n, e in SHORT.findall(text)}


async def current(h: Harness) -> MatchState:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    return table.state


async def action_log(h: Harness) -> list[str]:
    rows = await h.db.fetchall("SELECT code FROM actions ORDER BY game_id, seq")
    return [r["code"] for r in rows]


@pytest.mark.postgresql
async def test_a_2v2_match_with_teams_chosen_in_the_lobby(harness: Harness) -> None:
    h = harness
    users = [h.user(10 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    await open_table(h, users, "2v2 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [10, 11, 12, 13]  # Ana+Caro vs Beto+Dani
    assert "Ana</b> y <b>Caro" in h.fake.last(GROUP).text
    await play_to_the_end(h, users, seed=3)
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["players"] == 4 and record["flor"] == 0
    sides = await h.db.fetchall("SELECT user_id, side FROM match_players ORDER BY seat")
    assert [(r["user_id"], r["side"]) for r in sides] == [(10, 0), (11, 1), (12, 0), (13, 1)]


async def test_the_opener_sits_at_once_and_may_switch_team_or_leave(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva 2v2")
    await h.settle()
    lobby = h.fake.last(GROUP)
    first = lobby.history[0]  # the very first lobby message already shows her seated
    assert "Equipo 1: Ana · <i>libre</i>" in first and "Ana abrió la mesa" in first, first
    assert "?" not in first
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [1, None, None, None]
    await ana.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [None, 1, None, None]
    assert "Equipo 2: Ana" in h.fake.messages[GROUP][lobby.message_id].text
    await ana.tap(GROUP, lobby.message_id, "🚪 Salir")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [None] * 4


@pytest.mark.postgresql
@pytest.mark.postgresql
async def test_an_opener_the_bot_cannot_message_sits_and_plays_in_the_group(
    harness: Harness,
) -> None:
    """Who never opened the bot's private chat opens a table and sits at once: their hand will
    live in the group (tests/e2e/test_in_group.py plays such matches whole)."""
    h = harness
    juan = h.user(2, "Juan", started=False)
    juan.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    assert "Juan abrió la mesa" in lobby.text and "para sentarte" not in lobby.text
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [2, None]


async def test_joining_without_a_private_chat_sits_at_once_and_plays_in_the_group(
    harness: Harness,
) -> None:
    """✋ by a member who never opened the bot's private chat: seated at once, told where their
    cards will be (under the board, for them alone); no trip through Start. One who did start
    the bot plays in private, as before."""
    h = harness
    ana = h.user(1, "Ana")
    juan = h.user(2, "Juan", started=False)
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    answer = await juan.tap(GROUP, lobby.message_id, "✋ Unirme")
    assert answer["url"] is None
    assert answer["text"].startswith("✋ Juan: jugás acá en el grupo.")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seats == [1, 2] and "Juega" in h.fake.last(GROUP).text
    assert hand_message(h, ana) is not None  # Ana's hand: her private chat
    assert not h.fake.live(juan.id)  # Juan's: the group (behind 🃏 Mis cartas)


async def test_a_stranger_a_stale_button_and_forged_data_change_nothing(harness: Harness) -> None:
    h = harness
    ana, juan, eve = h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Eve")
    await open_table(h, [ana, juan], "sinflor")  # no flor to declare: one truco, one step
    board = h.fake.last(GROUP)
    state = await current(h)
    step = state.step
    answer = await eve.tap(GROUP, board.message_id, "¡Truco!")
    assert answer["text"] == "No estás jugando en esta mesa."
    old = hand_message(h, ana)
    assert old is not None
    mazo = old.button("Me voy al mazo")["callback_data"]  # a button of the old keyboard
    await ana.tap(ana.id, old.message_id, "¡Truco!")
    await h.settle()
    assert (await current(h)).step == step + 1
    answer = await ana.answer_of(ana.tap_data(ana.id, old.message_id, mazo))
    assert answer["text"] == "Esa jugada ya pasó."
    for data in [
        "zzz",
        "a:1:1:zz",
        "a:999:1:t",
        "a:1:1:p:99x",
        "a:1:1:p",
        "l:1:j:",
        "x" * 70,
        "a:1:-1:t",
    ]:
        answer = await ana.answer_of(ana.tap_data(GROUP, board.message_id, data))
        assert answer["text"], data
    await h.settle()
    assert (await current(h)).step == step + 1
    assert len(await action_log(h)) == 2  # the deal and the truco


@pytest.mark.postgresql
async def test_two_taps_at_the_same_moment_apply_once(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    mine = hand_message(h, ana)
    assert mine is not None
    answer = await ana.tap(ana.id, mine.message_id, "¡Truco!")
    assert answer["text"] == "¡Truco!"  # the tap's answer says what was done
    await h.settle()
    board = h.fake.last(GROUP)
    private = hand_message(h, juan)
    assert private is not None
    first = juan.tap_data(GROUP, board.message_id, board.button("Quiero")["callback_data"])
    second = juan.tap_data(
        juan.id, private.message_id, private.button("No quiero")["callback_data"]
    )
    answers = await asyncio.gather(juan.answer_of(first), juan.answer_of(second))
    await h.settle()
    texts = sorted(a["text"] for a in answers)
    assert "Esa jugada ya pasó." in texts and len([t for t in texts if "pasó" in t]) == 1
    log = await action_log(h)
    assert log.count("1:q") + log.count("1:nq") == 1


async def test_a_restart_mid_hand_loses_nothing(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "15")
    for _ in range(4):
        for user in (ana, juan):
            message = hand_message(h, user)
            if message is not None:
                card = next(
                    b for b in action_buttons(message) if b["callback_data"].count(":") == 4
                )
                await user.tap(user.id, message.message_id, card["text"])
                await h.settle()
                break
    before = to_json(await current(h))
    board_id = h.fake.last(GROUP).message_id
    await h.restart()
    await h.settle()
    state = await current(h)
    assert to_json(state) == before
    assert h.fake.last(GROUP).message_id == board_id  # the same board goes on
    config = state.config
    assert to_json(replay(config, [parse_any(c) for c in await action_log(h)])) == before
    await play_to_the_end(h, [ana, juan], seed=5)
    assert match_over(h)


async def test_no_hidden_card_reaches_anyone_who_should_not_see_it(harness: Harness) -> None:
    h = harness
    users = [h.user(10 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    await open_table(h, users, "2v2 15")
    rng_taps = 0
    for user in users:  # everybody peeks at their cards on the board once
        board = h.fake.last(GROUP)
        answer = await user.tap(GROUP, board.message_id, "🃏 Mis cartas")
        assert answer["show_alert"] and "Tus cartas" in answer["text"]
    rng_taps += await play_to_the_end(h, users, seed=11)
    log = [parse_any(code) for code in await action_log(h)]
    state = MatchState(MatchConfig(players=4, target=15))
    dealt: dict[int, set[str]] = {seat: set() for seat in range(4)}
    public: set[str] = set()
    for action in log:
        if hasattr(action, "hands"):
            for seat, hand in enumerate(action.hands):  # type: ignore[union-attr]
                dealt[seat] |= {c.code for c in hand}
        for event in state.apply(action):
            if isinstance(event, CardPlayed):
                public.add(event.card.code)
            if isinstance(event, HandEnded):
                public |= {c.code for _, cards in event.shown for c in cards}
    for text in h.fake.texts(GROUP):
        assert "Tus cartas" not in text
        assert cards_in(text) <= public, text
    for seat, user in enumerate(users):
        for text in h.fake.texts(user.id):
            assert cards_in(text) <= dealt[seat] | public, text
    for query, who in h.fake.query_users.items():
        text = h.fake.answers.get(query, {}).get("text", "")
        seat = [u.id for u in users].index(who) if who in [u.id for u in users] else None
        if seat is not None:
            assert cards_in(text) <= dealt[seat] | public
    assert observe(state).phase.value == "over"


async def test_bad_arguments_and_a_second_table(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva 4v4")
    await h.settle()
    assert "No entiendo «4v4»" in h.fake.last(GROUP).text
    assert await h.services.tables.table_in(GROUP, 0) is None
    ana.send(GROUP, "/nueva <b>")
    await h.settle()
    assert "&lt;b&gt;" in h.fake.last(GROUP).history[-1] or "No entiendo" in h.fake.last(GROUP).text
    ana.send(GROUP, "/nueva 2v2 15 sinflor")
    await h.settle()
    lobby = h.fake.last(GROUP)
    assert "2v2 · a 15 · sin flor" in lobby.text
    ana.send(GROUP, "/nueva")
    await h.settle()
    assert "Ya hay una mesa abierta" in h.fake.last(GROUP).text
    ana.send(ana.id, "/nueva")
    await h.settle()
    assert "grupo" in h.fake.last(ana.id).text


async def test_options_are_for_the_opener_and_cancel_for_opener_or_admin(harness: Harness) -> None:
    h = harness
    ana, juan, admin = h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Admin")
    h.fake.admins[GROUP].add(3)
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    answer = await juan.tap(GROUP, lobby.message_id, "🔄 Partida: a 30")
    assert answer["text"] == "Solo quien abrió la mesa cambia las opciones."
    await ana.tap(GROUP, lobby.message_id, "🔄 Partida: a 30")
    await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    assert "a 15" in lobby.text
    labels = [b["text"] for b in lobby.buttons()]  # each option shows the value it has now
    for label in ("🔄 Juego: 1v1", "🔄 Partida: a 15", "🔄 Flor: con", "🔄 Irse de entrada: 2"):
        assert label in labels, labels
    juan.send(GROUP, "/cancelar")
    await h.settle()
    assert "Solo quien abrió la mesa o un admin" in h.fake.last(GROUP).text
    admin.send(GROUP, "/cancelar")
    await h.settle()
    assert "Mesa cancelada" in h.fake.messages[GROUP][lobby.message_id].text
    assert await h.services.tables.table_in(GROUP, 0) is None


async def test_abandonar_concedes_and_records_the_match(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    juan.send(GROUP, "/abandonar")
    await h.settle()
    assert any("Ganó <b>Ana</b>" in text for text in h.fake.texts(GROUP))
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 0


async def test_a_deleted_board_comes_back(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    board = h.fake.last(GROUP)
    board.deleted = True
    mine = hand_message(h, ana)
    assert mine is not None
    await ana.tap(ana.id, mine.message_id, "¡Truco!")
    await h.settle()
    fresh = h.fake.last(GROUP)
    assert fresh.message_id != board.message_id and "¡Truco!" in fresh.text


async def test_too_many_requests_is_waited_out_and_the_board_catches_up(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    h.fake.fail_next["editMessageText"] = (429, "Too Many Requests: retry after 1", 1)
    mine = hand_message(h, ana)
    assert mine is not None
    await ana.tap(ana.id, mine.message_id, "¡Truco!")
    await h.settle()
    assert "¡Truco!" in h.fake.last(GROUP).text
    assert any(code == 429 for _, code, _ in h.fake.errors)


@pytest.mark.postgresql
async def test_commands_help_rules_language(harness: Harness) -> None:
    h = harness
    ana = h.user(1, "Ana")
    assert {c["command"] for c in h.fake.commands[None]} >= {"nueva", "tabla", "reglas", "idioma"}
    assert "en" in h.fake.commands
    asked = ana.send(GROUP, "/reglas")
    await h.settle()
    rules = h.fake.last(GROUP)
    assert "Machete" in rules.text and "Vale cuatro 4 · 3" in rules.text
    assert rules.reply_to == asked and rules.parse_mode == "HTML"  # an answer to the command
    ana.send(GROUP, "/ayuda")
    await h.settle()
    assert "/nueva" in h.fake.last(GROUP).text
    h.fake.admins[GROUP].add(1)
    ana.send(GROUP, "/idioma")
    await h.settle()
    await ana.tap(GROUP, h.fake.last(GROUP).message_id, "🇬🇧 English")
    await h.settle()
    ana.send(GROUP, "/nueva")
    await h.settle()
    assert "Truco table" in h.fake.last(GROUP).text


async def test_an_abandoned_lobby_expires(fake: FakeTelegram, tmp_path: Path) -> None:
    async with harness_with(fake, tmp_path / "x.db", lobby_seconds=600) as h:
        ana = h.user(1, "Ana")
        ana.send(GROUP, "/nueva")
        await h.settle()
        lobby = h.fake.last(GROUP)
        h.clock.advance(599)
        await h.settle()
        assert await h.services.tables.table_in(GROUP, 0) is not None  # not yet
        h.clock.advance(2)
        closed = h.fake.messages[GROUP][lobby.message_id]
        await h.until(lambda: "La mesa se cerró" in closed.text)
        assert await h.services.tables.table_in(GROUP, 0) is None


async def test_a_player_who_blocks_the_bot_gets_the_hand_back(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    h.fake.started.discard(2)  # Juan blocks the bot
    mine = hand_message(h, ana)
    assert mine is not None
    h.clock.advance(21)  # a while after the start: Juan's next hand comes as a new message
    await ana.tap(ana.id, mine.message_id, "Me voy al mazo")  # a new hand: new hand messages
    await h.settle()
    # Said in the group (after or before the new board: the two lanes' calls race).
    assert any("no te puedo escribir" in text for text in h.fake.texts(GROUP))
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    juan.start_bot(f"h{table.id}")
    await h.settle()
    assert hand_message(h, juan) is not None


async def test_the_sena_menu_is_an_outbox_row_of_the_hand_message_like_its_other_edits(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The menu of señas replaces the hand message's buttons through the mailbox (an edit of
    the hand message, as every other), not behind the adapter's back; "back" puts the hand's
    own buttons back; a menu for a step the table has left shows nothing."""
    async with harness_with(fake, tmp_path / "menu.db") as h:
        users = [h.user(10 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
        await open_table(h, users, "2v2")
        ana = users[0]
        message = [m for m in h.fake.live(ana.id) if m.buttons()][-1]
        hand_buttons = [b["text"] for b in message.buttons()]
        assert "🤫 Hacer una seña" in hand_buttons
        since = len(h.fake.calls)
        answer = await ana.tap(ana.id, message.message_id, "🤫 Hacer una seña")
        assert answer["text"] == "🤫 Elegí la seña para tu compañero:"
        await h.settle()
        shown = [b["text"] for b in h.fake.messages[ana.id][message.message_id].buttons()]
        assert "Levantar las cejas" in shown and "↩️ Volver" in shown
        methods = [method for _, method, chat in h.fake.calls[since:] if chat == ana.id]
        assert "editMessageReplyMarkup" not in methods and "editMessageText" in methods
        await ana.tap(ana.id, message.message_id, "↩️ Volver")
        await h.settle()
        assert [b["text"] for b in h.fake.messages[ana.id][message.message_id].buttons()] == (
            hand_buttons
        )
        # A menu asked at a step the table has left (its move came first) is not shown.
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        await h.services.outbox.send([sign_menu_row(table, ana.id, table.state.step - 1)])
        await h.settle()
        assert [b["text"] for b in h.fake.messages[ana.id][message.message_id].buttons()] == (
            hand_buttons
        )


@pytest.mark.postgresql
async def test_tabla_and_yo_after_a_match(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    juan.send(GROUP, "/abandonar")
    await h.settle()
    result = h.fake.last(GROUP).text
    # one match: nobody is ranked yet, so no level that means little; what is left, once
    assert "Nivel" not in result and "nivel" not in result
    assert "📊 Ana y Juan entran a /tabla en 4 partidas más" in result
    ana.send(GROUP, "/tabla")
    await h.settle()
    table = h.fake.last(GROUP).text
    assert "<pre>" in table and "Ana" in table and "1 de 1" in table
    ana.send(GROUP, "/tabla 4v4")
    await h.settle()
    assert "Uso: /tabla" in h.fake.last(GROUP).text
    ana.send(GROUP, "/tabla 3v3")  # understood: nobody has played one here yet
    await h.settle()
    assert "Todavía no hay partidas" in h.fake.last(GROUP).text
    ana.send(GROUP, "/tabla 1v1 mes")
    await h.settle()
    assert "este mes · 1v1" in h.fake.last(GROUP).text
    juan.send(GROUP, "/yo")
    await h.settle()
    mine = h.fake.last(GROUP).text
    assert "Juan" in mine and "Partidas: 1 · ganadas 0 (0%)" in mine


async def test_config_sets_the_defaults_of_new_tables_for_admins_only(harness: Harness) -> None:
    h = harness
    ana, boss = h.user(1, "Ana"), h.user(9, "Boss")
    h.fake.admins[GROUP].add(9)
    ana.send(GROUP, "/config")
    await h.settle()
    assert "Solo los admins" in h.fake.last(GROUP).text
    boss.send(GROUP, "/config")
    await h.settle()
    panel = h.fake.last(GROUP)
    answer = await ana.tap(GROUP, panel.message_id, "🔄 Juego: 1v1")
    assert "Solo los admins" in answer["text"]
    for label in ("🔄 Juego: 1v1", "🔄 Partida: a 30", "🔄 Flor: con"):
        await boss.tap(GROUP, panel.message_id, label)
        await h.settle()
    panel = h.fake.messages[GROUP][panel.message_id]
    assert "2v2 · a 15 · sin flor" in panel.text
    labels = [b["text"] for b in panel.buttons()]
    assert {"🔄 Juego: 2v2", "🔄 Partida: a 15", "🔄 Flor: sin"} <= set(labels), labels
    ana.send(GROUP, "/nueva")
    await h.settle()
    assert "2v2 · a 15 · sin flor" in h.fake.last(GROUP).text
    ana.send(GROUP, "/cancelar")
    await h.settle()
    ana.send(GROUP, "/nueva 1v1")
    await h.settle()
    assert "1v1 · a 15 · sin flor" in h.fake.last(GROUP).text


async def test_the_3v3_options_show_at_a_table_of_six_and_are_kept(harness: Harness) -> None:
    """Pica-pica and the falta in a duel (R42's option) are offered for 3v3 only, the falta
    only with pica-pica; the table starts with what the lobby showed."""
    h = harness
    names = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede"]
    users = [h.user(70 + i, name) for i, name in enumerate(names)]
    ana = users[0]
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    labels = [b["text"] for b in lobby.buttons()]
    assert not any("Pica-pica" in x or "Falta en duelo" in x for x in labels), labels
    for label in ("🔄 Juego: 1v1", "🔄 Juego: 2v2"):
        await ana.tap(GROUP, lobby.message_id, label)
        await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    labels = [b["text"] for b in lobby.buttons()]
    assert {"🔄 Pica-pica: con", "🔄 Falta en duelo: la normal"} <= set(labels), labels
    assert lobby.reply_markup is not None
    rows = [len(row) for row in lobby.reply_markup["inline_keyboard"] if "🔄" in row[0]["text"]]
    assert rows and max(rows) <= 2, rows  # the options two to a row on a phone
    await ana.tap(GROUP, lobby.message_id, "🔄 Falta en duelo: la normal")
    await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    assert "falta 6 en duelo" in lobby.text, lobby.text
    await ana.tap(GROUP, lobby.message_id, "🔄 Pica-pica: con")
    await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    labels = [b["text"] for b in lobby.buttons()]
    assert "🔄 Pica-pica: sin" in labels and not any("Falta en duelo" in x for x in labels)
    await ana.tap(GROUP, lobby.message_id, "🔄 Pica-pica: sin")
    await h.settle()
    for index, user in enumerate(users[1:], start=1):
        await user.tap(GROUP, lobby.message_id, f"✋ Equipo {index % 2 + 1}")
        await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    assert table.config == MatchConfig(players=6, pica_pica=True, duel_falta=6)


@pytest.mark.postgresql
async def test_a_group_upgraded_to_a_supergroup_keeps_its_table(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    basic, new_chat = -555, -1_001_000_000_999  # a basic group becomes a supergroup
    await open_table(h, [ana, juan], chat=basic)
    h.fake.push(
        {
            "message": {
                "message_id": 999, "date": 0, "chat": {"id": basic, "type": "group", "title": "G"},
                "migrate_to_chat_id": new_chat,
            }
        }
    )  # fmt: skip
    await h.settle()
    table = await h.services.tables.table_in(new_chat, 0)
    assert table is not None and table.chat_id == new_chat
    assert "Juega" in h.fake.last(new_chat).text  # the board, sent anew in the supergroup
    await play_to_the_end(h, [ana, juan], seed=2, chat=new_chat)
    record = await h.db.fetchone("SELECT chat_id FROM matches")
    assert record is not None and record["chat_id"] == new_chat


@pytest.mark.postgresql
async def test_removing_the_bot_closes_the_table_as_cancelled(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    bot = {"id": 999_000, "is_bot": True, "first_name": "Truco"}
    h.fake.push(
        {
            "my_chat_member": {
                "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
                "from": ana.json(), "date": 0,
                "old_chat_member": {"status": "member", "user": bot},
                "new_chat_member": {"status": "kicked", "user": bot, "until_date": 0},
            }
        }
    )  # fmt: skip
    await h.settle()
    assert await h.services.tables.table_in(GROUP, 0) is None
    record = await h.db.fetchone("SELECT termination FROM matches")
    assert record is not None and record["termination"] == "cancelled"
    assert hand_message(h, ana) is None  # no buttons left to tap


async def test_forum_topics_hold_one_table_each(harness: Harness) -> None:
    h = harness
    users = [h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Caro"), h.user(4, "Dani")]
    for topic, (a, b) in ((11, users[:2]), (22, users[2:])):
        a.send(GROUP, "/nueva", thread_id=topic)
        await h.settle()
        lobby = h.fake.last(GROUP)
        assert lobby.thread_id == topic
        await b.tap(GROUP, lobby.message_id, "✋ Unirme")
        await h.settle()
    first = await h.services.tables.table_in(GROUP, 11)
    second = await h.services.tables.table_in(GROUP, 22)
    assert first is not None and second is not None and first.id != second.id
    users[0].send(GROUP, "/nueva", thread_id=11)
    await h.settle()
    assert "Ya hay una mesa abierta" in h.fake.last(GROUP).text
    message = hand_message(h, users[0])
    assert message is not None
    await users[0].tap(users[0].id, message.message_id, "Me voy al mazo")
    await h.settle()
    for stored in h.fake.live(GROUP):
        if "🏁 <b>Mano" in stored.text or "Juega" in stored.text:
            assert stored.thread_id in (11, 22)
    assert any(m.thread_id == 11 and "🏁 <b>Mano" in m.text for m in h.fake.live(GROUP))
