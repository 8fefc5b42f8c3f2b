"""A review after the match: the decisions that cost a person the most expected points, and the
ones worth praising, each seen from that person's seat at the time.

The match is replayed from its action log on the engine; at each decision of the seat the
review takes `observe(state, seat)` (what the person saw then: their cards, the table, the
score, what was chanted; never a hidden card) and reads only that:

1. **What difícil would have done**: `play_dificil` on that observation (a fixed number of
   worlds, no clock: the same match always gets the same review).
2. **What each was worth**: the move made and difícil's are played out over the same worlds
   (deals of the hidden cards consistent with everything the seat saw, weighted by how well
   they explain the rivals' chants: difícil's own `Sampler`), each to the end of the hand by
   difícil's playout players (the person's side then plays as difícil's baseline would). A
   move's value is the points its side scores from that moment to the end of the hand minus
   the points the other side scores: `cost = EV(difícil's) - EV(made)`, from the person's side.

Within a budget: only decisions with a real choice (difícil asked about MAX_ASKED at most), at
most MAX_MOMENTS where it differs and MAX_PRAISE where it agrees weighed (where it differs, the
moves ¿suerte o viveza? found lost most and the chants and answers in turn: that is where points
go; a decision the plain rules make too is never praised, however much it is worth: `obvious`),
WORLDS worlds each; a match to 30 in about two seconds of one
core (`bench/review.py`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.ai.hints import envido_chance
from bot.ai.puzzle import Puzzle, askable, pose
from bot.ai.rules import play_facil, play_normal
from bot.ai.search import Machine, play_dificil
from bot.ai.weigh import (
    PARTNER,
    RIVAL,
    WORLDS,
    YOU,
    Gain,
    Weighed,
    Worth,
    over_baseline,
    relative,
    weigh,
)
from bot.game.actions import (
    ENVIDO_CHANTS,
    FLOR_CHANTS,
    TRUCO_CHANTS,
    Action,
    ActionKind,
    AnyAction,
    Deal,
)
from bot.game.cards import Card, envido_value
from bot.game.observation import Observation, observe
from bot.game.state import MatchConfig, MatchState, Pending, Phase, side_of

K = ActionKind

__all__ = [
    "PARTNER", "RIVAL", "WORLDS", "YOU", "Moment", "Review", "Weighed", "Worth", "decisions",
    "dificils_move", "habit_of", "lessons", "relative", "review", "weigh", "worth",
]  # fmt: skip

CHOICE_WORLDS = 16  # difícil's worlds for its own choice at each decision
MAX_MOMENTS = 10  # decisions where difícil differs weighed at most (chants and answers first)
MAX_PRAISE = 5  # decisions where it agrees weighed at most (the highest stakes first)
LOSS_MOMENTS = 5  # more where it differs, those ¿suerte o viveza? found lost most
MAX_ASKED = 150  # decisions difícil is asked about at most (those with a chant at hand first)
SHOWN_SLIPS = 3  # the costliest decisions told
SHOWN_PRAISE = 2  # the best decisions praised
SLIP = 0.3  # points a decision must cost to be told (and beyond 2 standard errors)
PRAISE = 0.5  # points a decision must gain over the alternative to be praised
GOOD = Card.parse("3e").strength  # "una carta buena": a three or better
LUCK_WORLDS = 16  # worlds each decision is weighed over for ¿suerte o viveza?


@dataclass(frozen=True, slots=True)
class Moment:
    """One decision of the person, as they saw it, and what it was worth."""

    hand: int
    step: int
    dealt: tuple[str, ...]  # their three cards (codes)
    held: tuple[str, ...]  # the ones still in hand
    table: tuple[tuple[int, str], ...]  # cards on the table: (who, card), who relative (below)
    scores: tuple[int, int]  # (their side, the other side), when they decided
    calls: tuple[tuple[int, str], ...]  # what was chanted this hand: (who, kind)
    pending: str | None  # the chant they answered, if any
    envido: int
    made: str  # the action's code
    best: str  # difícil's
    made_worth: Worth
    best_worth: Worth
    error: float  # the standard error of the difference
    habit: str  # what kind of decision (`habit_of`), for /yo
    worlds: int
    # Every choice that was open, weighed over the same worlds (a costly moment told, asked as a
    # question before its answer); None where it makes no question (a flor at hand)
    puzzle: Puzzle | None = None
    # Where an envido choice was open: how often the person's side held the best envido, as
    # the 💡 hint would have told it (`hints.envido_chance`); None elsewhere, and in a review
    # kept before it was weighed
    envido_won: float | None = None

    @property
    def cost(self) -> float:
        """What the move made cost against difícil's (negative: it was worth more)."""
        return self.best_worth.points - self.made_worth.points


