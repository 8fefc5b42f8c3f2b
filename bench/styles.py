"""The gauntlet: opponents that play unlike each other and unlike our own levels.

Written apart from `bot/ai` on purpose (nothing of it is imported here: no odds tables, no match
equity, no playouts): each is a simple club player with one habit pushed far, the way people at
a real table differ. They read only their seat's `Observation` and answer a legal action.

- **club**: ordinary club truco. Envido by value, truco by the strength of its cards, the
  lowest card that wins the round, a small bluff rate.
- **tight** (la roca): bets only the nuts (envido 30 or more, truco with two top cards or a
  round won and a top card left), refuses anything it cannot beat, never bluffs.
- **caller** (el que quiere todo): wants every envido and every truco, whatever it holds;
  chants by value, rarely raises.
- **bluffer** (el mentiroso): chants envido and truco at high rates whatever it holds, raises
  often, wants by value.
- **runner** (el que se va al mazo): with a poor hand it goes to the mazo before it plays a
  card, and it refuses every chant it is not sure of; it chants only with strong cards.

- **stranger1–3**: club players with habits drawn at random over that range (`stranger`),
  held out: nothing in `bot/ai` was tuned against them.

Two more, held out and of another make (not club players with one habit moved: players whose
chants mean something else), written after difícil's persona model and never tuned against:

- **sandbagger** (el que se hace el muerto): hides a big hand. With the best cards it never
  chants truco first and waits to answer with a retruco; with a big envido it never opens and
  raises the rival's; it chants truco with middling cards, bluffs now and then, leads its
  lowest card.
- **gambler** (el que juega al tanteador): plays the score. Well behind, it chants and wants
  nearly everything, falta envido included; well ahead, it bets only the nuts; level, it
  plays club truco.

Four more, of a sharper make (`sharp`: a player that reckons its chance to win the hand over
deals of the cards it has not seen, and answers envidos by the odds of a chanter's envido), each
with one habit of the programs people play against (issue 74); held out like the rest:

- **envido_bluffer** (el mentiroso del tanto): chants a plain envido with a poor one about half
  the time it chants (three of five of its hands below 27); its real envido and falta are honest,
  and a raise of its bluff it refuses.
- **envido_caller** (el que quiere todo el tanto): wants almost every envido, and overbets its
  own: a real envido or a falta where a plain envido would do, and with a poor envido now and
  then (some 40% of its real envidos and faltas with the worse envido).
- **truco_bluffer** (el mentiroso del truco): chants truco with a poor hand about as often as
  with a good one, and raises a truco as a bluff now and then.
- **stayer** (el que no se va nunca): never goes to the mazo and never refuses a truco: every
  hand is played out.

Each plays in 1v1 and in 2v2.

`STYLES` maps a name to a player: `player(obs, rng) -> Action`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from bot.game import DECK, Action, ActionKind, Card, Observation, envido_value, flor_value, side_of
from bot.game.state import hand_winner

K = ActionKind
TRUCO = (K.TRUCO, K.RETRUCO, K.VALE_CUATRO)
ENVIDO = (K.ENVIDO, K.REAL_ENVIDO, K.FALTA_ENVIDO)
Player = Callable[[Observation, random.Random], Action]


@dataclass(frozen=True)
class Habits:
    envido_chant: int  # chants envido with at least this
    envido_want: int  # wants an envido with at least this
    envido_bluff: float  # chants envido with less this often
    real_envido: int  # raises or opens with real envido at this
    truco_chant: float  # chants truco with at least this power (see `power`)
    truco_want: float  # wants a truco with at least this power
    truco_bluff: float  # chants truco with less this often
    raise_at: float  # answers a truco with a higher one at this power
    want_everything: bool = False
    mazo_below: float = -1.0  # goes to the mazo before its first card below this power
    lead_best: bool = False  # leads its best card (else its middle one)


HABITS: dict[str, Habits] = {
    "club": Habits(27, 26, 0.08, 31, 10.5, 8.5, 0.08, 12.0),
    "tight": Habits(30, 29, 0.0, 32, 12.0, 10.5, 0.0, 13.0),
    "caller": Habits(28, 0, 0.02, 33, 11.0, -99.0, 0.03, 13.5, want_everything=True),
    "bluffer": Habits(25, 26, 0.6, 28, 9.5, 8.0, 0.55, 10.5, lead_best=True),
    "runner": Habits(29, 28, 0.0, 32, 11.0, 10.0, 0.0, 12.5, mazo_below=7.0),
}


def _mine(obs: Observation) -> int:
    return side_of(obs.seat or 0)


def power(obs: Observation) -> float:
    """How good the hand looks for truco: the mean strength (1–14) of the cards still held,
    lifted by rounds won and lowered by rounds lost."""
    if not obs.cards:
        return 0.0
    strengths = sorted((c.strength for c in obs.cards), reverse=True)
    base = sum(strengths[:2]) / min(2, len(strengths))
    side = _mine(obs)
    for result in obs.results:
        if result == side:
            base += 2.5
        elif result is not None:
            base -= 2.5
    return base


def _round_cards(obs: Observation) -> tuple[tuple[int, object], ...]:
    if len(obs.rounds) > len(obs.results):
        return obs.rounds[-1]
    return ()


def _card(obs: Observation, habits: Habits) -> Action:
    plays = sorted((a for a in obs.actions if a.kind is K.PLAY),
                   key=lambda a: a.card.strength if a.card else 0)  # fmt: skip
    if not plays:
        return next(a for a in obs.actions if a.kind is not K.MAZO)
    side = _mine(obs)
    table = _round_cards(obs)
    if not table:
        if habits.lead_best or obs.results:
            return plays[-1]
        return plays[len(plays) // 2]
    theirs = max((c.strength for s, c in table if side_of(s) != side), default=0)  # type: ignore[attr-defined]
    ours = max((c.strength for s, c in table if side_of(s) == side), default=0)  # type: ignore[attr-defined]
    if ours > theirs:
        return plays[0]  # the partner has it: throw the lowest
    winners = [a for a in plays if a.card is not None and a.card.strength > theirs]
    return winners[0] if winners else plays[0]


def _first(kinds: dict[ActionKind, Action], *wanted: ActionKind) -> Action | None:
    return next((kinds[k] for k in wanted if k in kinds), None)


def play(style: str) -> Player:
    habits = HABITS[style]

    def player(obs: Observation, rng: random.Random) -> Action:
        acts = obs.actions
        if len(acts) == 1:
            return acts[0]
        kinds = {a.kind: a for a in acts if a.kind is not K.PLAY}
        envido = envido_value(obs.dealt)
        strength = power(obs)
        # flor: declared when held; contra only with a big one
        if K.FLOR in kinds and not any(k in kinds for k in (K.QUIERO,)):
            return kinds[K.FLOR]
        if obs.pending_chant in (K.FLOR, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO):
            value = flor_value(obs.dealt) if K.FLOR in kinds or K.QUIERO in kinds else 0
            if K.CONTRAFLOR in kinds and value >= 33:
                return kinds[K.CONTRAFLOR]
            if K.QUIERO in kinds and (habits.want_everything or value >= 31):
                return kinds[K.QUIERO]
            chosen = _first(kinds, K.FLOR, K.CON_FLOR_ME_ACHICO, K.NO_QUIERO, K.QUIERO)
            return chosen or acts[0]
        if obs.pending_chant in ENVIDO:
            if habits.want_everything or envido >= habits.envido_want:
                if K.REAL_ENVIDO in kinds and envido >= habits.real_envido:
                    return kinds[K.REAL_ENVIDO]
                return kinds[K.QUIERO]
            return kinds[K.NO_QUIERO]
        if K.ENVIDO in kinds:
            if K.REAL_ENVIDO in kinds and envido >= habits.real_envido:
                return kinds[K.REAL_ENVIDO]
            if envido >= habits.envido_chant or rng.random() < habits.envido_bluff:
                return kinds[K.ENVIDO]
        if obs.pending_chant in TRUCO:
            level = TRUCO.index(obs.pending_chant) + 1
            if (
                level < 3
                and TRUCO[level] in kinds
                and (strength >= habits.raise_at or rng.random() < habits.truco_bluff / 2)
            ):
                return kinds[TRUCO[level]]
            if habits.want_everything or strength >= habits.truco_want + 0.5 * (level - 1):
                return kinds[K.QUIERO]
            return kinds[K.NO_QUIERO]
        if (
            habits.mazo_below > 0
            and K.MAZO in kinds
            and not obs.rounds
            and strength < habits.mazo_below
            and not any(k in kinds for k in TRUCO[1:])
        ):
            return kinds[K.MAZO]
        chant = _first(kinds, *TRUCO)
        if chant is not None and (
            strength >= habits.truco_chant or rng.random() < habits.truco_bluff
        ):
            return chant
        return _card(obs, habits)

    return player


def stranger(n: int) -> Habits:
    """A club player whose habits are drawn at random (seeded by `n`) over the range people
    play in: held out, for checking that what was tuned against the named styles holds
    against players nobody tuned against."""
    rng = random.Random(f"stranger{n}")
    return Habits(
        envido_chant=rng.randint(24, 31),
        envido_want=rng.randint(22, 30),
        envido_bluff=rng.choice((0.0, rng.uniform(0.0, 0.4))),
        real_envido=rng.randint(29, 33),
        truco_chant=rng.uniform(9.0, 12.5),
        truco_want=rng.uniform(7.0, 11.0),
        truco_bluff=rng.choice((0.0, rng.uniform(0.0, 0.4))),
        raise_at=rng.uniform(10.0, 14.0),
        want_everything=rng.random() < 0.15,
        mazo_below=rng.choice((-1.0, -1.0, rng.uniform(5.0, 8.0))),
        lead_best=rng.random() < 0.5,
    )


def sandbagger(obs: Observation, rng: random.Random) -> Action:
    acts = obs.actions
    if len(acts) == 1:
        return acts[0]
    kinds = {a.kind: a for a in acts if a.kind is not K.PLAY}
    envido = envido_value(obs.dealt)
    strength = power(obs)
    if K.FLOR in kinds or obs.pending_chant in (K.FLOR, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO):
        return play("club")(obs, rng)
    if obs.pending_chant in ENVIDO:
        if envido >= 30:
            raised = _first(kinds, K.FALTA_ENVIDO, K.REAL_ENVIDO, K.ENVIDO)
            return raised or kinds[K.QUIERO]
        return kinds[K.QUIERO] if envido >= 27 else kinds[K.NO_QUIERO]
    if K.ENVIDO in kinds and envido < 30 and (envido >= 25 or rng.random() < 0.2):
        return kinds[K.ENVIDO]
    if obs.pending_chant in TRUCO:
        level = TRUCO.index(obs.pending_chant) + 1
        if level < 3 and TRUCO[level] in kinds and strength >= 12:
            return kinds[TRUCO[level]]
        return kinds[K.QUIERO] if strength >= 9 else kinds[K.NO_QUIERO]
    chant = _first(kinds, *TRUCO)
    if (
        chant is not None
        and strength < 12
        and (strength >= 9 or (obs.results and rng.random() < 0.15))
    ):
        return chant
    plays = sorted((a for a in acts if a.kind is K.PLAY),
                   key=lambda a: a.card.strength if a.card else 0)  # fmt: skip
    if plays and not obs.results and not _round_cards(obs):
        return plays[0]  # hides its cards: the lowest first
    return _card(obs, HABITS["club"])


def gambler(obs: Observation, rng: random.Random) -> Action:
    side = _mine(obs)
    behind = obs.scores[1 - side] - obs.scores[side]
    if behind >= 8:
        return _desperate(obs, rng)
    if behind <= -8:
        return play("tight")(obs, rng)
    return play("club")(obs, rng)


def _desperate(obs: Observation, rng: random.Random) -> Action:
    acts = obs.actions
    if len(acts) == 1:
        return acts[0]
    kinds = {a.kind: a for a in acts if a.kind is not K.PLAY}
    if K.FLOR in kinds or obs.pending_chant in (K.FLOR, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO):
        return play("caller")(obs, rng)
    envido = envido_value(obs.dealt)
    if obs.pending_chant in ENVIDO:
        if envido >= 28 and K.FALTA_ENVIDO in kinds:
            return kinds[K.FALTA_ENVIDO]
        return kinds[K.QUIERO]
    if K.ENVIDO in kinds and rng.random() < 0.7:
        return (
            kinds[K.FALTA_ENVIDO] if envido >= 29 and K.FALTA_ENVIDO in kinds else kinds[K.ENVIDO]
        )
    if obs.pending_chant in TRUCO:
        level = TRUCO.index(obs.pending_chant) + 1
        if level < 3 and TRUCO[level] in kinds and rng.random() < 0.4:
            return kinds[TRUCO[level]]
        return kinds[K.QUIERO]
    chant = _first(kinds, *TRUCO)
    if chant is not None and rng.random() < 0.6:
        return chant
    return _card(obs, HABITS["bluffer"])


# -- a sharper make ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sharp:
    """A sound player's habits, and the one each style of this make pushes."""

    envido_bluff: float = 0.05  # chants a plain envido with less than ENVIDO_GOOD this often
    envido_call: float = 0.0  # wants an envido it would refuse this often
    overbet: float = 0.0  # chants or raises to real envido / falta with a poor envido this often
    big: bool = False  # with a good envido, a real envido or a falta rather than an envido
    truco_bluff: float = 0.06  # chants truco with a poor hand (after round 1) this often
    truco_bluff_early: bool = False  # and in round 1 too
    stays: bool = False  # never the mazo, never a no quiero to a truco


