"""What a seat can reckon from what it sees: unseen cards, card and hand strength, envido odds,
and the value of a score (the chance to win the match from it).

Everything here reads an `Observation` (or plain numbers); nothing looks at hidden cards.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Collection, Sequence
from functools import cache, lru_cache

from bot.ai.signs import GOOD_ENVIDO
from bot.game.actions import ActionKind
from bot.game.cards import DECK, Card, envido_value, flor_value, has_flor
from bot.game.observation import Observation
from bot.game.seats import seats
from bot.game.state import hand_winner, side_of

K = ActionKind


def seen_cards(obs: Observation) -> set[Card]:
    seen = set(obs.dealt)
    for played in obs.rounds:
        seen.update(c for _, c in played)
    return seen


def unseen(obs: Observation) -> list[Card]:
    """The cards this seat has not seen: every hidden card of the others is one of them."""
    seen = seen_cards(obs)
    return [c for c in DECK if c not in seen]


class Odds:
    """How often a card of each strength beats one card drawn from a pool (ties count half),
    from the pool's strength counts: O(1) per question."""

    __slots__ = ("_beats",)

    def __init__(self, pool: Sequence[Card]) -> None:
        counts = [0] * 16
        for c in pool:
            counts[c.strength] += 1
        total = len(pool)
        below = 0
        beats = [1.0] * 16
        for strength in range(16):
            if total:
                beats[strength] = (below + counts[strength] / 2) / total
            below += counts[strength]
        self._beats = beats

    def beat(self, strength: int, rivals: int = 1) -> float:
        """The chance to beat `rivals` cards drawn from the pool (taken as independent)."""
        p = self._beats[strength]
        return p if rivals == 1 else 1.0 if rivals == 0 else float(p**rivals)


def current_round(obs: Observation) -> tuple[tuple[int, Card], ...]:
    """The cards on the table in the round being played (empty before its first card)."""
    if len(obs.rounds) > len(obs.results):
        return obs.rounds[-1]
    return ()


