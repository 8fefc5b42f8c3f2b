"""A decision as a question: what its seat knew when it decided (its cards, the cards on the
table, the score, what was chanted and said aloud, who was mano) and the choices that were open,
each weighed over the same worlds consistent with that observation (`bot.ai.weigh`). Built from
`observe(state, seat)` and nothing else: dealing anew the cards the seat never saw changes not
a digit of it. La mano del día puts one to a group (`bot.ai.daily`); the review asks a person
their own costliest ones before telling the answer (`bot.ai.review`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.ai.weigh import PARTNER, RIVAL, WORLDS, YOU, Worth, relative, weigh
from bot.game import Action, MatchState, Observation
from bot.game.actions import ENVIDO_CHANTS, FLOR_CHANTS, ActionKind
from bot.game.cards import envido_value
from bot.game.state import Pending, Phase, side_of

__all__ = ["PARTNER", "RIVAL", "YOU", "Choice", "Puzzle", "askable", "choices_of", "pose"]

EVEN = 0.1  # points: a choice this close to the best one is as right as the best
MARGIN = 0.5  # points a good question's best choice beats every other one a player weighs by
SURE = 3.0  # ... and by this many standard errors
MAX_CHOICES = 8  # the most a decision offers (three cards, four chants, the mazo)


@dataclass(frozen=True, slots=True)
class Choice:
    code: str  # the action's code (its seat is the decider's)
    worth: Worth  # its mean points to the end of the hand (the seat's side's minus the other's)
    error: float  # the standard error of the best choice's value minus this one's


@dataclass(frozen=True, slots=True)
class Puzzle:
    """One decision, as its seat saw it, and the choices that were open. Who is who is told
    from the seat's side: YOU, PARTNER, RIVAL (`bot.ai.review.relative`)."""

    players: int
    target: int
    flor: bool
    hand: int
    scores: tuple[int, int]  # (the seat's side, the other side), when it decided
    mano: int  # who was mano (relative)
    dealt: tuple[str, ...]  # the seat's three cards (codes)
    held: tuple[str, ...]  # the ones still in hand
    rounds: tuple[tuple[tuple[int, str], ...], ...]  # per round: (who, card) in order
    calls: tuple[tuple[int, str], ...]  # what was chanted this hand: (who, kind)
    announced: tuple[tuple[int, int], ...]  # envido (or flor) said aloud: (who, value)
    pending: str | None  # the chant waiting for the seat's side's answer
    envido: int  # the seat's envido
    choices: tuple[Choice, ...]
    worlds: int
    envido_won: float | None = None  # where an envido is at stake: the share of the worlds
    # in which the seat's side holds the best envido

    @property
    def best(self) -> int:
        """The index of the best choice (the first of equals)."""
        values = [c.worth.points for c in self.choices]
        return values.index(max(values))

    @property
    def right(self) -> frozenset[int]:
        """The choices as good as the best (within EVEN points of it)."""
        top = self.choices[self.best].worth.points
        return frozenset(i for i, c in enumerate(self.choices) if top - c.worth.points <= EVEN)

    @property
    def margin(self) -> float:
        """How much better the best is than the best of the rest (0: more than one is right)."""
        rest = [c.worth.points for i, c in enumerate(self.choices) if i not in self.right]
        return self.choices[self.best].worth.points - max(rest) if rest else 0.0

    @property
    def good(self) -> bool:
        """Whether it makes a good question: among the moves a player weighs (the mazo aside:
        leaving a hand one can play is rarely the question), some are wrong, and the best
        beats each of them by MARGIN points and by SURE standard errors."""
        top = self.choices[self.best].worth.points
        wrong = [
            c for i, c in enumerate(self.choices)
            if i not in self.right and Action.parse(c.code).kind is not ActionKind.MAZO
        ]  # fmt: skip
        return bool(wrong) and all(
            top - c.worth.points >= max(MARGIN, SURE * c.error) for c in wrong
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "players": self.players, "target": self.target, "flor": self.flor,
            "hand": self.hand, "scores": list(self.scores), "mano": self.mano,
            "dealt": list(self.dealt), "held": list(self.held),
            "rounds": [[list(x) for x in r] for r in self.rounds],
            "calls": [list(x) for x in self.calls],
            "announced": [list(x) for x in self.announced],
            "pending": self.pending, "envido": self.envido,
            "choices": [
                [c.code, round(c.worth.points, 3), round(c.worth.won, 3), round(c.error, 3)]
                for c in self.choices
            ],
            "worlds": self.worlds,
            "envido_won": None if self.envido_won is None else round(self.envido_won, 3),
        }  # fmt: skip

    @staticmethod
    def from_json(d: dict[str, Any]) -> Puzzle:
        return Puzzle(
            int(d["players"]), int(d["target"]), bool(d["flor"]), int(d["hand"]),
            (int(d["scores"][0]), int(d["scores"][1])), int(d["mano"]),
            tuple(str(c) for c in d["dealt"]), tuple(str(c) for c in d["held"]),
            tuple(tuple((int(w), str(c)) for w, c in r) for r in d["rounds"]),
            tuple((int(w), str(k)) for w, k in d["calls"]),
            tuple((int(w), int(v)) for w, v in d["announced"]),
            None if d["pending"] is None else str(d["pending"]), int(d["envido"]),
            tuple(Choice(str(c), Worth(float(p), float(w)), float(e))
                  for c, p, w, e in d["choices"]),
            int(d["worlds"]),
            None if d.get("envido_won") is None else float(d["envido_won"]),
        )  # fmt: skip


