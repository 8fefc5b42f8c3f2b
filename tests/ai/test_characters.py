"""Computer players with a character (bot/ai/characters.py): legal moves only, each character
plays its level its own way (told apart by what the table counts of it), and a table's
computer players keep theirs all match."""

from __future__ import annotations

import random

import pytest

from bot.ai import Level, decide
from bot.ai.characters import CHARACTERS, Character, character_of
from bot.game import MatchConfig, new_match, observe, random_deal
from bot.game.habits import Habits

CONFIG = MatchConfig(players=2, target=30, flor=False)


def habits_of(character: Character | None, level: Level, matches: int) -> tuple[Habits, int]:
    """What the table counted of seat 1 (`level` with `character`) against plain normal over
    `matches` matches, and the hands played; every move checked legal on the way."""
    total = [0] * 11
    hands = 0
    for match in range(matches):
        rng = random.Random(f"{character}:{match}")
        state = new_match(CONFIG)
        while not state.is_over:
            if state.needs_deal:
                state.apply(random_deal(rng, 2))
                continue
            seat = state.legal_actions()[0].seat
            obs = observe(state, seat)
            seed = rng.getrandbits(32)
            if seat == 1:
                action = decide(obs, level, seed, character=character, budget=0.02)
            else:
                action = decide(obs, Level.NORMAL, seed)
            assert action in obs.actions
            state.apply(action)
        hands += state.hand_number
        total = [a + b for a, b in zip(total, state.habits[1], strict=True)]
    return Habits(*total), hands


def rates(h: Habits, hands: int) -> dict[str, float]:
    return {
        "truco": h.truco_chants / hands,
        "envido": h.envido_chants / hands,
        "truco_wanted": h.truco_wanted / max(h.truco_wanted + h.truco_refused, 1),
        "envido_wanted": h.envido_wanted / max(h.envido_wanted + h.envido_refused, 1),
    }


def test_each_character_plays_normal_its_own_way() -> None:
    plain = rates(*habits_of(None, Level.NORMAL, 25))
    got = {c: rates(*habits_of(c, Level.NORMAL, 25)) for c in CHARACTERS}
    print({"plain": plain, **got})
    others = lambda me: [plain, *(got[c] for c in CHARACTERS if c != me)]  # noqa: E731
    # the liar chants more trucos and envidos than the plain player
    liar = got[Character.MENTIROSO]
    assert liar["truco"] > plain["truco"] and liar["envido"] > plain["envido"]
    # the singer sings more envidos than anyone but the liar's level, and wants more of them
    singer = got[Character.CANTOR]
    for other in (Character.PRUDENTE, Character.GUAPO):
        assert singer["envido"] > got[other]["envido"] > 0
    assert singer["envido"] > plain["envido"]
    assert singer["envido_wanted"] > max(o["envido_wanted"] for o in others(Character.CANTOR))
    # the brave one wants more trucos than anyone; the cautious one fewer than anyone
    brave, cautious = got[Character.GUAPO], got[Character.PRUDENTE]
    assert brave["truco_wanted"] > max(o["truco_wanted"] for o in others(Character.GUAPO))
    assert cautious["truco_wanted"] < min(o["truco_wanted"] for o in others(Character.PRUDENTE))


@pytest.mark.parametrize("character", CHARACTERS)
def test_a_character_at_dificil_plays_only_legal_moves(character: Character) -> None:
    _, hands = habits_of(character, Level.DIFICIL, 2)
    assert hands > 0


def test_a_tables_computer_players_keep_their_character() -> None:
    assert all(character_of(7, seat) == character_of(7, seat) for seat in range(6))
    drawn = {character_of(table, seat) for table in range(40) for seat in range(4)}
    assert drawn == set(CHARACTERS)  # every character comes up
