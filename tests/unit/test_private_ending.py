"""A player's own end of the match speaks to them: what they did is said in the second person
("te fuiste al mazo", "tu 1🪵 mata 5🪙"), "mano" means one thing a line, and an envido answered
"son buenas" reads as a table says it. Played by the engine from chosen deals, drawn by the
views the Telegram adapter uses."""

from __future__ import annotations

from bot.game import MatchConfig
from bot.game.state import MatchState
from bot.i18n import translator
from bot.model.outcome import Outcome
from bot.views.common import Seating, plain
from bot.views.summary import match_summary, private_ending
from tests.engine.helpers import do, start

es, en = translator("es"), translator("en")
WHO = Seating(("Ana", "Dario"))
RULES = MatchConfig(flor=False, target=15)


def ending(state: MatchState, seat: int, language: str = "es") -> list[str]:
    """The lines `seat` reads at the end of the match of `state`."""
    assert state.winner is not None
    outcome = Outcome.reached(state.winner, (state.scores[0], state.scores[1]))
    t = translator(language)
    text = private_ending(t, WHO, outcome, seat % 2, seat, state)
    return plain(text).splitlines()


def group(state: MatchState) -> list[str]:
    assert state.winner is not None
    outcome = Outcome.reached(state.winner, (state.scores[0], state.scores[1]))
    return plain(match_summary(es, WHO, outcome, 15, state=state)).splitlines()


def test_who_went_to_the_mazo_reads_it_said_to_them() -> None:
    state = start("4c 5o 6b | 1e 1b 7e", RULES, scores=(10, 14))
    do(state, "0:m")  # Ana, the mano, leaves at once: 2 (R24), Dario reaches 15
    assert ending(state, 0)[:2] == [
        "🥈 Perdiste 10 a 16.",
        "Porque te fuiste al mazo en la 1ª, sin envido: vale 2, en la mano 1.",
    ]
    assert ending(state, 1)[1].startswith("Porque Ana se fue al mazo")
    assert group(state)[1].startswith("Porque Ana se fue al mazo")
    assert ending(state, 0, "en")[1].startswith("Because you folded")


def test_a_hand_won_on_the_cards_says_mano_once_and_whose_card_is_whose() -> None:
    state = start("1e 1b 7e | 4c 5o 6b", RULES, scores=(14, 10))
    do(state, "0:p:1e", "1:p:4c", "0:p:1b", "1:p:5o")  # Ana takes both rounds: 15
    assert ending(state, 0)[1] == "Ganando la mano 1: 2ª tu 1🪵 mata 5🪙."
    assert ending(state, 1)[1] == "Ganando la mano 1: 2ª Ana 1🪵 mata tu 5🪙."
    assert group(state)[1] == "Ganando la mano 1: 2ª Ana 1🪵 mata 5🪙."
    assert ending(state, 0, "en")[1] == "Winning hand 1: 2nd your 1🪵 beats 5🪙."
    for seat in (0, 1):
        assert ending(state, seat)[1].count("mano") == 1


def test_an_envido_answered_son_buenas_reads_as_a_table_says_it() -> None:
    state = start("7e 5e 4c | 4o 6c 2b", RULES, scores=(12, 10))
    do(state, "0:re", "1:q")  # Ana says 32, Dario "son buenas": 3 for Ana, 15
    line = "Con el real envido querido, 32 (del otro lado, son buenas), en la mano 1."
    assert ending(state, 0)[1] == line
    assert group(state)[1] == line
    assert "contra son buenas" not in "\n".join(ending(state, 1))