@dataclass(frozen=True, slots=True)
class Luck:
    """¿Suerte o viveza? A match's result from the person's side, split (docs/computer-players.md):
    `result`, their side's points minus the other side's at the end; `decisions`, what their
    decisions made: the sum, over every decision of theirs with a choice, of what their move was
    worth over the move the bots' baseline player would have made there (`over_baseline`: the
    player every value of the review assumes after a decision), with its standard error
    `error`; the cards, all the rest: `result − decisions` (the deals, and how the others
    played and the unseen cards fell). `hands`: the decisions' part hand by hand. `spread`:
    how far the one deal really dealt may put the cards' part from what the same deals played
    again by the baseline show (each decision's worth over the baseline's varies from world
    to world: summed in a hand as if they all fell the same way, the hands' independent), the
    bound the check holds it to (`bound`)."""

    mine: int  # their side's points at the end
    theirs: int  # the other side's
    decisions: float
    error: float
    weighed: int  # decisions weighed
    hands: tuple[tuple[int, float], ...] = ()
    spread: float = 0.0  # (a review kept before it was measured: 0)

    @property
    def result(self) -> int:
        return self.mine - self.theirs

    @property
    def cards(self) -> float:
        return self.result - self.decisions

    @property
    def noise(self) -> float:
        """How far the cards' part may be from nothing by how the one deal fell and D's own
        sampling error (one standard deviation of each, together): a cards figure within it
        is told as about even."""
        return math.sqrt(self.spread**2 + self.error**2)

    def bound(self, other_error: float = 0.0, dice: float = 0.0) -> float:
        """How far an independent estimate of the cards, the same deals played again from each
        hand's start (its standard error `other_error`; `dice`, the standard deviation of one
        such play of the whole match: the match really played is one) may be from `cards` by
        chance: two standard deviations of the spread, the dice and both sampling errors
        together (docs/computer-players.md: 95% of matches within it)."""
        return 2 * math.sqrt(self.spread**2 + self.error**2 + other_error**2 + dice**2)

    def to_json(self) -> dict[str, Any]:
        return {
            "mine": self.mine, "theirs": self.theirs, "decisions": round(self.decisions, 3),
            "error": round(self.error, 3), "weighed": self.weighed,
            "hands": [[h, round(p, 3)] for h, p in self.hands], "spread": round(self.spread, 3),
        }  # fmt: skip

    @staticmethod
    def from_json(d: dict[str, Any]) -> Luck:
        hands = tuple((int(h), float(p)) for h, p in d["hands"])
        return Luck(int(d["mine"]), int(d["theirs"]), float(d["decisions"]), float(d["error"]),
                    int(d["weighed"]), hands, float(d.get("spread", 0.0)))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Review:
    table_id: int
    seat: int
    target: int
    slips: tuple[Moment, ...]  # the costliest, in the match's order
    praise: tuple[Moment, ...]  # the best, best first (best_worth: the alternative's)
    lessons: tuple[tuple[str, float], ...]  # every slip found: (habit, cost)
    decisions: int  # decisions with a choice
    weighed: int  # of them, weighed by playouts
    seconds: float = field(default=0.0, compare=False)  # CPU time it took
    luck: Luck | None = None  # ¿suerte o viveza? (None: a match not played to its end)

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table_id, "seat": self.seat, "target": self.target,
            "slips": [_moment_json(m) for m in self.slips],
            "praise": [_moment_json(m) for m in self.praise],
            "lessons": [[h, round(c, 3)] for h, c in self.lessons],
            "decisions": self.decisions, "weighed": self.weighed,
            "seconds": round(self.seconds, 3),
            **({"luck": self.luck.to_json()} if self.luck is not None else {}),
        }  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any]) -> Review:
        return Review(
            int(data["table"]), int(data["seat"]), int(data["target"]),
            tuple(_moment_of(m) for m in data["slips"]),
            tuple(_moment_of(m) for m in data["praise"]),
            tuple((str(h), float(c)) for h, c in data["lessons"]),
            int(data["decisions"]), int(data["weighed"]), float(data.get("seconds", 0.0)),
            Luck.from_json(data["luck"]) if data.get("luck") else None,
        )  # fmt: skip


