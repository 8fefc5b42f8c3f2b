"""The match state machine: `legal_actions()`, `apply()`, `replay()` (RULES.md R1-R27)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Literal

from bot.game.actions import (
    CALLS,
    ENVIDO_CHANTS,
    FLOR_CHANTS,
    PLAYS,
    TRUCO_CHANTS,
    Action,
    ActionKind,
    AnyAction,
    Deal,
    act,
)
from bot.game.cards import DECK, Card, envido_cards, envido_value, flor_value, has_flor
from bot.game.errors import IllegalActionError, Reason
from bot.game.events import (
    CardPlayed,
    Chanted,
    DuelStarted,
    EnvidoAnnulled,
    EnvidoResolved,
    Event,
    FlorResolved,
    HandDealt,
    HandEnd,
    HandEnded,
    MatchEnded,
    RoundWon,
    Said,
    Scored,
    ScoreReason,
    WentToMazo,
)
from bot.game.habits import Habits, heard, shown
from bot.game.past import PastHand
from bot.game.scoring import (
    FLOR_ACHICO,
    FLOR_ALONE,
    FLOR_CONTESTED,
    contraflor_al_resto_not_wanted_value,
    envido_not_wanted_value,
    envido_raises,
    envido_wanted_value,
    falta,
    falta_a_las_malas,
    truco_not_wanted_value,
    truco_wanted_value,
)
from bot.game.seats import SEAT_COUNTS, Seats, duel_pair, seats, side_of
from bot.game.seats import duel as duel_of

K = ActionKind

# Tuples, not sets: `in` on a tuple compares by identity first, where a set would call the
# enum's hash (a Python function) on the engine's hottest path.
_FLOR_KINDS = (*FLOR_CHANTS, K.CON_FLOR_ME_ACHICO)
_ANSWERS = (K.QUIERO, K.NO_QUIERO, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR)
# R22: what answers the last call of a flor exchange.
_OVER_FLOR = (K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO)
_OVER_CONTRAFLOR = (K.QUIERO, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR_AL_RESTO)
_OVER_AL_RESTO = (K.QUIERO, K.NO_QUIERO)


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """The variants of RULES.md, defaults first: the one definition of a table's rules. The
    lobby's and /config's choices (`CHOICES`, in the order a tap goes through them), their
    names (`options`) and every text that names them come from here."""

    players: int = 2
    target: int = 30
    flor: bool = True
    house_rule: bool = True  # R24
    pica_pica: bool = True  # 3v3 only (R36)
    duel_falta: int = 0  # 3v3 option: a falta envido in a duel is worth R18 (0) or a fixed 6 (R42)
    falta_malas: bool = False  # R46: in a match to 30, the falta counted to the end of the malas

    def __post_init__(self) -> None:
        for name, allowed in PLAYABLE.items():
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}")

    def envido_falta(self, scores: Sequence[int], in_duel: bool) -> int:
        """What a falta envido is worth now: R18, or in a pica-pica duel the fixed value this
        table chose (R42's option), or R46's falta a las malas where the table plays it (a
        contraflor al resto stays R18 everywhere)."""
        if in_duel and self.duel_falta:
            return self.duel_falta
        if self.falta_malas:
            return falta_a_las_malas(scores, self.target)
        return falta(scores, self.target)

    def cycled(self, name: str) -> MatchConfig:
        """These rules with `name` moved to its next choice (round again after the last; a
        value the lobby does not offer goes to the first)."""
        allowed = CHOICES[name]
        now = getattr(self, name)
        after = allowed[(allowed.index(now) + 1) % len(allowed)] if now in allowed else allowed[0]
        return replace(self, **{name: after})

    def options(self) -> dict[str, Any]:
        """These rules by the names the lobby and /config give them (`CHOICES`), each where it
        means something: the 3v3 options at a table of six, R46 where it is played (a group's
        defaults, a tournament's rules and a match's export name a table's rules so)."""
        return {
            name: getattr(self, name)
            for name in CHOICES
            if (name not in SIX_ONLY or self.players == 6)
            and (name not in OFF_UNLESS_SET or getattr(self, name))
        }

    @staticmethod
    def of(options: Mapping[str, Any]) -> MatchConfig:
        """The rules named options say (`options`); what they leave out is the default."""
        default = MatchConfig()
        kinds = {name: type(getattr(default, name)) for name in CHOICES if name in options}
        return replace(default, **{name: kind(options[name]) for name, kind in kinds.items()})


# What each rule may be set to in the lobby and /config, the default first.
CHOICES: dict[str, tuple[Any, ...]] = {
    "players": SEAT_COUNTS,
    "target": (30, 15),
    "flor": (True, False),
    "house_rule": (True, False),
    "pica_pica": (True, False),
    "duel_falta": (0, 6),
    "falta_malas": (False, True),
}
SIX_ONLY = ("pica_pica", "duel_falta")  # the options of a table of six
# Options stored only when set (R46 came after matches were sealed with the stored form
# without it: a table that does not play it keeps that form).
OFF_UNLESS_SET = ("falta_malas",)
# What the engine plays (the same as the lobby offers).
PLAYABLE: dict[str, tuple[Any, ...]] = CHOICES


class Phase(StrEnum):
    DEAL = "deal"  # waiting for chance to deal the next hand
    PLAY = "play"
    OVER = "over"


class Pending(StrEnum):
    """What the table waits for an answer to, most urgent first."""

    FLOR = "flor"
    ENVIDO = "envido"
    TRUCO = "truco"


def hand_winner(results: Sequence[int | None], mano_side: int) -> int | None:
    """R8: the side that wins a hand with these round results (None: a parda), as soon as it
    is certain; None while it is not."""
    wins = (results.count(0), results.count(1))
    for side in (0, 1):
        if wins[side] >= 2:
            return side
    if len(results) >= 2 and None in results and wins[0] != wins[1]:
        return 0 if wins[0] > wins[1] else 1
    if len(results) == 3:
        for result in results:
            if result is not None:
                return result  # level: the first round somebody won decides
        return mano_side  # three pardas
    return None


class HandState:
    """One deal. Mutable; owned by MatchState."""

    # Its fields (their types: what a snapshot of it holds), one slot each.
    number: int
    dealer: int
    mano: int
    players: int
    table: Seats
    dealt: tuple[tuple[Card, ...], ...]
    held: list[list[Card]]
    rounds: list[list[tuple[int, Card]]]
    results: list[int | None]
    leader: int
    turn: int
    truco_level: int
    truco_side: int | None
    truco_pending: int
    truco_pending_side: int
    envido_chain: list[ActionKind]
    envido_side: int
    envido_pending: bool
    envido_closed: bool
    envido_chanted: bool
    envido_winner: int | None
    flor_holders: list[bool]
    any_flor: bool
    flor_declared: list[bool]
    flor_chain: list[ActionKind]
    flor_side: int
    flor_pending: bool
    flor_closed: bool
    flor_chanted: bool
    flor_shown: list[int]
    calls: list[tuple[int, ActionKind]]
    ended: bool
    history: list[Action]
    start_scores: tuple[int, int]
    announced: list[tuple[int, int]]
    son_buenas: list[tuple[int, int, bool]]
    duel: int | None
    __slots__ = tuple(__annotations__)

    def __init__(
        self,
        number: int,
        dealer: int,
        dealt: tuple[tuple[Card, ...], ...],
        flor: bool,
        duel: int | None = None,
    ):
        """A redondo (`duel` None: every seat plays), or duel `duel` (0, 1, 2) of a pica-pica
        hand (R39): the seat `duel` places after the mano against its opposite, a 1v1 hand of
        its own with the cards dealt to them."""
        full = seats(len(dealt))
        self.number = number
        self.dealer = dealer
        self.duel = duel
        if duel is None:
            self.table = full
            self.mano = full.next(dealer)
        else:
            first, second = duel_pair(full.count, dealer, duel)
            self.table = duel_of(first, second)
            self.mano = first  # the duel mano
        players = self.table.count
        self.players = players  # the seats that play it: 2 in a duel
        self.dealt = dealt
        self.held = [list(hand) for hand in dealt]
        self.rounds = [[]]
        self.results = []  # side per finished round, None for parda
        self.leader = self.mano
        self.turn = self.mano
        self.truco_level = 0  # accepted: 0 none, 1 truco, 2 retruco, 3 vale cuatro
        self.truco_side = None  # the side that said quiero last (R11)
        self.truco_pending = 0  # level chanted and waiting, 0 if none
        self.truco_pending_side = 0
        self.envido_chain = []
        self.envido_side = 0  # the side that made the last envido chant
        self.envido_pending = False
        self.envido_closed = False
        self.envido_chanted = False
        self.envido_winner = None  # seat whose envido won when wanted
        playing = set(self.table.all)
        self.flor_holders = [
            flor and s in playing and has_flor(hand) for s, hand in enumerate(dealt)
        ]
        self.any_flor = any(self.flor_holders)
        self.flor_declared = [False] * len(dealt)
        self.flor_chain = []
        self.flor_side = 0
        self.flor_pending = False
        self.flor_closed = False
        self.flor_chanted = False
        self.flor_shown = []
        self.calls = []
        self.ended = False
        self.history = []  # every action of this hand, in order (all public)
        self.start_scores = (0, 0)  # the scores when the hand was dealt
        self.announced = []  # (seat, value) said aloud: envido, flor
        # (seat, value it did not beat, whether a tie would not have beaten it): "son buenas"
        self.son_buenas = []

    def copy(self) -> HandState:
        """A deep copy (cards and actions are shared immutable values)."""
        new = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(new, name, getattr(self, name))
        new.held = [list(cards) for cards in self.held]
        new.rounds = [list(r) for r in self.rounds]
        new.results = list(self.results)
        new.envido_chain = list(self.envido_chain)
        new.flor_holders = list(self.flor_holders)
        new.flor_declared = list(self.flor_declared)
        new.flor_chain = list(self.flor_chain)
        new.flor_shown = list(self.flor_shown)
        new.calls = list(self.calls)
        new.history = list(self.history)
        new.announced = list(self.announced)
        new.son_buenas = list(self.son_buenas)
        return new

    # -- helpers ---------------------------------------------------------------------------
    def order_from_mano(self) -> list[int]:
        return list(self.table.order_from(self.mano))

    def in_round_one(self) -> bool:
        return not self.results

    def hand_value(self) -> int:
        return truco_wanted_value(self.truco_level)

    def pending(self) -> Pending | None:
        if self.flor_pending:
            return Pending.FLOR
        if self.envido_pending:
            return Pending.ENVIDO
        if self.truco_pending:
            return Pending.TRUCO
        return None

    def undeclared_flor(self) -> list[int]:
        if self.flor_closed:
            return []
        return [s for s in self.table.all if self.flor_holders[s] and not self.flor_declared[s]]

    def can_start_envido(self, seat: int) -> bool:
        """R15, F3: round 1, not yet played, envido still open, truco not wanted."""
        return _envido_opening(self, seat) is None

    def say_in_turn(self, seats: Sequence[int], values: Sequence[int]) -> list[Said]:
        """R19: the values said at the table, in seat order from the mano, going round again
        as needed. The mano says theirs; a player whose side does not hold the best value said
        so far says theirs if it beats it (higher, or equal and nearer the mano, F5) or "son
        buenas"; a player whose side holds it waits. The side holding the best said wins.
        What is said becomes public (`announced`, `son_buenas`); nothing else does."""
        order = [s for s in self.order_from_mano() if s in seats]
        rank = {seat: i for i, seat in enumerate(order)}
        said = [Said(order[0], values[order[0]])]
        best = order[0]
        done = {best}
        spoke = True
        while spoke:
            spoke = False
            for seat in order:
                if seat in done or seat % 2 == best % 2:
                    continue
                value, top = values[seat], values[best]
                if value > top or (value == top and rank[seat] < rank[best]):
                    said.append(Said(seat, value))
                    best = seat
                else:
                    said.append(Said(seat, None))
                    self.son_buenas.append((seat, top, rank[seat] > rank[best]))
                done.add(seat)
                spoke = True
        self.announced.extend((w.seat, w.value) for w in said if w.value is not None)
        return said

    def best(self, seats: Sequence[int], values: Sequence[int]) -> tuple[int, int] | None:
        """(seat, value) of the best among `seats`, ties to the one nearer the mano (F5)."""
        found: tuple[int, int] | None = None
        for seat in self.order_from_mano():
            if seat in seats and (found is None or values[seat] > found[1]):
                found = (seat, values[seat])
        return found


@dataclass(frozen=True)
class HandLog:
    """All it takes to replay one hand: its number and dealer, the scores when it was dealt,
    the cards dealt and every action taken, in order (`bot.game.record.replay_hand`)."""

    def __hash__(self) -> int:
        # The deal (cards hash by identity, in C) and the number of actions: the views look
        # hands' ends up by their log on every edit, and hashing every action each time cost
        # more than the look-up; without the deal, the same hand of many tables collided.
        return hash((self.number, self.dealer, self.dealt, len(self.history), self.duel))

    number: int
    dealer: int
    start_scores: tuple[int, int]
    dealt: tuple[tuple[Card, ...], ...]
    history: tuple[Action, ...]
    duel: int | None = None  # a pica-pica hand's duel (R39), None for a redondo

    @staticmethod
    def of(h: HandState) -> HandLog:
        return HandLog(h.number, h.dealer, h.start_scores, h.dealt, tuple(h.history), h.duel)


RECENT_HANDS = 4  # hands kept whole (with their deals) after they end, for their records


# -- the statements of what may be done ----------------------------------------------------------
# Each rule is said once, as what it allows or the reason it refuses: `MatchState._generate`
# lists what they allow (the engine's hottest path: each is a few comparisons, no allocation
# where the turn's seat acts), `MatchState._explain` says their reasons.


def _flor_answers(h: HandState) -> tuple[ActionKind, ...]:
    """R22: what answers the last flor call."""
    last = h.flor_chain[-1]
    if last is K.FLOR:
        return _OVER_FLOR
    return _OVER_CONTRAFLOR if last is K.CONTRAFLOR else _OVER_AL_RESTO


def _envido_answers(h: HandState) -> tuple[ActionKind, ...]:
    """R16: an envido is wanted, not wanted, raised (as its chain allows), or its side leaves
    (in the buttons' order)."""
    return (K.QUIERO, K.NO_QUIERO, *envido_raises(h.envido_chain), K.MAZO)


def _envido_opening(h: HandState, seat: int) -> Reason | None:
    """R15, F3: an envido is opened in round 1, by a seat that has not played, while the envido
    is open and no truco was wanted."""
    if h.envido_closed or h.truco_level > 0:
        return Reason.ENVIDO_CLOSED
    if h.results or len(h.held[seat]) != 3:
        return Reason.ENVIDO_ALREADY_PLAYED
    return None


def _envido_over_truco(h: HandState, seat: int) -> Reason | None:
    """R17, F4: the envido goes first, over the first truco only (not a retruco's)."""
    if h.truco_pending == 1:
        return _envido_opening(h, seat)
    return Reason.ENVIDO_CLOSED if h.envido_closed else Reason.ENVIDO_ALREADY_PLAYED


def _truco_raise(h: HandState, seat: int) -> ActionKind | Reason:
    """R9-R11: the chant a seat may raise the truco with on its turn (the next one, by the side
    that did not last raise it), else why not."""
    level = h.truco_level
    if level >= 3:
        return Reason.TRUCO_MAX
    if level and h.truco_side != seat % 2:
        return Reason.TRUCO_NOT_YOURS
    return TRUCO_CHANTS[level]


def _truco_answer_raise(h: HandState) -> ActionKind | Reason:
    """R10: the chant that answers a truco chant by raising it, else why there is none."""
    level = h.truco_pending
    return TRUCO_CHANTS[level] if level < 3 else Reason.TRUCO_MAX


class MatchState:
    """A whole match. `apply` mutates it and returns the events caused. Its fields are its
    public attributes and properties (a snapshot holds those); the private ones are what it
    computes again (the records of hands closed since anyone asked, the legal actions)."""

    config: MatchConfig
    scores: list[int]
    hand_number: int
    dealer: int
    phase: Phase
    winner: int | None
    hand: HandState | None
    habits: tuple[Habits, ...]
    step: int
    pica: bool
    _recent: tuple[HandLog, ...] = ()
    _past: tuple[PastHand, ...] = ()
    _closed: tuple[HandState, ...] = ()
    _legal: list[Action] | None = None

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.scores = [0, 0]
        self.hand_number = 0
        self.dealer = config.players - 1  # F1: seat 0 is mano of hand 1
        self.phase = Phase.DEAL
        self.winner = None
        self.hand = None
        self._recent = ()  # the last hands played, oldest first
        self.habits = (Habits(),) * config.players  # public, per seat
        self._past = ()
        # The hands deals closed since anyone asked: their log and public record are made when
        # first asked for (a playout deals hundreds of hands and asks for none).
        self._closed = ()
        self.step = 0  # actions applied, deals included
        self._legal = None
        self.pica = False  # the hand in play (or the last one) is a pica-pica hand (R36-R44)

    def copy(self) -> MatchState:
        """A deep copy, much faster than a snapshot's round trip (searching players copy a lot)."""
        new = MatchState.__new__(MatchState)
        new.config = self.config
        new.scores = list(self.scores)
        new.hand_number = self.hand_number
        new.dealer = self.dealer
        new.phase = self.phase
        new.winner = self.winner
        new.hand = self.hand.copy() if self.hand is not None else None
        new._recent = self._recent
        new.habits = self.habits
        new._past = self._past
        new._closed = self._closed
        new.step = self.step
        new._legal = None
        new.pica = self.pica
        return new

    # -- queries ---------------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.config.players

    @property
    def needs_deal(self) -> bool:
        return self.phase is Phase.DEAL

    @property
    def last_hand(self) -> HandLog | None:
        """All it takes to replay the hand before this one (its record on the board)."""
        recent = self.recent_hands
        return recent[-1] if recent else None

    @property
    def recent_hands(self) -> tuple[HandLog, ...]:
        """The last few hands played before this one, oldest first (`RECENT_HANDS`): a board
        shown again after several hands went by tells each of them."""
        self._close_record()
        return self._recent

    @recent_hands.setter
    def recent_hands(self, value: tuple[HandLog, ...]) -> None:
        self._close_record()
        self._recent = value[-RECENT_HANDS:]

    @property
    def past(self) -> tuple[PastHand, ...]:
        """What the table saw of each finished hand before this one."""
        self._close_record()
        return self._past

    @past.setter
    def past(self, value: tuple[PastHand, ...]) -> None:
        self._close_record()
        self._past = value

    def _close_record(self) -> None:
        closed = self._closed
        if closed:
            self._closed = ()
            logs = tuple(HandLog.of(h) for h in closed[-RECENT_HANDS:])
            self._recent = (*self._recent, *logs)[-RECENT_HANDS:]
            self._past += tuple(self._public(h) for h in closed)

    def _public(self, h: HandState) -> PastHand:
        """What the table saw of a finished hand."""
        return PastHand(
            h.number, len(h.dealt), h.dealer, h.start_scores, tuple(h.history),
            tuple(h.announced), tuple(h.son_buenas), self._shown(h), h.duel,
        )  # fmt: skip

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def legal_actions(self) -> list[Action]:
        """Every action any seat may take right now (R10: any partner may answer)."""
        if self._legal is None:
            self._legal = self._generate(exclusive=True)
        return self._legal

    def public_actions(self) -> list[Action]:
        """The actions the table can see are possible, without knowing who holds flor.

        This is what a shared board may offer: it includes ¡Flor! for every acting seat that
        could hold one and every answer a non-flor player could give, so that nothing in it
        depends on hidden cards. `apply` still enforces the real legality.
        """
        return self._generate(exclusive=False)

    def acting_seats(self) -> list[int]:
        """Seats the game waits on (those with a legal action), in seat order."""
        return sorted({a.seat for a in self.legal_actions()})

    def is_legal(self, action: Action) -> bool:
        interned = act(action.seat, action.kind, action.card)
        return any(a is interned for a in self.legal_actions())

    def why_not(self, action: Action) -> Reason | None:
        """None if `action` is legal now; otherwise the reason it is not."""
        return self.verify(action)

    def verify(self, action: Action, exclusive: bool = True) -> Reason | None:
        """None when `action` is allowed now (`exclusive`: knowing who holds flor; else as the
        table sees it), else the reason it is not. What is allowed is decided by `_generate`
        alone; `_explain` only says why something is not (and a test checks, over random
        matches, that it finds a fault in exactly the actions `_generate` leaves out)."""
        interned = act(action.seat, action.kind, action.card)
        allowed = self.legal_actions() if exclusive else self.public_actions()
        if any(a is interned for a in allowed):
            return None
        return self._explain(action, exclusive) or Reason.NOT_ALLOWED

    def _generate(self, exclusive: bool) -> list[Action]:
        """The one statement of what may be done now: the seats asked to act and, for each,
        its calls and cards (R9-R24, F3-F9). The engine's hottest path (every step of every
        playout of the searching player): straight-line code, interned actions."""
        h = self.hand
        if self.phase is not Phase.PLAY or h is None:
            return []
        forced: Sequence[int]
        if not self.config.flor or h.flor_closed:
            forced = ()
        elif exclusive:
            forced = h.undeclared_flor() if h.any_flor else ()
        else:
            forced = [s for s in h.table.all if not h.flor_declared[s] and len(h.held[s]) == 3]
        out: list[Action] = []
        if h.flor_pending:  # R22: only the other side's flores answer
            kinds = _flor_answers(h)
            for seat in h.table.sides[1 - h.flor_side]:
                if h.flor_holders[seat] or not exclusive:
                    calls = CALLS[seat]
                    out.extend(calls[kind] for kind in kinds)
            return out
        if h.envido_pending:  # F6: every undeclared flor is declared first
            kinds = _envido_answers(h)
            answering = 1 - h.envido_side
            first = bool(forced) and exclusive
            for seat in h.table.all:
                calls = CALLS[seat]
                if seat in forced:
                    out.append(calls[K.FLOR])
                if first or seat % 2 != answering:
                    continue
                out.extend(calls[kind] for kind in kinds)
            return out
        if h.truco_pending:  # R10-R12; R17/F4: the envido goes first, over the first truco
            chant = _truco_answer_raise(h)
            for seat in h.table.sides[1 - h.truco_pending_side]:
                calls = CALLS[seat]
                if seat in forced:
                    out.append(calls[K.FLOR])
                    if exclusive:
                        continue
                out.append(calls[K.QUIERO])
                out.append(calls[K.NO_QUIERO])
                if chant.__class__ is K:
                    out.append(calls[chant])
                if _envido_over_truco(h, seat) is None:
                    out.extend(calls[kind] for kind in ENVIDO_CHANTS)
                out.append(calls[K.MAZO])
            return out
        seat = h.turn
        calls = CALLS[seat]
        if seat in forced:
            out.append(calls[K.FLOR])
            if exclusive:
                return out
        chant = _truco_raise(h, seat)
        if chant.__class__ is K:
            out.append(calls[chant])
        if _envido_opening(h, seat) is None:
            out.extend(calls[kind] for kind in ENVIDO_CHANTS)
        out.append(calls[K.MAZO])
        plays = PLAYS[seat]
        out.extend(plays[c] for c in h.held[seat])
        return out

    def _forced(self, h: HandState, exclusive: bool) -> Sequence[int]:
        """Seats whose flor must be declared before anything else they do (F6). Seen from the
        table (not `exclusive`): every seat that could still hold an undeclared flor."""
        if exclusive:
            return h.undeclared_flor()
        if not self.config.flor or h.flor_closed:
            return ()
        return [s for s in h.table.all if not h.flor_declared[s] and len(h.held[s]) == 3]

    # -- why something may not be done ----------------------------------------------------------
    def _explain(self, action: Action, exclusive: bool) -> Reason | None:
        """The reason `action` is refused (None: no fault found). Never decides legality."""
        if self.phase is Phase.OVER:
            return Reason.MATCH_OVER
        h = self.hand
        if self.phase is Phase.DEAL or h is None:
            return Reason.DEAL_PENDING
        if not 0 <= action.seat < self.players:
            return Reason.NO_SUCH_SEAT
        if (action.kind is K.PLAY) != (action.card is not None):
            return Reason.NOT_ALLOWED
        forced = self._forced(h, exclusive)
        return self._verify(h, action.seat, action.kind, action.card, forced, exclusive)

    def _verify(
        self,
        h: HandState,
        seat: int,
        kind: ActionKind,
        card: Card | None,
        forced: Sequence[int],
        exclusive: bool,
    ) -> Reason | None:
        if kind in _FLOR_KINDS:
            if not self.config.flor:
                return Reason.FLOR_OFF
            if exclusive and not h.flor_holders[seat]:
                return Reason.NO_FLOR
            if h.flor_closed or (h.flor_declared[seat] and not h.flor_pending):
                return Reason.FLOR_CLOSED
        if h.flor_pending:
            return self._verify_flor_answer(h, seat, kind, exclusive)
        if seat in forced:
            if kind is K.FLOR:
                return self._verify_declaring(h, seat)
            if exclusive:
                return Reason.MUST_DECLARE_FLOR
        elif kind is K.FLOR:
            return Reason.FLOR_CLOSED if h.flor_declared[seat] else Reason.NO_FLOR
        if h.envido_pending:
            return self._verify_envido_answer(h, seat, kind, bool(forced) and exclusive)
        if h.truco_pending:
            return self._verify_truco_answer(h, seat, kind)
        return self._verify_turn(h, seat, kind, card)

    @staticmethod
    def _verify_flor_answer(
        h: HandState, seat: int, kind: ActionKind, exclusive: bool
    ) -> Reason | None:
        """A flor waits for an answer: only the other side's flores answer (R22)."""
        if side_of(seat) != 1 - h.flor_side or (exclusive and not h.flor_holders[seat]):
            return Reason.WAIT_FOR_ANSWER
        return None if kind in _flor_answers(h) else Reason.NOT_ALLOWED

    @staticmethod
    def _verify_declaring(h: HandState, seat: int) -> Reason | None:
        """F6: a flor is declared when its holder could act: any seat while an envido waits,
        the answering side while a truco waits, the seat whose turn it is otherwise."""
        if h.envido_pending:
            return None
        if h.truco_pending:
            return None if side_of(seat) == 1 - h.truco_pending_side else Reason.WAIT_FOR_ANSWER
        return None if seat == h.turn else Reason.NOT_YOUR_TURN

    @staticmethod
    def _verify_envido_answer(
        h: HandState, seat: int, kind: ActionKind, flor_first: bool
    ) -> Reason | None:
        """An envido waits: the other side answers, raises (R16) or leaves (F6: every
        undeclared flor is declared first)."""
        if flor_first:
            return Reason.FLOR_FIRST
        if side_of(seat) == h.envido_side:
            return Reason.WAIT_FOR_ANSWER
        if kind in _envido_answers(h):
            return None
        if kind is K.PLAY:
            return Reason.ANSWER_PENDING
        if kind in ENVIDO_CHANTS:
            return Reason.CANNOT_RAISE_ENVIDO
        if kind in TRUCO_CHANTS and h.truco_pending >= 3:
            return Reason.TRUCO_MAX
        return Reason.NOT_ALLOWED

    @staticmethod
    def _verify_truco_answer(h: HandState, seat: int, kind: ActionKind) -> Reason | None:
        """A truco chant waits: the other side answers, raises, or calls envido first over
        the first truco (R17, F4)."""
        if side_of(seat) == h.truco_pending_side:
            return Reason.WAIT_FOR_ANSWER
        if kind in (K.QUIERO, K.NO_QUIERO, K.MAZO):
            return None
        if kind in TRUCO_CHANTS:
            chant = _truco_answer_raise(h)
            if chant is kind:
                return None
            return chant if chant.__class__ is Reason else Reason.NOT_ALLOWED
        if kind in ENVIDO_CHANTS:
            return _envido_over_truco(h, seat)
        if kind is K.PLAY:
            return Reason.ANSWER_PENDING
        return Reason.NOT_ALLOWED

    @staticmethod
    def _verify_turn(h: HandState, seat: int, kind: ActionKind, card: Card | None) -> Reason | None:
        """Nothing waits: the seat whose turn it is plays, chants or leaves."""
        if kind in _ANSWERS:
            return Reason.NOTHING_TO_ANSWER
        if seat != h.turn:
            return Reason.NOT_YOUR_TURN
        if kind is K.PLAY:
            return None if card in h.held[seat] else Reason.CARD_NOT_IN_HAND
        if kind is K.MAZO:
            return None
        if kind in ENVIDO_CHANTS:
            return _envido_opening(h, seat)
        if kind in TRUCO_CHANTS:
            chant = _truco_raise(h, seat)
            if chant is kind:
                return None
            return chant if chant.__class__ is Reason else Reason.TRUCO_NOT_YOURS
        return Reason.NOT_ALLOWED

    # -- apply -----------------------------------------------------------------------------
    def apply(self, action: AnyAction) -> list[Event]:
        if isinstance(action, Deal):
            events = self._deal(action)
        else:
            action = act(action.seat, action.kind, action.card)  # the interned instance
            for legal in self.legal_actions():
                if legal is action:
                    break
            else:
                raise IllegalActionError(self.why_not(action) or Reason.NOT_ALLOWED, action.code)
            h = self.hand
            assert h is not None
            h.history.append(action)
            if action.kind is not K.PLAY:
                self._heard(h, action)
            events = self._play(action)
        self.step += 1
        self._legal = None
        return events

    def deal_as(self, deal: Deal, duel: int | None) -> list[Event]:
        """(Replays of one hand) deal it as the kind recorded: a redondo (None) or duel `duel`
        of a pica-pica hand, whatever the schedule would say; it ends at its own end."""
        events = self._deal(deal, duel)
        self.step += 1
        self._legal = None
        return events

    def _heard(self, h: HandState, action: Action) -> None:
        pending = h.pending()
        answering = pending.value if pending is not None else None
        seat = action.seat
        before = self.habits[seat]
        after = heard(before, action, answering, len(h.held[seat]) < 3)
        if after is not before:
            self.habits = (*self.habits[:seat], after, *self.habits[seat + 1 :])

    def pica_pica_next(self) -> bool:
        """Whether the hand to be dealt now is a pica-pica hand (R36-R38): in 3v3 with the
        option on, never hand 1; inside the window (the higher score at least 5 and below 25;
        to 15: at least 3 and below 13) it alternates with the redondo, the first one in the
        window being pica-pica; outside it, redondos."""
        config = self.config
        if config.players != 6 or not config.pica_pica or self.hand_number == 0:
            return False
        low, high = (3, 13) if config.target == 15 else (5, 25)
        return low <= max(self.scores) < high and not self.pica

    def _deal(
        self, deal: Deal, recorded: int | Literal["schedule"] | None = "schedule"
    ) -> list[Event]:
        """Deal a hand of the kind the schedule says; `recorded` (replays of one hand): the
        kind recorded instead (None: a redondo; else the duel's index)."""
        if self.phase is not Phase.DEAL:
            raise IllegalActionError(
                Reason.MATCH_OVER if self.phase is Phase.OVER else Reason.NOT_DEALING_NOW
            )
        hands = deal.hands
        seen = {c for hand in hands for c in hand}
        if (
            len(hands) != self.players
            or any(len(hand) != 3 for hand in hands)
            or len(seen) != 3 * self.players
        ):
            raise IllegalActionError(Reason.BAD_DEAL)
        if self.hand is not None:
            # (never changed again: the next hand is a new object)
            self._closed = (*self._closed, self.hand)
        if self.hand_number > 0:
            self.dealer = seats(self.players).next(self.dealer)  # R3
        first: int | None
        if recorded == "schedule":
            self.pica = self.pica_pica_next()
            first = 0 if self.pica else None
        else:
            self.pica = False  # (a replayed duel ends at its own end)
            first = recorded
        self.hand_number += 1
        h = self.hand = HandState(self.hand_number, self.dealer, hands, self.config.flor, first)
        h.start_scores = (self.scores[0], self.scores[1])
        self.phase = Phase.PLAY
        events: list[Event] = [HandDealt(self.hand_number, self.dealer, h.mano)]
        if first is not None:
            events.append(DuelStarted(h.number, first, h.mano, h.table.next(h.mano)))
        return events

    def _play(self, action: Action) -> list[Event]:
        h = self.hand
        assert h is not None
        events: list[Event] = []
        seat, kind = action.seat, action.kind
        if kind is K.PLAY:
            assert action.card is not None
            self._play_card(h, seat, action.card, events)
        elif kind is K.MAZO:
            self._mazo(h, seat, events)
        else:
            h.calls.append((seat, kind))
            if kind is not K.FLOR or h.flor_pending:
                events.append(Chanted(seat, kind))
            if h.flor_pending:
                self._flor_answer(h, seat, kind, events)
            elif kind is K.FLOR:
                self._declare_flor(h, seat, events)
            elif h.envido_pending:
                self._envido_answer(h, seat, kind, events)
            elif kind in ENVIDO_CHANTS:
                h.envido_chain = [kind]
                h.envido_side = side_of(seat)
                h.envido_pending = True
                h.envido_chanted = True
            elif h.truco_pending:
                self._truco_answer(h, seat, kind, events)
            else:  # a truco chant on one's turn
                h.truco_pending = h.truco_level + 1
                h.truco_pending_side = side_of(seat)
        if self.phase is Phase.OVER and self.winner is not None:
            if not h.ended:
                h.ended = True
                events.append(HandEnded(h.number, None, 0, HandEnd.MATCH_OVER, self._shown(h)))
            events.append(MatchEnded(self.winner, (self.scores[0], self.scores[1])))
        return events

    def _score(self, side: int, points: int, reason: ScoreReason, events: list[Event]) -> bool:
        """R25/F10: add points unless the match is already won; True if the match is over."""
        if self.winner is not None:
            return True
        self.scores[side] += points
        events.append(Scored(side, points, reason, self.scores[side]))
        if self.scores[side] >= self.config.target:
            self.winner = side
            self.phase = Phase.OVER
            return True
        return False

    def _end_hand(
        self, h: HandState, winner: int, points: int, reason: HandEnd, events: list[Event]
    ) -> None:
        score_reason = {
            HandEnd.ROUNDS: ScoreReason.HAND,
            HandEnd.NO_QUIERO: ScoreReason.TRUCO_NOT_WANTED,
            HandEnd.MAZO: ScoreReason.MAZO,
        }[reason]
        self._score(winner, points, score_reason, events)
        h.ended = True
        if h.calls:
            self.habits = shown(self.habits, h.calls, h.rounds, h.announced)
        events.append(HandEnded(h.number, winner, points, reason, self._shown(h)))
        if self.phase is Phase.OVER:
            return
        if self.pica and h.duel is not None and h.duel < 2:
            # R39, R43, R44: the next duel of the same deal, whatever the score (only a match
            # won stops the hand, R41)
            self._closed = (*self._closed, h)
            nxt = HandState(h.number, h.dealer, h.dealt, self.config.flor, h.duel + 1)
            nxt.start_scores = (self.scores[0], self.scores[1])
            self.hand = nxt
            events.append(DuelStarted(h.number, h.duel + 1, nxt.mano, nxt.table.next(nxt.mano)))
        else:
            self.phase = Phase.DEAL

    def _shown(self, h: HandState) -> tuple[tuple[int, tuple[Card, ...]], ...]:
        shown: list[tuple[int, tuple[Card, ...]]] = []
        if h.envido_winner is not None:
            shown.append((h.envido_winner, envido_cards(h.dealt[h.envido_winner])))
        for seat in h.flor_shown:
            shown.append((seat, h.dealt[seat]))
        return tuple(shown)

    # -- cards and rounds (R5-R8) ----------------------------------------------------------
    def _play_card(self, h: HandState, seat: int, played: Card, events: list[Event]) -> None:
        h.held[seat].remove(played)
        current = h.rounds[-1]
        current.append((seat, played))
        round_index = len(h.rounds) - 1
        events.append(CardPlayed(seat, played, round_index))
        if len(current) < h.players:
            h.turn = h.table.next(seat)
            return
        top = max(c.strength for _, c in current)
        winners = [s for s, c in current if c.strength == top]
        sides = {side_of(s) for s in winners}
        if len(sides) == 2:  # R6: parda; R7: the same player leads again
            h.results.append(None)
            events.append(RoundWon(round_index, None, None))
        else:
            h.results.append(side_of(winners[0]))
            h.leader = winners[0]  # R7: the first of the top cards to be played
            events.append(RoundWon(round_index, side_of(winners[0]), winners[0]))
        h.turn = h.leader
        decided = self._hand_winner(h)
        if decided is not None:
            self._end_hand(h, decided, h.hand_value(), HandEnd.ROUNDS, events)
        else:
            h.rounds.append([])

    @staticmethod
    def _hand_winner(h: HandState) -> int | None:
        return hand_winner(h.results, side_of(h.mano))

    # -- truco (R9-R13) --------------------------------------------------------------------
    def _truco_answer(self, h: HandState, seat: int, kind: ActionKind, events: list[Event]) -> None:
        level = h.truco_pending
        if kind is K.QUIERO:
            h.truco_level = level
            h.truco_side = side_of(seat)
            h.truco_pending = 0
            h.envido_closed = True  # R15: once a truco is wanted, envido is closed
        elif kind is K.NO_QUIERO:
            h.truco_pending = 0
            self._end_hand(
                h, h.truco_pending_side, truco_not_wanted_value(level), HandEnd.NO_QUIERO, events
            )
        else:  # a raise accepts what came before (R10)
            h.truco_level = level
            h.truco_side = side_of(seat)
            h.truco_pending = level + 1
            h.truco_pending_side = side_of(seat)
            h.envido_closed = True

    # -- envido (R14-R19) ------------------------------------------------------------------
    def _envido_answer(
        self, h: HandState, seat: int, kind: ActionKind, events: list[Event]
    ) -> None:
        chain = h.envido_chain
        if kind is K.QUIERO:
            h.envido_pending = False
            h.envido_closed = True
            values = [envido_value(hand) for hand in h.dealt]
            everyone = list(h.table.all)
            said = h.say_in_turn(everyone, values)
            winner_seat = [w.seat for w in said if w.value is not None][-1]  # the best said
            winner = side_of(winner_seat)
            falta_points = self.config.envido_falta(self.scores, h.duel is not None)
            points = envido_wanted_value(chain, falta_points)
            h.envido_winner = winner_seat  # its cards prove the value at the hand's end
            events.append(EnvidoResolved(True, winner, points, tuple(said)))
            self._score(winner, points, ScoreReason.ENVIDO, events)
        elif kind is K.NO_QUIERO:
            self._envido_not_wanted(h, events)
        else:
            chain.append(kind)
            h.envido_side = side_of(seat)

    def _envido_not_wanted(self, h: HandState, events: list[Event]) -> None:
        h.envido_pending = False
        h.envido_closed = True
        points = envido_not_wanted_value(h.envido_chain)
        events.append(EnvidoResolved(False, h.envido_side, points, ()))
        self._score(h.envido_side, points, ScoreReason.ENVIDO_NOT_WANTED, events)

    # -- flor (R20-R22) --------------------------------------------------------------------
    def _declare_flor(self, h: HandState, seat: int, events: list[Event]) -> None:
        side = side_of(seat)
        h.flor_declared[seat] = True
        h.flor_chanted = True
        events.append(Chanted(seat, K.FLOR))
        if h.envido_pending:  # R21: a flor answers the envido and annuls it
            h.envido_pending = False
            events.append(EnvidoAnnulled(seat))
        h.envido_closed = True  # F6
        contested = any(h.flor_holders[s] for s in h.table.sides[1 - side])
        if contested:
            h.flor_chain = [K.FLOR]
            h.flor_side = side
            h.flor_pending = True
        else:  # F7: nobody can contest it: 3 now
            h.flor_shown.append(seat)
            events.append(FlorResolved(side, FLOR_ALONE, ScoreReason.FLOR, ()))
            self._score(side, FLOR_ALONE, ScoreReason.FLOR, events)

    def _flor_answer(self, h: HandState, seat: int, kind: ActionKind, events: list[Event]) -> None:
        chain = h.flor_chain
        if kind in (K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO):
            chain.append(kind)
            h.flor_side = side_of(seat)
            return
        if kind is K.FLOR:
            h.flor_declared[seat] = True
            self._flor_compare(h, FLOR_CONTESTED, events)
        elif kind is K.CON_FLOR_ME_ACHICO:
            self._flor_award(h, h.flor_side, FLOR_ACHICO, ScoreReason.FLOR_ACHICO, (), events)
        elif kind is K.QUIERO:
            extra = 0
            if chain[-1] is K.CONTRAFLOR_AL_RESTO:  # F7: the falta at the moment it is answered
                extra = falta(self.scores, self.config.target)
            self._flor_compare(h, FLOR_CONTESTED + extra, events)
        else:  # NO_QUIERO to a contraflor al resto
            points = contraflor_al_resto_not_wanted_value(chain)
            self._flor_award(h, h.flor_side, points, ScoreReason.FLOR_NOT_WANTED, (), events)

    def _flor_compare(self, h: HandState, points: int, events: list[Event]) -> None:
        values = [flor_value(hand) if h.flor_holders[i] else -1 for i, hand in enumerate(h.dealt)]
        holders = [s for s in h.table.all if h.flor_holders[s]]
        best = h.best(holders, values)
        assert best is not None
        said = h.say_in_turn(holders, values)  # R22: said as envido values are
        self._flor_award(h, side_of(best[0]), points, ScoreReason.FLOR_CONTEST, tuple(said), events)

    def _flor_award(
        self,
        h: HandState,
        side: int,
        points: int,
        reason: ScoreReason,
        values: tuple[Said, ...],
        events: list[Event],
    ) -> None:
        h.flor_pending = False
        h.flor_closed = True  # F7: one exchange per hand; no more flor points
        flor_values = [flor_value(hand) for hand in h.dealt]
        shown = h.best([s for s in h.table.sides[side] if h.flor_holders[s]], flor_values)
        if shown is not None:
            h.flor_shown.append(shown[0])
        events.append(FlorResolved(side, points, reason, values))
        self._score(side, points, reason, events)

    # -- irse al mazo (R23, R24) -----------------------------------------------------------
    def _mazo(self, h: HandState, seat: int, events: list[Event]) -> None:
        leaving = side_of(seat)
        other = 1 - leaving
        h.calls.append((seat, K.MAZO))
        events.append(WentToMazo(seat))
        if h.envido_pending and h.envido_side == other:  # R23, F4: as not wanted, first
            self._envido_not_wanted(h, events)
            if self.phase is Phase.OVER:
                return
        early = (
            self.config.house_rule
            and not h.results
            and not h.envido_chanted
            and not h.flor_chanted
        )
        if h.truco_pending and h.truco_pending_side == other:
            level = h.truco_pending
            h.truco_pending = 0
            points = truco_not_wanted_value(level)
            if early and level == 1:  # F9: still "worth 1" while the first truco waits
                points = 2
        else:
            points = h.hand_value()
            if early and h.truco_level == 0:
                points = 2  # R24
        self._end_hand(h, other, points, HandEnd.MAZO, events)


def new_match(config: MatchConfig | None = None) -> MatchState:
    return MatchState(config or MatchConfig())


def replay(config: MatchConfig, log: Sequence[AnyAction]) -> MatchState:
    """Rebuild a match from its action log (deals included)."""
    state = MatchState(config)
    for action in log:
        state.apply(action)
    return state


__all__ = [
    "DECK",
    "HandState",
    "MatchConfig",
    "MatchState",
    "Pending",
    "Phase",
    "new_match",
    "replay",
    "side_of",
]
