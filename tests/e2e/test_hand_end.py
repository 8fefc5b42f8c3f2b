"""The table as players meet it, through the buttons: a tap on a board a chant behind says what
changed, computer players have names of their own, and a match's end reaches every player as
a message that notifies."""

from __future__ import annotations

import re

from bot.game import Action, ActionKind
from bot.views.common import BOT_MARK, plain
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import action_buttons, hand_message, open_table


async def test_a_stale_tap_says_what_changed(harness: Harness) -> None:
    """Ana taps "Me voy al mazo" on a board one chant behind: she is told Beto chanted
    ¡Truco! and that it is hers to answer, and nothing happens."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    await open_table(h, [ana, beto], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    mano = ana if table.state.hand is not None and table.state.hand.mano == 0 else beto
    other = beto if mano is ana else ana
    board_id = (await h.telegram(table.id)).board
    assert board_id is not None
    board = h.fake.messages[GROUP][board_id]
    mazo = next(b for b in board.buttons() if b["text"] == "Me voy al mazo")["callback_data"]
    # The mano plays a card; the other chants ¡Truco!
    message = hand_message(h, mano)
    assert message is not None
    card = next(b for b in action_buttons(message) if b["callback_data"].count(":") == 4)
    await mano.tap(mano.id, message.message_id, card["text"])
    await h.settle()
    message = hand_message(h, other)
    assert message is not None
    await other.tap(other.id, message.message_id, "¡Truco!")
    await h.settle()
    step = (await h.services.tables.get(table.id)).state.step  # type: ignore[union-attr]
    # The mano's old "Me voy al mazo" on the board, drawn before both moves.
    answer = await mano.answer_of(mano.tap_data(GROUP, board_id, mazo))
    assert answer["text"] == f"{other.first_name} cantó ¡Truco!: contestá.", answer
    await h.settle()
    after = await h.services.tables.get(table.id)
    assert after is not None and after.state is not None and after.state.step == step


async def test_computer_players_have_names_of_their_own(harness: Harness) -> None:
    """Three computer players at one table are three names, none a person's: a person at the
    table called Lola (a name on the computer players' list) is never mistaken for one."""
    h = harness
    lola = h.user(1, "Lola")
    lola.send(lola.id, "/nueva bot 2v2 difícil")
    await h.settle()
    table = await h.services.tables.table_in(lola.id, 0)
    assert table is not None and len(table.bot_seats) == 3
    start = next(plain(m.text) for m in h.fake.live(lola.id) if "Práctica" in m.text)
    bots = set(re.findall(rf"{BOT_MARK} (\w+)", start))
    assert len(bots) == 3, (bots, start)  # three of them, each its own name
    assert "Lola" not in bots
    hand = hand_message(h, lola)
    assert hand is not None and "Lola" in plain(hand.text)  # the person, without the mark
    assert f"{BOT_MARK} Lola" not in plain(hand.text)


async def test_the_end_of_a_match_reaches_each_player_as_a_new_message(harness: Harness) -> None:
    """A concession ends the match: each player gets a new message (a notification) with the
    winner and the score, 🔁 Revancha and 📝 their review; their last hand message keeps nothing
    to tap."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    await open_table(h, [ana, beto], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    hands = (await h.telegram(table.id)).hands
    ana.send(GROUP, "/abandonar")
    await h.settle()
    said = {ana.id: "🥈 Perdiste.\nAbandonaste la partida con 0 a 0.",
            beto.id: "🏆 ¡Ganaste!\nAna abandonó la partida con 0 a 0."}  # fmt: skip
    for user in (ana, beto):
        new = [m for m in h.fake.live(user.id) if plain(m.text).startswith(said[user.id])]
        assert len(new) == 1 and new[0].message_id != hands[user.id]  # sent, not edited
        assert [b["text"] for b in new[0].buttons()] == ["🔁 Revancha", "📝 Mi revisión"]
        assert "Tus cartas" not in new[0].text  # no dead hand in it
        last_hand = h.fake.messages[user.id][hands[user.id]]
        assert action_buttons(last_hand) == []  # nothing left to tap there
        assert "Tu mano" not in last_hand.text  # no hand, so no hand's title under the end


async def test_a_name_cannot_pass_for_a_computer_player_or_vanish(harness: Harness) -> None:
    """Telegram names are people's input: a right-to-left override and the computer players'
    mark are dropped, a name of zero-width spaces falls back to a number, two people of one
    name are told apart."""
    h = harness
    liar = h.user(1, "\u202e🤖 Lola")
    ghost = h.user(2, "\u200b\u200b")
    await open_table(h, [liar, ghost], "1v1 15")
    board = plain(h.fake.last(GROUP).text)
    assert "Lola: 0" in board and BOT_MARK not in board and "\u202e" not in board
    assert "#2: 0" in board  # (nothing left of the name: a number)
    liar.send(GROUP, "/cancelar")
    await h.settle()
    ana, ana2 = h.user(3, "Ana"), h.user(4, "Ana")
    await open_table(h, [ana, ana2], "1v1 15")
    board = plain(h.fake.last(GROUP).text)
    assert "Ana: 0" in board and "Ana 2: 0" in board, board


async def test_a_board_a_chant_behind_still_takes_an_envido_over_the_truco(
    harness: Harness,
) -> None:
    """R17 (the envido goes first): the mano chants ¡Truco! before any card; the other taps
    Envido on the board drawn before it. That envido is hers to chant now, over the truco,
    and means what it meant: it is chanted, not refused with "cantó ¡Truco!: contestá."."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    await open_table(h, [ana, beto], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None and table.state.hand is not None
    mano = ana if table.state.hand.mano == 0 else beto
    other = beto if mano is ana else ana
    board_id = (await h.telegram(table.id)).board
    assert board_id is not None
    board = h.fake.messages[GROUP][board_id]
    envido = next(b for b in board.buttons() if b["text"] == "Envido")["callback_data"]
    message = hand_message(h, mano)
    assert message is not None
    await mano.tap(mano.id, message.message_id, "¡Truco!")
    await h.settle()
    answer = await other.answer_of(other.tap_data(GROUP, board_id, envido))
    assert answer["text"] == "Envido", answer
    await h.settle()
    after = await h.services.tables.get(table.id)
    assert after is not None and after.state is not None and after.state.hand is not None
    seat = after.seat_of(other.id)
    assert after.state.hand.history[-1] == Action(seat, ActionKind.ENVIDO)  # type: ignore[arg-type]
    # The truco waits under the envido (R17): the mano answers the envido first
    assert [a.kind for a in after.state.legal_actions() if a.seat != seat][:2] == [
        ActionKind.QUIERO, ActionKind.NO_QUIERO,
    ]  # fmt: skip


async def test_a_board_a_chant_behind_never_raises_what_it_did_not_see(harness: Harness) -> None:
    """The board's Envido drawn before the mano's own Envido would now raise it (envido,
    envido: 4 points, not 2): refused, saying what changed."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    await open_table(h, [ana, beto], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None and table.state.hand is not None
    mano = ana if table.state.hand.mano == 0 else beto
    other = beto if mano is ana else ana
    board_id = (await h.telegram(table.id)).board
    assert board_id is not None
    board = h.fake.messages[GROUP][board_id]
    envido = next(b for b in board.buttons() if b["text"] == "Envido")["callback_data"]
    message = hand_message(h, mano)
    assert message is not None
    await mano.tap(mano.id, message.message_id, "Envido")
    await h.settle()
    step = (await h.services.tables.get(table.id)).state.step  # type: ignore[union-attr]
    answer = await other.answer_of(other.tap_data(GROUP, board_id, envido))
    assert answer["text"] == f"{mano.first_name} cantó Envido: contestá.", answer
    await h.settle()
    after = await h.services.tables.get(table.id)
    assert after is not None and after.state is not None and after.state.step == step