def _moment_json(m: Moment) -> dict[str, Any]:
    return {
        "hand": m.hand, "step": m.step, "dealt": list(m.dealt), "held": list(m.held),
        "table": [list(x) for x in m.table], "scores": list(m.scores),
        "calls": [list(x) for x in m.calls], "pending": m.pending, "envido": m.envido,
        "made": m.made, "best": m.best,
        "made_worth": [round(m.made_worth.points, 3), round(m.made_worth.won, 3)],
        "best_worth": [round(m.best_worth.points, 3), round(m.best_worth.won, 3)],
        "error": round(m.error, 3), "habit": m.habit, "worlds": m.worlds,
        **({"puzzle": m.puzzle.to_json()} if m.puzzle is not None else {}),
        **({"envido_won": round(m.envido_won, 3)} if m.envido_won is not None else {}),
    }  # fmt: skip


def _moment_of(d: dict[str, Any]) -> Moment:
    return Moment(
        int(d["hand"]), int(d["step"]), tuple(d["dealt"]), tuple(d["held"]),
        tuple((int(w), str(c)) for w, c in d["table"]), (int(d["scores"][0]), int(d["scores"][1])),
        tuple((int(w), str(k)) for w, k in d["calls"]), d["pending"], int(d["envido"]),
        str(d["made"]), str(d["best"]), Worth(*map(float, d["made_worth"])),
        Worth(*map(float, d["best_worth"])), float(d["error"]), str(d["habit"]), int(d["worlds"]),
        Puzzle.from_json(d["puzzle"]) if d.get("puzzle") else None,
        None if d.get("envido_won") is None else float(d["envido_won"]),
    )  # fmt: skip


# -- the decisions of a seat -----------------------------------------------------------------------
def decisions(
    config: MatchConfig, log: Sequence[AnyAction], seat: int
) -> list[tuple[Observation, Action]]:
    """Every decision `seat` made with a real choice (more than one distinct legal move), as the
    seat saw it then, and the move made. A flor's declarations are left out (nothing to weigh)."""
    state = MatchState(config)
    found = []
    for action in log:
        if isinstance(action, Deal) or action.seat != seat or state.phase is not Phase.PLAY:
            state.apply(action)
            continue
        obs = observe(state, seat)
        if (
            len(set(obs.actions)) > 1
            and obs.pending is not Pending.FLOR
            and not (action.kind in FLOR_CHANTS or action.kind is K.CON_FLOR_ME_ACHICO)
        ):
            found.append((obs, action))
        state.apply(action)
    return found


def worth(
    obs: Observation, options: Sequence[Action], seed: str, worlds: int = WORLDS
) -> tuple[list[Worth], float, int]:
    """Each option's value over the same worlds (deals of what `obs`'s seat could not see), the
    standard error of the first two options' difference, and the worlds used."""
    weighed = weigh(obs, options, seed, worlds)
    if sum(weighed.weights) <= 0:
        return [Worth(0.0, 0.0) for _ in options], math.inf, 0
    return weighed.worths(), weighed.error(0, 1), weighed.count


def dificils_move(obs: Observation, seed: str) -> Action:
    return play_dificil(obs, random.Random(seed), (), worlds=CHOICE_WORLDS, budget=math.inf)


