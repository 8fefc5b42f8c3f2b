"""The rule sheet itself: its worked hand (section 11) and every row of its machete (section 12)."""

from __future__ import annotations

import pytest

from bot.game import MatchConfig, card, cards, envido_value, replay
from bot.game.actions import Action, parse_any
from bot.game.events import EnvidoResolved, FlorResolved, HandEnded, Scored, ScoreReason
from bot.storage.snapshots import to_json
from tests.engine.helpers import deal_of, do, start


def test_the_worked_hand_replays_exactly() -> None:
    state = start("3e 7c 6c | 2o 1b 4b")
    assert envido_value(cards("3e 7c 6c")) == 33 and envido_value(cards("2o 1b 4b")) == 25
    events = do(state, "0:e", "1:q")  # 2. envido before any card; 3. the rival wants
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert (resolved.winner, resolved.points) == (0, 2)
    # R19: the mano says 33; the rival's 25 does not beat it: "son buenas", nothing shown
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 33), (1, None)]
    do(state, "0:p:3e", "1:p:2o")  # 4. round 1: your 3 beats his 2
    assert state.hand.results == [0]  # type: ignore[union-attr]
    do(state, "0:p:7c", "1:t", "0:q")  # 5. the rival chants truco over your 7, you want
    assert state.hand.hand_value() == 2  # type: ignore[union-attr]
    do(state, "1:p:1b")  # 6. his ancho de bastos wins round 2
    assert state.hand.results == [0, 1] and state.hand.turn == 1  # type: ignore[union-attr]
    events = do(state, "1:p:4b", "0:p:6c")  # 7. round 3: his 4 against your 6
    end = next(e for e in events if isinstance(e, HandEnded))
    assert (end.winner, end.points) == (0, 2)
    assert state.scores == [4, 0]  # 8. envido 2 + truco 2
    assert end.shown == ((0, (card(7, "c"), card(6, "c"))),)
    log = [deal_of("3e 7c 6c | 2o 1b 4b")] + [
        Action.parse(c)
        for c in [
            "0:e",
            "1:q",
            "0:p:3e",
            "1:p:2o",
            "0:p:7c",
            "1:t",
            "0:q",
            "1:p:1b",
            "1:p:4b",
            "0:p:6c",
        ]
    ]
    assert to_json(replay(MatchConfig(), [parse_any(a.code) for a in log])) == to_json(state)


# Machete, Truco: (chants before seat 0 wins both rounds, or the refusal) -> points to the scorer.
@pytest.mark.parametrize(
    ("row", "script", "scorer", "points"),
    [
        ("Sin canto: 1", (), 0, 1),
        ("Truco querido: 2", ("0:t", "1:q"), 0, 2),
        ("Truco no querido: 1", ("0:t", "1:nq"), 0, 1),
        ("Retruco querido: 3", ("0:t", "1:q", "0:p:1e", "1:p:4o", "0:p:1b", "1:rt", "0:q"), 0, 3),
        ("Retruco no querido: 2", ("0:t", "1:rt", "0:nq"), 1, 2),
        ("Vale cuatro querido: 4", ("0:t", "1:rt", "0:v4", "1:q"), 0, 4),
        ("Vale cuatro no querido: 3", ("0:t", "1:rt", "0:v4", "1:nq"), 0, 3),
    ],
)
def test_machete_truco(row: str, script: tuple[str, ...], scorer: int, points: int) -> None:
    state = start("1e 1b 6e | 4o 5c 6b", MatchConfig(house_rule=False))
    events = do(state, *script)
    if not any(isinstance(e, HandEnded) for e in events):
        for code in ("0:p:1e", "1:p:4o", "0:p:1b", "1:p:5c"):
            if code in {a.code for a in state.legal_actions()}:
                events += do(state, code)
    end = next(e for e in events if isinstance(e, HandEnded))
    assert (end.winner, end.points) == (scorer, points), row


