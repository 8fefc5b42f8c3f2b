"""A replay's frames as the server draws them, for matches played by the engine itself (random
legal moves, every deal from a sealed seed): every chant and answer of the log said at its own
frame by its own seat, every point's reason on the frame that scores it, and each hand's cards,
all of them, at its end; none of it for a match still in play."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import pytest

from bot.game import Action, ActionKind, AnyAction, Deal, MatchConfig, MatchState
from bot.game.fair import fair_deal, seed_for_tests
from bot.model.table import Table, TableStatus
from bot.web.replay import replay_of

NAMES = ["Ana", "Mirta", "Beto", "Pirucha", "Carla", "Dora"]


def played_match(
    players: int, seed: int, stop_at: int | None = None
) -> tuple[Table, list[AnyAction]]:
    """A match to 15 played by random legal moves (a mazo seldom), whole or its first
    `stop_at` actions."""
    config = MatchConfig(players=players, target=15)
    state = MatchState(config)
    rng = random.Random(seed)
    sealed = seed_for_tests(seed, 1)
    log: list[AnyAction] = []
    while not state.is_over and (stop_at is None or len(log) < stop_at):
        action: AnyAction
        if state.needs_deal:
            action = fair_deal(sealed, state.hand_number + 1, players)
        else:
            legal = state.legal_actions()
            calm = [a for a in legal if a.kind is not ActionKind.MAZO] or legal
            action = rng.choice(legal if rng.random() < 0.05 else calm)
        state.apply(action)
        log.append(action)
    status = TableStatus.FINISHED if state.is_over else TableStatus.PLAYING
    seats: list[int | None] = [100 + s for s in range(players)]
    table = Table(1, 1, 0, status, 100, config, seats, "es", 0.0, 0.0, state, seed=sealed)
    return table, log


def names_of(players: int) -> dict[int, str]:
    return {100 + s: NAMES[s] for s in range(players)}


def cards_of(held: dict[str, Any]) -> list[str]:
    return [c["card"] for c in held["cards"]]


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 7), (4, 3), (6, 5), (6, 10)])
def test_every_chant_every_card_and_every_reason_at_its_frame(players: int, seed: int) -> None:
    table, log = played_match(players, seed)
    data = replay_of(table, names_of(players), log)
    frames: Sequence[dict[str, Any]] = data["frames"]
    assert len(frames) == len(log)
    deals = [a for a in log if isinstance(a, Deal)]
    assert data["deals"] == ["|".join(" ".join(c.code for c in h) for h in d.hands) for d in deals]
    chants = 0
    for index, (action, frame) in enumerate(zip(log, frames, strict=True)):
        # every chant, answer and mazo: a word of its seat on its own frame
        if isinstance(action, Action) and action.kind is not ActionKind.PLAY:
            chants += 1
            assert action.seat in [s["seat"] for s in frame["spoken"]], (index, action)
            if action.kind is not ActionKind.MAZO and frame["bets"]:
                assert any(line.split(":")[0] in ("Truco", "Envido", "Flor") for line in
                           frame["bets"]), frame["bets"]  # fmt: skip
        if isinstance(action, Deal):  # (a deal says nothing)
            assert frame["spoken"] == []
        # every point: its reason on the frame whose score it changes, adding up to the change
        before = frames[index - 1]["scores"] if index else [0, 0]
        gained = sum(frame["scores"]) - sum(before)
        told = sum(int(p) for line in frame["scored"] for p in re.findall(r" \+(\d+) \(", line))
        assert told == gained, (index, frame["scored"], before, frame["scores"])
        assert all(re.search(r"\+\d+ \(.+\)", line) for line in frame["scored"])
        # a hand over: its end, and every card each of its players held
        if frame["hand_over"]:
            ended = frame["ended"][-1]
            assert ended["lines"]
            deal = [d for d in deals if log.index(d) <= index][-1]
            for seat, held in enumerate(ended["held"]):
                if ended["duel"] is None:
                    assert held is not None and cards_of(held) == [c.code for c in deal.hands[seat]]
                    assert NAMES[seat] in held["label"]
                elif held is not None:
                    assert set(cards_of(held)) == {c.code for c in deal.hands[seat]}
                rounds = ended["rounds"]
                played = [p["card"] for r in rounds for p in r["plays"] if p["seat"] == seat]
                assert held is None or set(played) <= set(cards_of(held))
    assert chants > 0
    hands = {f["hand_number"] for f in frames}
    ends = {(f["ended"][-1]["number"], f["ended"][-1]["duel"]) for f in frames if f["hand_over"]}
    assert {n for n, _ in ends} == hands  # every hand's end, each on a frame of its own
    assert frames[-1]["hand_over"] and frames[-1]["over"]


def test_a_match_in_play_shows_no_card_held() -> None:
    table, log = played_match(4, 3, stop_at=30)
    assert table.status is TableStatus.PLAYING
    data = replay_of(table, names_of(4), log)
    ends = [f["ended"][-1] for f in data["frames"] if f["ended"]]
    assert ends and all(e["held"] == [] for e in ends)