def alternative(obs: Observation, made: Action) -> Action | None:
    """The move a praised decision is held against: the other answer to a chant; for a chant,
    the card difícil's baseline would have played instead (barred from chanting); None where
    there is no such move."""
    kinds = {a.kind: a for a in obs.actions}
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        if made.kind is K.NO_QUIERO:
            return kinds.get(K.QUIERO)
        return kinds.get(K.NO_QUIERO)
    if made.kind in TRUCO_CHANTS or made.kind in ENVIDO_CHANTS:
        cards = tuple(a for a in obs.actions if a.kind is K.PLAY)
        if not cards:
            return None
        return play_normal(replace(obs, actions=cards), random.Random(obs.step))
    return None


def obvious(obs: Observation, made: Action) -> bool:
    """Whether `made` is what the plain rules play too (fácil's and normal's, each with a
    fixed seed): a decision any player makes (a falta envido refused at 0-0 with an envido of
    5) is no news, whatever it is worth."""
    rng = random.Random(f"obvious:{obs.step}")
    return play_facil(obs, rng) == made and play_normal(obs, rng) == made


def good_cards(cards: Sequence[Card]) -> int:
    return sum(1 for c in cards if c.strength >= GOOD)


def habit_of(obs: Observation, made: Action, best: Action) -> str:
    """What kind of decision went wrong, in a word /yo can count: "want_truco_weak" (wanting a
    truco with fewer than two good cards), "refuse_truco", "quiet_envido", ..."""
    m, b = made.kind, best.kind
    chant_m = m in TRUCO_CHANTS or m in ENVIDO_CHANTS
    if obs.pending is Pending.TRUCO:
        if m is K.NO_QUIERO:
            return "refuse_truco"
        if b is K.NO_QUIERO:
            return "want_truco_weak" if good_cards(obs.cards) < 2 else "want_truco"
        return "raise_truco" if m in TRUCO_CHANTS else "short_truco"
    if obs.pending is Pending.ENVIDO:
        if m is K.NO_QUIERO:
            return "refuse_envido"
        if b is K.NO_QUIERO:
            return "want_envido"
        return "raise_envido" if m in ENVIDO_CHANTS else "short_envido"
    if m is K.MAZO:
        return "mazo"
    if b is K.MAZO:
        return "no_mazo"
    if chant_m and not (b in TRUCO_CHANTS or b in ENVIDO_CHANTS):
        return "chant_truco" if m in TRUCO_CHANTS else "chant_envido"
    if b in TRUCO_CHANTS and m not in TRUCO_CHANTS:
        return "quiet_truco"
    if b in ENVIDO_CHANTS and m not in ENVIDO_CHANTS:
        return "quiet_envido"
    return "card"


def _priority(obs: Observation, made: Action, best: Action) -> tuple[int, int]:
    """Which decisions to weigh first: where difícil differs on a chant or an answer, then on
    a card; where it agrees, answers and chants by what is at stake (3: never weighed)."""
    chant = obs.pending is not None or made.kind is not K.PLAY or best.kind is not K.PLAY
    if made != best:
        return (0 if chant else 1), 0
    return (2 if chant else 3), -obs.hand_value - (obs.pending is not None)


Judged = tuple[tuple[int, int], int, Observation, Action, Action]


def _by_loss(
    judged: Sequence[Judged], gains: Mapping[int, Gain], first: int, more: int
) -> list[Judged]:
    """The decisions where difícil differs that are weighed, in order: the `first` by
    `_priority` (a chant or an answer first: where difícil sees what the baseline does not, a
    falta envido with 30 that the baseline too keeps quiet, no loss in the split), then up to
    `more` of the rest where ¿suerte o viveza? found the move lost most against the
    baseline's (more than a slip's least: a smaller loss is no moment to tell, and each
    weighed costs a third of a second), so that the list looks where the split's loss went
    too."""
    chosen = list(judged[:first])
    lost = sorted(
        (j for j in judged[first:] if (g := gains.get(j[1])) is not None and g.count
         and g.points < -SLIP),
        key=lambda j: (gains[j[1]].points, j[1]),
    )  # fmt: skip
    return chosen + lost[:more]