SAMPLES = 32  # deals of the unseen cards a hand's chance is reckoned over
ENVIDO_GOOD = 27  # an envido worth chanting
POOR_HAND = 0.35  # a hand chance below this is poor (a truco chanted with it is a bluff)


def _pick(held: list[Card], table: list[tuple[int, Card]], seat: int) -> Card:
    """The card one seat plays in the reckoning: its best to lead, else the lowest that
    wins the round (the lowest if its side already has it, or if none does)."""
    if not table:
        return held[-1]
    side = side_of(seat)
    theirs = max((c.strength for s, c in table if side_of(s) != side), default=0)
    ours = max((c.strength for s, c in table if side_of(s) == side), default=0)
    if ours > theirs:
        return held[0]
    return next((c for c in held if c.strength > theirs), held[0])


def hand_chance(obs: Observation, rng: random.Random, samples: int = SAMPLES) -> float:
    """The chance this seat's side wins the hand: the unseen cards dealt at random to the
    others, the rest of the hand played out by `_pick` for every seat."""
    seat = obs.seat or 0
    side = side_of(seat)
    active = list(obs.duel_seats) if obs.duel_seats else list(range(obs.config.players))
    seen = set(obs.dealt) | {c for r in obs.rounds for _, c in r}
    pool = [c for c in DECK if c not in seen]
    mano_side = side_of(obs.mano)
    done = len(obs.results)
    current = list(obs.rounds[done]) if len(obs.rounds) > done else []
    first = obs.turn if obs.turn is not None else seat
    won = 0
    for _ in range(samples):
        rng.shuffle(pool)
        hands: dict[int, list[Card]] = {}
        taken = 0
        for s in active:
            if s == seat:
                hands[s] = sorted(obs.cards, key=lambda c: c.strength)
            else:
                count = obs.cards_left[s]
                hands[s] = sorted(pool[taken : taken + count], key=lambda c: c.strength)
                taken += count
        results: list[int | None] = list(obs.results)
        table = list(current)
        leader = first
        while hand_winner(results, mano_side) is None and len(results) < 3:
            start = active.index(leader) if leader in active else 0
            played = {s for s, _ in table}
            for s in active[start:] + active[:start]:
                if s in played or not hands[s]:
                    continue
                card = _pick(hands[s], table, s)
                hands[s].remove(card)
                table.append((s, card))
            if not table:
                break
            top = max(c.strength for _, c in table)
            sides = {side_of(s) for s, c in table if c.strength == top}
            if len(sides) == 1:
                results.append(sides.pop())
                leader = next(s for s, c in table if c.strength == top)
            else:
                results.append(None)
                leader = table[0][0]
            table = []
        outcome = hand_winner(results, mano_side)
        won += (mano_side if outcome is None else outcome) == side
    return won / samples


