"""The score is explained, to the point, on every version of the board and of every player's
hand message, over random matches of both modes, con and sin flor, in both languages; a
message that skips versions (the group's board is paced, a busy bot coalesces) still explains
every point it shows appearing. See tests/explained.py for how a version is read."""

from __future__ import annotations

import random

import pytest

from bot.game import MatchConfig, new_match, random_deal
from bot.i18n import translator
from bot.model.table import Table, TableStatus
from bot.service.play import remember_calls
from bot.views.common import both
from bot.views.scene import hands_to_show, last_end, scene_of
from bot.views.table import board_text, hand_text
from tests.explained import Side, check

NAMES = {1: "Ana", 2: "Beto", 3: "Carla", 4: "Dani", 5: "Eva", 6: "Fede"}


@pytest.mark.parametrize("language", ["es", "en"])
@pytest.mark.parametrize("players", [2, 4, 6])  # (6: pica-pica hands among them)
@pytest.mark.parametrize("flor", [True, False])
def test_the_score_moves_only_with_a_line_that_says_why(
    language: str, players: int, flor: bool
) -> None:
    t = translator(language)
    sides: list[Side] = [
        both(t, [NAMES[s + 1] for s in range(side, players, 2)]) for side in (0, 1)
    ]
    if players == 6:  # a trio's points are told shortly: "los de Ana +2"
        sides = [(name, t("side.of", name=NAMES[side + 1])) for side, name in enumerate(sides)]
    read = 0
    for seed in range(12):
        rng = random.Random(seed)
        config = MatchConfig(players=players, flor=flor, target=15)
        seats: list[int | None] = list(range(1, players + 1))
        table = Table(seed, -1, 0, TableStatus.PLAYING, 1, config, seats, language, 0.0, 0.0)
        state = table.state = new_match(config)
        # each reader's stream: the board (None) and every seat's hand message
        streams: dict[int | None, list[str]] = {None: [], **{s: [] for s in range(players)}}
        seen: dict[int | None, int | None] = dict.fromkeys(streams, 0)
        # how often a reader misses a version (a paced board, a busy bot: never whole hands
        # on end, see the gap test below)
        skip = rng.choice([0.0, 0.3, 0.5])
        while True:
            if state.needs_deal:
                remember_calls(table, state.apply(random_deal(rng, players)))
            elif not state.is_over:
                remember_calls(table, state.apply(rng.choice(state.legal_actions())))
            if state.needs_deal:
                continue  # the next deal is in the same commit: nobody sees this moment
            if state.is_over:
                table.status = TableStatus.FINISHED
            for reader, texts in streams.items():
                if not state.is_over and rng.random() < skip:
                    continue
                gap, ended = hands_to_show(state, seen[reader])
                seen[reader] = last_end(state)
                names = {u: NAMES[u] for u in range(1, players + 1)}
                scene = scene_of(t, table, names, reader, ended, gap)
                texts.append(board_text(t, scene) if reader is None else hand_text(t, scene))
            if state.is_over:
                break
        for reader, texts in streams.items():
            read += check(texts, sides, f"seed {seed}, reader {reader}")
    assert read > 100


def test_hands_too_long_ago_to_tell_one_by_one_are_told_together() -> None:
    """A reader who last saw hand 1 in play, five hands ago: the hands no longer kept whole are
    one line with their points together, the kept ones each their record, and the score adds
    up."""
    t = translator("es")
    rng = random.Random(4)
    config = MatchConfig(players=2, flor=False, target=30)
    seats: list[int | None] = [1, 2]
    table = Table(1, -1, 0, TableStatus.PLAYING, 1, config, seats, "es", 0.0, 0.0)
    state = table.state = new_match(config)
    state.apply(random_deal(rng, 2))
    while state.hand_number < 7:
        if state.needs_deal:
            state.apply(random_deal(rng, 2))
        else:
            mazo = [a for a in state.legal_actions() if a.kind.value == "mazo"]
            state.apply(mazo[0] if mazo else rng.choice(state.legal_actions()))
    gap, ended = hands_to_show(state, 0)
    assert gap is not None and (gap.first, gap.last) == (1, 6 - len(ended))
    assert [e.number for e in ended] == list(range(gap.last + 1, 7))
    assert ended[0].start_scores == tuple(gap.points)  # hand 1 started at 0-0
    text = board_text(t, scene_of(t, table, NAMES, None, ended, gap))
    assert f"🏁 <b>Manos 1 a {gap.last}</b>:" in text
    check([text], ["Ana", "Beto"])