def _moment(
    config: MatchConfig, obs: Observation, made: Action, best: Action, seed: str
) -> Moment | None:
    assert obs.seat is not None
    (made_w, best_w), error, count = worth(obs, (made, best), seed)
    if count == 0:
        return None
    side = side_of(obs.seat)
    rel = [relative(config, obs.seat, s) for s in range(config.players)]
    return Moment(
        hand=obs.hand_number,
        step=obs.step,
        dealt=tuple(c.code for c in obs.dealt),
        held=tuple(c.code for c in obs.cards),
        table=tuple((rel[s], c.code) for r in obs.rounds for s, c in r),
        scores=(obs.scores[side], obs.scores[1 - side]),
        calls=tuple((rel[s], k.value) for s, k in obs.calls),
        pending=obs.pending_chant.value if obs.pending_chant is not None else None,
        envido=envido_value(obs.dealt) if obs.dealt else 0,
        made=made.code,
        best=best.code,
        made_worth=made_w,
        best_worth=best_w,
        error=error,  # (of made - best: the same size as of best - made)
        habit=habit_of(obs, made, best),
        worlds=count,
    )


def review(
    config: MatchConfig,
    log: Sequence[AnyAction],
    seat: int,
    table_id: int = 0,
    max_moments: int = MAX_MOMENTS,
    max_praise: int = MAX_PRAISE,
    luck: bool = True,
    machines: Mapping[int, Machine] | None = None,
) -> Review:
    """The review of `seat`'s play in the match of `log` (deterministic: the same match, the
    same review); with `luck`, every decision with a choice is weighed against the baseline's
    move, for ¿suerte o viveza? (`Luck`), the seats of `machines` (our computer players) played
    as they play."""
    started = time.process_time()
    found = decisions(config, log, seat)
    asked = found
    if len(found) > MAX_ASKED:  # (a long match: the card-only decisions wait their turn)
        chants = [(o, m) for o, m in found if any(a.kind is not K.PLAY for a in o.actions)]
        rest = [(o, m) for o, m in found if all(a.kind is K.PLAY for a in o.actions)]
        asked = (chants + rest)[:MAX_ASKED]
    gains = gains_of(seat, table_id, machines, found) if luck else {}
    judged: list[Judged] = []
    for obs, made in asked:
        best = dificils_move(obs, f"review:{table_id}:{seat}:{obs.step}")
        judged.append((_priority(obs, made, best), obs.step, obs, made, best))
    judged.sort(key=lambda x: (x[0], x[1]))
    differ = [j for j in judged if j[0][0] < 2]
    weighed = _by_loss(differ, gains, max_moments, LOSS_MOMENTS if gains else 0)
    judged = weighed + judged[len(differ) :]
    slips: list[Moment] = []
    praise: list[Moment] = []
    seen: dict[int, Observation] = {}
    differs = agrees = 0
    for (prio, _), _, obs, made, best in judged:
        seen[obs.step] = obs
        seed = f"review:{table_id}:{seat}:{obs.step}:worth"
        if prio < 2 and differs < len(weighed):
            moment = _moment(config, obs, made, best, seed)
            differs += 1
            if moment is not None and moment.cost > max(SLIP, 2 * moment.error):
                slips.append(moment)
        elif prio == 2 and agrees < max_praise:
            other = alternative(obs, made)
            if other is None or other == made or obvious(obs, made):
                continue
            moment = _moment(config, obs, made, other, seed)
            agrees += 1
            if moment is not None and -moment.cost > max(PRAISE, 2 * moment.error):
                praise.append(moment)
    slips.sort(key=lambda m: -m.cost)
    praise.sort(key=lambda m: m.cost)
    told = [
        replace(m, puzzle=pose(seen[m.step], f"review:{table_id}:{seat}:{m.step}:worth"))
        if askable(seen[m.step]) else m
        for m in slips[:SHOWN_SLIPS]
    ]  # fmt: skip  (the same seed: the made and best moves' values are the moment's own)
    # (the costliest, told and asked in the order they came: asked costliest first, a late
    # decision of a hand showed the rival's cards before its first decision was asked)
    told = sorted((_with_envido(m, seen[m.step], table_id, seat) for m in told),
                  key=lambda m: m.step)  # fmt: skip
    praised = [_with_envido(m, seen[m.step], table_id, seat) for m in praise[:SHOWN_PRAISE]]
    return Review(
        table_id, seat, config.target,
        tuple(told), tuple(praised),
        tuple((m.habit, m.cost) for m in slips), len(found), differs + agrees,
        time.process_time() - started,
        split(config, log, seat, _by_hand(found, gains)) if luck else None,
    )  # fmt: skip


