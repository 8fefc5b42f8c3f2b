"""R46 as the players see it: the stakes of a falta envido, the rules line, the lobby's option."""

from __future__ import annotations

import pytest

from bot.game import MatchConfig
from bot.i18n import translator
from bot.model.options import LOBBY_OPTIONS, Option, TableOptions
from bot.views.common import option_button_text, rules_line, shown_options
from bot.views.table import board_text, hand_text
from tests.engine.helpers import do, start
from tests.unit.test_views import scene

NAMES = {1: "Ana", 2: "Beto"}


@pytest.mark.parametrize(("malas", "scores", "worth"), [(True, (4, 0), 11), (False, (4, 0), 26),
                                                        (True, (20, 8), 10)])  # fmt: skip
def test_the_stakes_of_a_falta_envido_say_what_it_is_worth_at_this_table(
    malas: bool, scores: tuple[int, int], worth: int
) -> None:
    t = translator("es")
    state = start("4o 5b 12e | 7c 6c 4e", MatchConfig(falta_malas=malas), scores=scores)
    do(state, "0:fe")
    board = board_text(t, scene(t, state, NAMES, None))
    line = next(x for x in board.splitlines() if x.startswith("⏳"))
    assert f"Quiero → {worth} en juego" in line, line
    assert f"Quiero → {worth} en juego" in hand_text(t, scene(t, state, NAMES, 1))


def test_the_rules_line_and_the_option_say_it_where_it_means_something() -> None:
    for language, words in (("es", "falta a las malas"), ("en", "falta to the end of the malas")):
        t = translator(language)
        assert words in rules_line(t, MatchConfig(falta_malas=True))
        assert words not in rules_line(t, MatchConfig())
        assert words not in rules_line(t, MatchConfig(target=15, falta_malas=True))  # no effect
    t = translator("es")
    assert Option.MALAS in shown_options(LOBBY_OPTIONS, MatchConfig())
    assert Option.MALAS not in shown_options(LOBBY_OPTIONS, MatchConfig(target=15))
    off = TableOptions()
    assert option_button_text(t, off, Option.MALAS).endswith("Falta a las malas: no")
    on = off.cycled(Option.MALAS)
    assert on.config.falta_malas and option_button_text(t, on, Option.MALAS).endswith(": sí")
    assert TableOptions.from_defaults(on.to_defaults()) == on  # a group's default keeps it
