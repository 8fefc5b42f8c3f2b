"""What one seat (or the whole table) may see: views and AI players read only this."""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.actions import Action, ActionKind
from bot.game.cards import Card
from bot.game.habits import Habits
from bot.game.past import PastHand
from bot.game.state import MatchConfig, MatchState, Pending, Phase, side_of


@dataclass(frozen=True, slots=True)
class Observation:
    seat: int | None  # None: the public view of the table
    config: MatchConfig
    step: int
    scores: tuple[int, int]
    phase: Phase
    winner: int | None
    hand_number: int
    dealer: int
    mano: int
    turn: int | None
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    results: tuple[int | None, ...]
    hand_value: int
    truco_level: int
    pending: Pending | None
    pending_chant: ActionKind | None  # the chant waiting for an answer
    pending_side: int | None  # the side that made it; the other side answers
    waiting_on: tuple[int, ...]  # seats the table waits on, as everybody can tell
    calls: tuple[tuple[int, ActionKind], ...]
    cards_left: tuple[int, ...]
    flor_declared: tuple[bool, ...]
    cards: tuple[Card, ...]  # this seat's cards still in hand; empty in the public view
    dealt: tuple[Card, ...]  # this seat's three cards of the hand; empty in the public view
    actions: tuple[Action, ...]  # seat: its legal actions; public: what the board may offer
    history: tuple[Action, ...] = ()  # this hand's actions in order: cards and chants, public
    start_scores: tuple[int, int] = (0, 0)  # the scores when this hand was dealt
    announced: tuple[tuple[int, int], ...] = ()  # (seat, value): envido and flor said aloud
    # (seat, value, ties too): a "son buenas" said over that value (R19): the seat's value is
    # lower, or equal when `ties too`
    son_buenas: tuple[tuple[int, int, bool], ...] = ()
    habits: tuple[Habits, ...] = ()  # per seat: what the table has seen of their play
    past: tuple[PastHand, ...] = ()  # what the table saw of each hand played before this one
    # A pica-pica hand (R39): the duel on (0, 1, 2) and its two seats, the duel mano first;
    # None in a redondo.
    duel: int | None = None
    duel_seats: tuple[int, int] | None = None


def observe(state: MatchState, seat: int | None = None) -> Observation:
    h = state.hand
    if seat is not None:
        actions = tuple(a for a in state.legal_actions() if a.seat == seat)
    else:
        actions = tuple(state.public_actions())
    if h is None:
        return Observation(
            seat, state.config, state.step, (state.scores[0], state.scores[1]), state.phase,
            state.winner, 0, state.dealer, (state.dealer + 1) % state.players, None, (), (),
            1, 0, None, None, None, (), (), (3,) * state.players, (False,) * state.players,
            (), (), actions, habits=state.habits, past=state.past,
        )  # fmt: skip
    pending = h.pending() if state.phase is Phase.PLAY else None
    chant: ActionKind | None = None
    pending_side: int | None = None
    if pending is Pending.FLOR:
        chant, pending_side = h.flor_chain[-1], h.flor_side
    elif pending is Pending.ENVIDO:
        chant, pending_side = h.envido_chain[-1], h.envido_side
    elif pending is Pending.TRUCO:
        chant = (ActionKind.TRUCO, ActionKind.RETRUCO, ActionKind.VALE_CUATRO)[h.truco_pending - 1]
        pending_side = h.truco_pending_side
    if state.phase is not Phase.PLAY:
        waiting: tuple[int, ...] = ()
    elif pending_side is not None:
        waiting = tuple(s for s in h.table.all if side_of(s) != pending_side)
    else:
        waiting = (h.turn,)
    own = seat is not None
    return Observation(
        seat=seat,
        config=state.config,
        step=state.step,
        scores=(state.scores[0], state.scores[1]),
        phase=state.phase,
        winner=state.winner,
        hand_number=h.number,
        dealer=h.dealer,
        mano=h.mano,
        turn=h.turn if state.phase is Phase.PLAY else None,
        rounds=tuple(tuple(r) for r in h.rounds if r),
        results=tuple(h.results),
        hand_value=h.hand_value(),
        truco_level=h.truco_level,
        pending=pending,
        pending_chant=chant,
        pending_side=pending_side,
        waiting_on=waiting,
        calls=tuple(h.calls),
        cards_left=tuple(len(cards) for cards in h.held),
        flor_declared=tuple(h.flor_declared),
        cards=tuple(h.held[seat]) if own and seat is not None else (),
        dealt=tuple(h.dealt[seat]) if own and seat is not None else (),
        actions=actions,
        history=tuple(h.history),
        start_scores=h.start_scores,
        announced=tuple(h.announced),
        son_buenas=tuple(h.son_buenas),
        habits=state.habits,
        past=state.past,
        duel=h.duel,
        duel_seats=None if h.duel is None else (h.mano, h.table.next(h.mano)),
    )