def _with_envido(m: Moment, obs: Observation, table_id: int, seat: int) -> Moment:
    """A moment told, with how often the envido was theirs where an envido choice was open (a
    hand's choice says how often the hand was; an envido's would say nothing of its own): the
    hint's chance, from the same observation, with no clock (the same match, the same
    review)."""
    open_ = obs.pending is Pending.ENVIDO or any(a.kind in ENVIDO_CHANTS for a in obs.actions)
    if not open_:
        return m
    chance = envido_chance(obs, f"review:{table_id}:{seat}:{obs.step}:envido")
    return replace(m, envido_won=chance)


def gains_of(
    seat: int, table_id: int, machines: Mapping[int, Machine] | None,
    found: Sequence[tuple[Observation, Action]],
) -> dict[int, Gain]:  # fmt: skip
    """What each decision of `found` was worth over the baseline's move (¿suerte o viveza?),
    by its step."""
    return {
        obs.step: over_baseline(
            obs, made, f"review:{table_id}:{seat}:{obs.step}:luck", LUCK_WORLDS, machines
        )
        for obs, made in found
    }


def _by_hand(
    found: Sequence[tuple[Observation, Action]], gains: Mapping[int, Gain]
) -> list[tuple[int, Gain]]:
    """The gains weighed (some world found), each with its decision's hand, in order."""
    return [(obs.hand_number, gains[obs.step]) for obs, _ in found if gains[obs.step].count]


def luck_of(
    config: MatchConfig, log: Sequence[AnyAction], seat: int, table_id: int = 0,
    machines: Mapping[int, Machine] | None = None,
    found: Sequence[tuple[Observation, Action]] | None = None,
) -> Luck | None:  # fmt: skip
    """¿Suerte o viveza? of `seat` in the match of `log` (the review's `luck`): every decision
    with a choice (`found`, the match's `decisions`) against the bots' baseline move there."""
    found = decisions(config, log, seat) if found is None else found
    return split(config, log, seat, _by_hand(found, gains_of(seat, table_id, machines, found)))


def split(
    config: MatchConfig, log: Sequence[AnyAction], seat: int,
    gains: Sequence[tuple[int, Gain]],
) -> Luck | None:  # fmt: skip
    """¿Suerte o viveza? from the decisions weighed (None: a match not played to its end, a
    concession: its result is no hand's)."""
    state = MatchState(config)
    for action in log:
        state.apply(action)
    if not state.is_over:
        return None
    side = side_of(seat)
    by_hand: dict[int, float] = {}
    spread: dict[int, float] = {}  # (a hand's decisions fall with its one deal: summed)
    for hand, gain in gains:
        by_hand[hand] = by_hand.get(hand, 0.0) + gain.points
        spread[hand] = spread.get(hand, 0.0) + gain.spread
    return Luck(
        state.scores[side], state.scores[1 - side], sum(g.points for _, g in gains),
        math.sqrt(sum(g.error**2 for _, g in gains)), len(gains), tuple(sorted(by_hand.items())),
        math.sqrt(sum(s * s for s in spread.values())),
    )


def lessons(reviews: Sequence[Review], least: int = 2) -> tuple[str, float, int] | None:
    """What a person does most often that costs them points, over their reviews: the habit with
    the most slips (at least `least`), its mean cost per time and how many times."""
    counted: dict[str, list[float]] = {}
    for r in reviews:
        for habit, cost in r.lessons:
            counted.setdefault(habit, []).append(cost)
    if not counted:
        return None
    habit, costs = max(counted.items(), key=lambda kv: (len(kv[1]), sum(kv[1])))
    if len(costs) < least:
        return None
    return habit, sum(costs) / len(costs), len(costs)