def _envido_points(obs: Observation, chain: list[ActionKind]) -> int:
    """What a refusal of the envido chain gives the chanter (R15), roughly: 1 a chant."""
    return max(1, len(chain) - (1 if chain and chain[-1] is K.FALTA_ENVIDO else 0))


def sharp(habits: Sharp) -> Player:
    def player(obs: Observation, rng: random.Random) -> Action:
        acts = obs.actions
        if len(acts) == 1:
            return acts[0]
        kinds = {a.kind: a for a in acts if a.kind is not K.PLAY}
        side = _mine(obs)
        target = obs.config.target
        mine_pts, theirs_pts = obs.scores[side], obs.scores[1 - side]
        envido = envido_value(obs.dealt)
        mano = side_of(obs.mano) == side
        if K.FLOR in kinds or obs.pending_chant in (K.FLOR, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO):
            return play("club")(obs, rng)
        if obs.pending_chant in ENVIDO:
            chain = [k for _, k in obs.calls if k in ENVIDO]
            last = chain[-1]
            need = {K.ENVIDO: 27, K.REAL_ENVIDO: 29, K.FALTA_ENVIDO: 31}[last] - (1 if mano else 0)
            # a refusal that hands them the match is no refusal
            lost_anyway = theirs_pts + _envido_points(obs, chain) >= target
            # (a caller's habit stops short of a falta: it wants one with a fair envido)
            call = habits.envido_call if last is not K.FALTA_ENVIDO else 0.0
            need = min(need, 28) if habits.envido_call and last is K.FALTA_ENVIDO else need
            want = envido >= need or lost_anyway or rng.random() < call
            if want and last is not K.FALTA_ENVIDO:
                raise_to = _first(kinds, K.REAL_ENVIDO, K.FALTA_ENVIDO)
                if raise_to is not None and (envido >= 31 or rng.random() < habits.overbet):
                    return raise_to
            elif not want and last is K.ENVIDO and rng.random() < habits.overbet:
                raise_to = _first(kinds, K.REAL_ENVIDO, K.FALTA_ENVIDO)
                if raise_to is not None:
                    return raise_to
            return kinds[K.QUIERO] if want else kinds[K.NO_QUIERO]
        if K.ENVIDO in kinds or K.REAL_ENVIDO in kinds:
            behind = theirs_pts - mine_pts >= 10
            if envido >= ENVIDO_GOOD:
                if K.FALTA_ENVIDO in kinds and envido >= 32 and (behind or habits.big):
                    return kinds[K.FALTA_ENVIDO]
                if K.REAL_ENVIDO in kinds and (envido >= 30 or habits.big):
                    return kinds[K.REAL_ENVIDO]
                if K.ENVIDO in kinds:
                    return kinds[K.ENVIDO]
            elif rng.random() < habits.overbet / 3:
                big = _first(kinds, K.REAL_ENVIDO, K.FALTA_ENVIDO)
                if big is not None:
                    return big
            elif K.ENVIDO in kinds and rng.random() < habits.envido_bluff:
                return kinds[K.ENVIDO]
        if obs.pending_chant in TRUCO:
            level = TRUCO.index(obs.pending_chant) + 1
            w = hand_chance(obs, rng)
            if (
                level < 3
                and TRUCO[level] in kinds
                and (w >= 0.8 or (w < POOR_HAND and rng.random() < habits.truco_bluff / 3))
            ):
                return kinds[TRUCO[level]]
            want = w >= 0.33 + 0.07 * (level - 1) or habits.stays
            return kinds[K.QUIERO] if want else kinds[K.NO_QUIERO]
        chant = _first(kinds, *TRUCO)
        if chant is not None:
            w = hand_chance(obs, rng)
            strong = w >= (0.72 if not obs.results else 0.65)
            bluff = (
                w < POOR_HAND
                and (obs.results or habits.truco_bluff_early)
                and rng.random() < habits.truco_bluff
            )
            if strong or bluff:
                return chant
        return _card(obs, HABITS["club"])

    return player


SHARP: dict[str, Sharp] = {
    "sharp": Sharp(),
    "envido_bluffer": Sharp(envido_bluff=0.6),
    "envido_caller": Sharp(envido_call=0.9, overbet=0.6, big=True),
    "truco_bluffer": Sharp(truco_bluff=0.6, truco_bluff_early=True),
    "stayer": Sharp(stays=True),
}


STRANGERS = 3
HABITS.update({f"stranger{n}": stranger(n) for n in range(1, STRANGERS + 1)})
STYLES: dict[str, Player] = {name: play(name) for name in HABITS}
STYLES.update(sandbagger=sandbagger, gambler=gambler)
STYLES.update({name: sharp(habits) for name, habits in SHARP.items()})