def hand_chance(obs: Observation, partner_bonus: float = 0.0, odds: Odds | None = None) -> float:
    """Roughly, the chance that this seat's side wins the hand's rounds: each remaining card
    is taken to win its round on its own odds, strongest cards first, and the rounds combine
    by R8. In 2v2 a card must beat both rivals' cards, and the partner may win the round too."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    table = seats(obs.config.players)
    rivals = len(table.rivals(obs.seat))
    odds = odds or Odds(unseen(obs))
    mine = sorted(obs.cards, key=lambda c: -c.strength)
    on_table = current_round(obs)
    probs: list[float] = []
    # partners with a card still to play, each of whose unknown cards wins a round this often
    playing = [p for p in table.partners(obs.seat) if obs.cards_left[p]]
    partner_round = 1 / 3 + partner_bonus
    here = [s for s, _ in on_table]
    theirs = max((c.strength for s, c in on_table if side_of(s) != side), default=0)
    rivals_to_come = sum(
        1 for s in range(obs.config.players) if side_of(s) != side and s not in here
    ) if on_table else 0  # fmt: skip
    if on_table and obs.seat in here:  # its card of this round is down: it is not in `mine`
        ours = max(c.strength for s, c in on_table if side_of(s) == side)
        probs.append(_round_chance(ours, theirs, rivals_to_come, odds))
        on_table = ()
    for index, card in enumerate(mine):
        if index == 0 and on_table:
            ours = max([card.strength, *(c.strength for s, c in on_table if side_of(s) == side)])
            probs.append(_round_chance(ours, theirs, rivals_to_come, odds))
            continue
        if rivals > 1:
            p_me = odds.beat(card.strength, rivals)
            p = 1 - (1 - p_me) * (1 - partner_round) ** len(playing) if playing else p_me
        else:
            p = odds.beat(card.strength)
        probs.append(p)
    return _combine(tuple(obs.results), tuple(probs), side, side_of(obs.mano))


def _round_chance(ours: int, theirs: int, rivals_to_come: int, odds: Odds) -> float:
    """The chance that the round being played goes this side's way: its best card there
    against theirs, and the rivals who have yet to play."""
    if ours > theirs:
        return odds.beat(ours, rivals_to_come)
    return 0.5 if ours == theirs else 0.0


@cache
def _outcome(results: tuple[int | None, ...], mano_side: int) -> int | None:
    return hand_winner(results, mano_side)


def _combine(
    results: tuple[int | None, ...], probs: tuple[float, ...], side: int, mano_side: int
) -> float:
    """The chance of winning the hand when the remaining rounds go as `probs` says."""
    decided = _outcome(results, mano_side)
    if decided is not None:
        return 1.0 if decided == side else 0.0
    if not probs:
        return 0.5
    p = probs[0]
    rest = probs[1:]
    won = _combine((*results, side), rest, side, mano_side)
    lost = _combine((*results, 1 - side), rest, side, mano_side)
    return p * won + (1 - p) * lost


# -- envido and flor odds --------------------------------------------------------------------
@cache
def _envido_table() -> tuple[list[int], int]:
    """Envido values of every three-card hand of the deck, sorted (for rank look-ups)."""
    values = sorted(envido_value(hand) for hand in itertools.combinations(DECK, 3))
    return values, len(values)


def envido_beats(value: int, floor: int = 0) -> float:
    """The chance that `value` beats one random hand's envido (ties count half); `floor`
    keeps only rival hands of at least that envido (a rival who chanted has something)."""
    values, _ = _envido_table()
    start = bisect_left(values, floor)
    kept = len(values) - start
    if kept <= 0:
        return 0.5
    if value < floor:
        return 0.0  # every hand kept is higher: none ties it either
    lower = bisect_left(values, value) - start
    equal = bisect_left(values, value + 1) - bisect_left(values, value)
    return (lower + equal / 2) / kept


@cache
def _flor_values() -> list[int]:
    return sorted(flor_value(h) for h in itertools.combinations(DECK, 3) if has_flor(h))


def flor_beats(value: int) -> float:
    values = _flor_values()
    lower = bisect_left(values, value)
    equal = bisect_left(values, value + 1) - lower
    return (lower + equal / 2) / len(values)


def envido_below(value: int, floor: int) -> float:
    """The chance that `value` beats one random hand's envido of less than `floor` (a bluff;
    ties count half)."""
    values, _ = _envido_table()
    kept = bisect_left(values, floor)
    if kept <= 0:
        return 0.5
    lower = bisect_left(values, min(value, floor))
    equal = bisect_left(values, value + 1) - bisect_left(values, value) if value < floor else 0
    return (lower + equal / 2) / kept


def below_floor(floor: int) -> float:
    """How often a dealt envido is below `floor`."""
    values, total = _envido_table()
    return bisect_left(values, floor) / total


ENVIDO_FLOOR: dict[ActionKind, int] = {
    K.ENVIDO: 25,
    K.REAL_ENVIDO: 27,
    K.FALTA_ENVIDO: 28,
}
ANY_HAND = 0.2  # of a stranger's envido chants, those taken to come with any hand


def envido_chance(
    obs: Observation,
    mine: int,
    rival_floor: int,
    partner_good: bool | None,
    bluffs: float | None = None,
) -> float:
    """The chance that this side's best envido beats the rivals' after a chant of theirs
    whose floor is `rival_floor` (0: no chant): an honest chant holds that floor at least,
    a bluff less. `bluffs`: how often this rival's chant of that kind is a bluff
    (`bot.ai.tells`); by default a stranger's (ANY_HAND of chants with any hand).
    `partner_good`: what the partner's señas said of its envido (`partner_envido`)."""
    assert obs.seat is not None
    rivals = 1 if obs.duel_seats is not None else obs.config.players // 2  # (a duel is 1v1)
    if rivals == 2:
        p = _pair_chance(mine, rival_floor, partner_good, bluffs)
        return min(1.0, p + 0.02) if _nearer_mano(obs, obs.seat) else p
    p_one = envido_beats(mine)
    if rival_floor and bluffs is None:
        p_one = (1 - ANY_HAND) * envido_beats(mine, rival_floor) + ANY_HAND * p_one
    elif rival_floor and bluffs is not None:
        honest = envido_beats(mine, rival_floor)
        p_one = (1 - bluffs) * honest + bluffs * envido_below(mine, rival_floor)
    if _nearer_mano(obs, obs.seat):
        p_one = min(1.0, p_one + 0.02)  # ties go to the side nearer the mano
    if rivals == 1:
        return p_one
    p_me = p_one**rivals
    partner = 0.45 if partner_good else 0.15  # a partner's envido beats both rivals this often
    return 1 - (1 - p_me) * (1 - partner) ** (rivals - 1)


def partner_envido(signs: Collection[str]) -> bool | None:
    """What a partner's señas said of its envido: a good one (GOOD_ENVIDO or more), none (it
    showed señas, and a good envido is always among a computer partner's), or nothing."""
    return "ev" in signs if signs else None


@cache
def _envido_shares() -> tuple[float, ...]:
    """How often a dealt hand's envido is each value (0 to 33)."""
    values, total = _envido_table()
    counts = [0] * (values[-1] + 1)
    for v in values:
        counts[v] += 1
    return tuple(c / total for c in counts)


def _kept(shares: Sequence[float], low: int, high: int) -> list[float]:
    """`shares` held to the envidos in [low, high), as a distribution."""
    kept = [s if low <= v < high else 0.0 for v, s in enumerate(shares)]
    total = sum(kept)
    return [s / total for s in kept] if total else list(shares)


def _mix(a: Sequence[float], b: Sequence[float], w: float) -> list[float]:
    return [(1 - w) * x + w * y for x, y in zip(a, b, strict=True)]


