"""The end of a hand is seen, on the hands the issue found told badly: a match won by a flor
declared at the deal right after a truco refused (both hands' ends, and every point), and a
2v2 match decided by a wanted falta envido (the values said, who scored, the proof). Played by
the engine from chosen deals, drawn by the views the Telegram adapter and the web table use,
from what each reader last saw (`hands_to_show`)."""

from __future__ import annotations

from bot.game import MatchConfig
from bot.game.events import Event
from bot.game.state import MatchState
from bot.i18n import translator
from bot.model.table import Table, TableStatus
from bot.service.play import remember_calls
from bot.views.common import plain
from bot.views.scene import hands_to_show, scene_of
from bot.views.table import board_text, hand_text
from tests.engine.helpers import deal_of, do, start
from tests.explained import check

NAMES = {1: "Ana", 2: "Beto", 3: "Carla", 4: "Dani"}


def table_of(state: MatchState) -> Table:
    seats: list[int | None] = list(range(1, state.players + 1))
    table = Table(7, -1, 0, TableStatus.PLAYING, 1, state.config, seats, "es", 0.0, 0.0)
    table.state = state
    return table


def moved(table: Table, events: list[Event]) -> None:
    """What the core does with a change's events: the table's calls follow, and its status."""
    remember_calls(table, events)
    if table.state is not None and table.state.is_over:
        table.status = TableStatus.FINISHED


def drawn(table: Table, seat: int | None, seen: int | None) -> str:
    """The board (seat None) or a player's hand message, for a reader who last saw the end of
    hand `seen`."""
    t = translator("es")
    assert table.state is not None
    gap, ended = hands_to_show(table.state, seen)
    scene = scene_of(t, table, NAMES, seat, ended, gap)
    return board_text(t, scene) if seat is None else hand_text(t, scene)


def test_a_match_won_by_a_flor_at_the_deal_after_a_refused_truco_tells_both_hands() -> None:
    # Ana 27, Beto 28, to 30. Hand 1: Beto chants ¡Truco!, Ana will not: Beto 29. Hand 2 is
    # dealt in the same commit, Beto holds flor and declares it at once: 32, the match is his.
    state = start("4c 5o 6b | 3o 4o 7e", MatchConfig(flor=True), scores=(27, 28))
    table = table_of(state)
    board_before = drawn(table, None, 0)
    ana_before = drawn(table, 0, 0)
    moved(table, do(state, "0:p:4c", "1:t"))
    board_chant = drawn(table, None, 0)
    ana_chant = drawn(table, 0, 0)
    events = do(state, "0:nq")
    events += state.apply(deal_of("4c 5o 6b | 1o 2o 3o"))
    events += do(state, "1:f")
    moved(table, events)
    assert state.is_over and state.winner == 1
    # Everyone who last saw hand 1 being played is told both ends, then the final score.
    board = plain(drawn(table, None, 0))
    ana = plain(drawn(table, 0, 0))
    for text in (board, ana):
        assert "🏁 Mano 1: Beto +1 (truco no querido)" in text, text
        assert "🏁 Mano 2: Beto ya sumó 3 (flor) · Beto muestra 1🪙 2🪙 3🪙" in text, text
        assert "Flor: Beto ¡Flor! → Beto +3" in text, text  # the last hand told whole
        assert "Beto: 32" in text and "Ana: 27" in text
    assert "Tus cartas" not in ana  # no dead hand once the match is over
    # A reader the bot knows nothing of (after a restart) is told both as well: the match
    # ended at the deal, before a card.
    assert "🏁 Mano 1:" in plain(drawn(table, None, None))
    # Every version explains the score, to the point.
    check(
        [board_before, board_chant, drawn(table, None, 0)],
        ["Ana", "Beto"],
        "board",
        from_zero=False,
    )
    check([ana_before, ana_chant, drawn(table, 0, 0)], ["Ana", "Beto"], "Ana", from_zero=False)


def test_a_2v2_match_decided_by_a_wanted_falta_envido_shows_the_values_said() -> None:
    # Ana and Carla 24, Beto and Dani 20, to 30, sin flor. Ana chants Falta envido, Beto wants
    # it: Ana says 33, the rivals "son buenas" (R19); the falta is 6, Ana and Carla reach 30.
    hands = "6e 7e 1c | 4c 5o 6b | 2b 5c 11o | 10o 11c 12e"
    state = start(hands, MatchConfig(players=4, flor=False), scores=(24, 20))
    table = table_of(state)
    before = drawn(table, None, 0)
    moved(table, do(state, "0:fe"))
    pending = drawn(table, None, 0)
    assert "⏳ Ana: Falta envido · Quiero → 6 en juego" in plain(pending)
    moved(table, do(state, "1:q"))
    assert state.is_over and state.winner == 0
    board = plain(drawn(table, None, 0))
    said = "Ana 33 · Beto son buenas · Dani son buenas"  # (Carla, of the side ahead, waits)
    assert f"Envido: Ana Falta envido → Beto Quiero → {said} → Ana y Carla +6" in board, board
    assert "🏁 Mano 1: Ana y Carla ya sumaron 6 (falta envido querido)" in board
    assert "Ana muestra 6🗡️ 7🗡️" in board  # the cards that prove the 33
    assert "Ana y Carla: 30" in board
    for seat in range(4):  # each private chat tells it too, with the proof
        mine = plain(drawn(table, seat, 0))
        assert said in mine and "Ana muestra 6🗡️ 7🗡️" in mine, mine
    check(
        [before, pending, drawn(table, None, 0)],
        ["Ana y Carla", "Beto y Dani"],
        "board",
        from_zero=False,
    )
