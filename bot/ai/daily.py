"""La mano del día: one decision of a finished match, as its seat saw it, put to a group (a
`bot.ai.puzzle.Puzzle`: what the seat knew and the choices open, each weighed).

What the seat really did, and what the hand then gave, is kept apart (`Outcome`): it is told
at the close, never in the question.

The bank (`positions.json`, made by `bench/daily_bank.py`): positions of computer players'
matches with a clear best choice, for a group that has no reviewed match of its own yet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from bot.game import AnyAction, Deal, MatchConfig, MatchState, Observation, observe
from bot.game.events import HandEnded
from bot.game.state import Phase, side_of

__all__ = ["Banked", "Outcome", "bank", "position"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the seat really did, and the points its side then made to the end of the hand
    (its own minus the other side's): told at the close."""

    made: str
    points: int

    def to_json(self) -> dict[str, Any]:
        return {"made": self.made, "points": self.points}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Outcome:
        return Outcome(str(d["made"]), int(d["points"]))


def position(
    config: MatchConfig, log: Sequence[AnyAction], seat: int, step: int
) -> tuple[Observation, Outcome] | None:
    """The decision of `seat` at `step` of the match of `log`: what it saw then, and what it
    did and what its side then made to the end of that hand (None: no such decision)."""
    state = MatchState(config)
    actions = list(log)
    for index, action in enumerate(actions):
        if state.step == step and not isinstance(action, Deal) and action.seat == seat:
            obs = observe(state, seat)
            if action not in obs.actions:
                return None
            return obs, Outcome(action.code, _then(state, actions[index:], seat))
        if state.step > step:
            return None
        state.apply(action)
    return None


def _then(state: MatchState, rest: Sequence[AnyAction], seat: int) -> int:
    """The points `seat`'s side makes minus the other side's from `state` to the end of its
    hand, as the match really went (`state` is played on)."""
    side = side_of(seat)
    before = (state.scores[0], state.scores[1])
    for action in rest:
        if isinstance(action, Deal):
            break
        events = state.apply(action)
        if any(isinstance(e, HandEnded) for e in events) or state.phase is not Phase.PLAY:
            break
    mine = state.scores[side] - before[side]
    return mine - (state.scores[1 - side] - before[1 - side])


@dataclass(frozen=True, slots=True)
class Banked:
    """A position of the bank: a computer players' match (its rules and log), the seat and the
    step of the decision."""

    config: MatchConfig
    log: tuple[str, ...]
    seat: int
    step: int


@cache
def bank() -> tuple[Banked, ...]:
    """The bank of good positions (`bench/daily_bank.py` made it)."""
    text = resources.files("bot.ai").joinpath("positions.json").read_text("utf-8")
    return tuple(
        Banked(MatchConfig.of(p["config"]), tuple(p["log"]), int(p["seat"]), int(p["step"]))
        for p in json.loads(text)
    )