@lru_cache(maxsize=4096)
def _pair_chance(mine: int, floor: int, partner: bool | None, bluffs: float | None) -> float:
    """2v2: the chance that the better of `mine` and the partner's envido beats the better of
    the rivals' (ties half), the chanter's envido held to `floor` as `envido_chance` holds a
    rival's and its partner's free. The partner's envido is held as its señas said: a partner
    who showed a good envido beats an honest plain envido some 70% of the time, one who showed
    none hardly ever beats an honest real envido (over deals), where the side's chance reckoned
    as two rivals each beaten by `mine` and a partner's fixed 15% or 45% said 45% and 15%."""
    shares = _envido_shares()
    top = len(shares)
    chanter = list(shares)
    if floor and bluffs is None:
        chanter = _mix(_kept(shares, floor, top), shares, ANY_HAND)
    elif floor and bluffs is not None:
        chanter = _mix(_kept(shares, floor, top), _kept(shares, 0, floor), bluffs)
    mate = list(shares)
    if partner is not None:
        mate = _kept(shares, GOOD_ENVIDO, top) if partner else _kept(shares, 0, GOOD_ENVIDO)
    won = 0.0
    ours_below = theirs_below = 0.0  # the chance that each side's best is below v
    mate_below = chanter_below = free_below = 0.0
    for v in range(top):
        mate_upto = mate_below + mate[v]
        chanter_upto, free_upto = chanter_below + chanter[v], free_below + shares[v]
        ours_upto = mate_upto if mine <= v else 0.0
        theirs_upto = chanter_upto * free_upto
        ours_at, theirs_at = ours_upto - ours_below, theirs_upto - theirs_below
        won += theirs_at * (1 - ours_upto) + theirs_at * ours_at / 2
        ours_below, theirs_below = ours_upto, theirs_upto
        mate_below, chanter_below, free_below = mate_upto, chanter_upto, free_upto
    return won


def _nearer_mano(obs: Observation, seat: int) -> bool:
    return (seat - obs.mano) % obs.config.players < obs.config.players / 2


# -- the value of a score ----------------------------------------------------------------------
# How many points a hand gives each side, measured from normal-level self-play (1v1 to 30, con
# flor; `python bench/ai.py --hand-points 20000` prints it): (points to one side, points to the
# other, frequency). Used to turn a score into a chance of winning the match.
HAND_POINTS: tuple[tuple[int, int, float], ...] = (
    (2, 0, 0.245), (1, 0, 0.244), (1, 1, 0.143), (3, 0, 0.097), (2, 1, 0.091), (4, 0, 0.069),
    (3, 1, 0.032), (5, 0, 0.023), (3, 2, 0.020), (2, 2, 0.009), (4, 1, 0.009), (6, 0, 0.003),
    (3, 3, 0.003), (4, 3, 0.002), (7, 0, 0.002),
)  # fmt: skip


EDGE_STEP = 0.025  # the edges an equity table is kept for


@cache
def _equity_table(target: int, edge: float = 0.5) -> tuple[tuple[float, ...], ...]:
    """win[a][b]: the chance to win the match when we need `a` more points and they `b`,
    each hand going our way with chance `edge` and HAND_POINTS' sizes."""
    outcomes: list[tuple[int, int, float]] = []
    total = sum(w for _, _, w in HAND_POINTS)
    for mine, theirs, weight in HAND_POINTS:
        if weight == 0:
            continue
        outcomes.append((mine, theirs, weight / total * edge))
        outcomes.append((theirs, mine, weight / total * (1 - edge)))
    size = target + 1
    win = [[0.0] * size for _ in range(size)]
    for a in range(size):
        for b in range(size):
            if a == 0:
                win[a][b] = 1.0
                continue
            if b == 0:
                win[a][b] = 0.0
                continue
            value = 0.0
            stay = 0.0
            for mine, theirs, p in outcomes:
                na, nb = max(a - mine, 0), max(b - theirs, 0)
                if na == a and nb == b:
                    stay += p
                    continue
                if na == 0 and nb == 0:
                    value += p / 2  # both would reach it: who scores first is a coin toss
                elif na == 0:
                    value += p
                elif nb == 0:
                    continue
                else:
                    value += p * win[na][nb]
            win[a][b] = value / (1 - stay) if stay < 1 else 0.5
    return tuple(tuple(row) for row in win)


def equity(mine: int, theirs: int, target: int, edge: float = 0.5) -> float:
    """The chance that a side with `mine` points beats one with `theirs` (target 15 or 30),
    when each hand goes its way with chance `edge` (even players: 0.5; rounded to EDGE_STEP)."""
    if mine >= target:
        return 1.0
    if theirs >= target:
        return 0.0
    table = _equity_table(target, round(edge / EDGE_STEP) * EDGE_STEP)
    return table[target - mine][target - theirs]