# Machete, Envido: each row's wanted and not-wanted value (seat 0 holds 33, seat 1 holds 5).
@pytest.mark.parametrize(
    ("row", "chain", "wanted", "not_wanted"),
    [
        ("Envido", ("0:e",), 2, 1),
        ("Real envido", ("0:re",), 3, 1),
        ("Envido, Envido", ("0:e", "1:e"), 4, 2),
        ("Envido, Real envido", ("0:e", "1:re"), 5, 2),
        ("Envido, Envido, Real envido", ("0:e", "1:e", "0:re"), 7, 4),
        ("Falta envido: el resto / 1", ("0:fe",), 25, 1),
        ("Falta envido: el resto / lo apostado", ("0:e", "1:e", "0:fe"), 25, 4),
    ],
)
def test_machete_envido(row: str, chain: tuple[str, ...], wanted: int, not_wanted: int) -> None:
    for answer, points in (("q", wanted), ("nq", not_wanted)):
        state = start("7c 6c 4e | 4o 5b 12e", scores=(5, 0))
        do(state, *chain)
        answerer = 1 - int(chain[-1][0])
        events = do(state, f"{answerer}:{answer}")
        scored = next(e for e in events if isinstance(e, Scored))
        expected_side = 0 if answer == "q" else int(chain[-1][0])
        assert (scored.side, scored.points) == (expected_side, points), row


def test_machete_envido_basics() -> None:
    assert envido_value(cards("7c 6c 1e")) == 33  # dos del mismo palo: se suman, más 20
    assert envido_value(cards("12o 10o 3e")) == 20  # las figuras valen 0
    assert envido_value(cards("7e 3o 12c")) == 7  # sin pareja: la carta más alta
    state = start("7c 4c 1e | 6o 5o 12e")
    do(state, "0:e", "1:q")
    assert state.scores == [2, 0]  # empate: gana la mano
    state = start("7c 4c 1e | 6o 5o 12e")
    do(state, "0:p:1e")
    assert "0:e" not in {a.code for a in state.legal_actions()}  # solo antes de tirar


FLOR_A, FLOR_B = "7c 6c 5c", "1o 2o 3o"


@pytest.mark.parametrize(
    ("row", "hands", "script", "side", "points"),
    [
        ("Tres del mismo palo: 3 puntos", f"{FLOR_A} | 4o 5b 12e", ("0:f",), 0, 3),
        ("Los dos tienen: la mejor flor se lleva 6", f"{FLOR_A} | {FLOR_B}", ("0:f", "1:f"), 0, 6),
        ("Con flor me achico: el otro se lleva 4", f"{FLOR_B} | {FLOR_A}", ("0:f", "1:ach"), 0, 4),
        ("Contraflor querida: 6", f"{FLOR_B} | {FLOR_A}", ("0:f", "1:cf", "0:q"), 1, 6),
        ("Contraflor, achica: 4", f"{FLOR_A} | {FLOR_B}", ("0:f", "1:cf", "0:ach"), 1, 4),
        ("Contraflor al resto: falta + 6", f"{FLOR_B} | {FLOR_A}", ("0:f", "1:cfr", "0:q"), 1, 36),
    ],
)
def test_machete_flor(
    row: str, hands: str, script: tuple[str, ...], side: int, points: int
) -> None:
    state = start(hands)
    events = do(state, *script)
    resolved = next(e for e in events if isinstance(e, FlorResolved))
    assert (resolved.winner, resolved.points) == (side, points), row


def test_machete_flor_annuls_the_envido() -> None:
    state = start(f"4o 5b 12e | {FLOR_A}")
    events = do(state, "0:e", "1:f")
    assert not any(isinstance(e, EnvidoResolved) for e in events)
    assert [s.reason for s in events if isinstance(s, Scored)] == [ScoreReason.FLOR]


@pytest.mark.parametrize(
    ("row", "script", "points"),
    [
        ("El rival se lleva lo que vale la mano: 1", ("0:p:6e", "1:p:4o", "0:m"), 1),
        ("o el truco querido", ("0:t", "1:q", "0:p:6e", "1:p:4o", "0:m"), 2),
        ("Regla de la casa: primera ronda, antes de cualquier envido: 2", ("0:m",), 2),
    ],
)
def test_machete_mazo(row: str, script: tuple[str, ...], points: int) -> None:
    state = start("1e 1b 6e | 4o 5c 6b")
    events = do(state, *script)
    end = next(e for e in events if isinstance(e, HandEnded))
    assert (end.winner, end.points) == (1, points), row