def choices_of(obs: Observation) -> list[Action]:
    """The distinct moves open to the seat, in the engine's order (the same for every deal of
    the hidden cards); a flor's declarations are no question (nothing to weigh)."""
    found: list[Action] = []
    for action in obs.actions:
        if action not in found:
            found.append(action)
    return found


def askable(obs: Observation) -> bool:
    """Whether the decision makes a question: a real choice, and no flor in it."""
    options = choices_of(obs)
    flor = any(a.kind in FLOR_CHANTS or a.kind is ActionKind.CON_FLOR_ME_ACHICO for a in options)
    return obs.phase is Phase.PLAY and 1 < len(options) <= MAX_CHOICES and not flor


def pose(obs: Observation, seed: str, worlds: int = WORLDS) -> Puzzle:
    """The puzzle of the decision `obs` (what its seat saw), every choice weighed over the
    same `worlds` (seeded by `seed`: the same position, the same numbers)."""
    assert obs.seat is not None
    config = obs.config
    seat = obs.seat
    options = choices_of(obs)
    at_stake = obs.pending is Pending.ENVIDO or any(a.kind in ENVIDO_CHANTS for a in options)
    side = side_of(seat)

    def envido_of(world: MatchState) -> float:
        h = world.hand
        assert h is not None
        order = h.order_from_mano()
        values = [envido_value(cards) for cards in h.dealt]
        top = max(order, key=lambda s: (values[s], -order.index(s)))  # (ties: nearer the mano)
        return 1.0 if side_of(top) == side else 0.0

    weighed = weigh(obs, options, seed, worlds, envido_of if at_stake else None)
    worths = weighed.worths()
    top = max(range(len(options)), key=lambda i: (worths[i].points, -i))
    rel = [relative(config, seat, s) for s in range(config.players)]
    return Puzzle(
        players=config.players,
        target=config.target,
        flor=config.flor,
        hand=obs.hand_number,
        scores=(obs.scores[side], obs.scores[1 - side]),
        mano=rel[obs.mano],
        dealt=tuple(c.code for c in obs.dealt),
        held=tuple(c.code for c in obs.cards),
        rounds=tuple(tuple((rel[s], c.code) for s, c in r) for r in obs.rounds),
        calls=tuple((rel[s], k.value) for s, k in obs.calls),
        announced=tuple((rel[s], v) for s, v in obs.announced),
        pending=obs.pending_chant.value if obs.pending_chant is not None else None,
        envido=envido_value(obs.dealt) if obs.dealt else 0,
        choices=tuple(
            Choice(a.code, worths[i], weighed.error(top, i)) for i, a in enumerate(options)
        ),
        worlds=weighed.count,
        envido_won=weighed.share() if at_stake else None,
    )
