"""Play: the start of a match, every action (a person's, a computer player's, the timer's),
the flores declared for their holders, the deals from the sealed seed, and señas."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable

from bot.ai.signs import SIGNS, answers_first, signs_to_show
from bot.game import (
    Action,
    ActionKind,
    Card,
    Deal,
    IllegalActionError,
    MatchState,
    Pending,
    new_match,
    random_deal,
)
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.game.ending import DURING
from bot.game.events import (
    Chanted,
    DuelStarted,
    EnvidoAnnulled,
    EnvidoResolved,
    Event,
    FlorResolved,
    HandDealt,
    Scored,
    ScoreReason,
    WentToMazo,
)
from bot.game.fair import fair_deal, new_seed, seed_for_tests
from bot.model.occupants import is_person
from bot.model.outcome import Outcome
from bot.model.refusals import Refused
from bot.model.table import Call, Note, Sign, Table, TableStatus, is_bot
from bot.service.changes import ChangeKind, Conflict, Refusal, SignChange, TableChange
from bot.service.unit import RETRIES, Tables

log = logging.getLogger(__name__)

ANSWERED_BY_EITHER = (Pending.ENVIDO, Pending.TRUCO)
RECENT_CALLS = 24  # a hand's whole betting (a hand rarely has more than a dozen calls)
SIGNS_PER_HAND = 3  # señas one player may show in a hand (each at most once)
Entries = list[tuple[int | None, str]]  # action log entries: (user, action code)


def bot_to_move(table: Table) -> int | None:
    """The computer player's seat the game waits on now, if any. It never answers for a
    person: when a person of its side may answer a chant, it lets them (it only declares its
    own flor, which nobody else can)."""
    state = table.state
    if table.status is not TableStatus.PLAYING or state is None or table.vacated is not None:
        return None
    legal = state.legal_actions()
    bots = sorted({a.seat for a in legal if is_bot(table.seats[a.seat])})
    if not bots:
        return None
    people = any(not is_bot(table.seats[a.seat]) for a in legal)
    if people:
        for seat in bots:
            own = [a for a in legal if a.seat == seat]
            if all(a.kind is ActionKind.FLOR for a in own):
                return seat
        if table.handed == state.step:  # a person of its side handed it the decision
            return bots[0]
        return None
    h = state.hand
    pending = h.pending() if h is not None else None
    partners = len({table.geometry.side(b) for b in bots}) == 1
    if len(bots) > 1 and partners and h is not None and pending in ANSWERED_BY_EITHER:
        # Computer partners may answer: the one whose señas (each showed the others
        # `signs_to_show` of its cards) say the best hand for this chant answers.
        assert pending is not None
        best = bots[0]
        for other in bots[1:]:
            mine, theirs = signs_to_show(h.dealt[best]), signs_to_show(h.dealt[other])
            if not answers_first(mine, theirs, pending.value):
                best = other
        return best
    return bots[0]


def partner_for(table: Table, seat: int) -> int | None:
    """The computer partner who may decide for the person at `seat` now: one who could answer
    the same chant (a person decides, unless they hand it the decision: 🤖 or the timer)."""
    state = table.state
    if state is None or table.status is not TableStatus.PLAYING or table.vacated is not None:
        return None
    acting = {a.seat for a in state.legal_actions()}
    if seat not in acting or is_bot(table.seats[seat]):
        return None
    return next(
        (p for p in table.geometry.partners(seat) if p in acting and is_bot(table.seats[p])),
        None,
    )


def conservative_action(state: MatchState, seat: int) -> Action:
    """What the bot does for a player who ran out of time: declare a flor it must declare,
    refuse a chant waiting for an answer, otherwise play its weakest card."""
    legal = [a for a in state.legal_actions() if a.seat == seat]
    by_kind = {a.kind: a for a in legal}
    for kind in (ActionKind.FLOR, ActionKind.NO_QUIERO, ActionKind.CON_FLOR_ME_ACHICO):
        if kind in by_kind and (kind is not ActionKind.FLOR or len(legal) == 1):
            return by_kind[kind]
    cards = [a for a in legal if a.kind is ActionKind.PLAY and a.card is not None]
    if cards:
        return min(cards, key=lambda a: a.card.strength if a.card else 0)
    return by_kind.get(ActionKind.QUIERO, legal[0])


def what_changed(state: MatchState, action: Action, step: int) -> Refusal | None:
    """A tap from a button drawn at an older `step` (a board or a hand message that fell
    behind): None when it still means what it meant, and is applied; else the refusal, saying
    what changed (`since`: the move that changed it; `answer`: the tapper must now answer it).

    It still means the same when the same action is legal for that seat now, in the same round
    of the same hand, the tapper did nothing since, and what others did since leaves its stake
    as it was: only cards were played (a board one edit behind), or a chant of the other family
    was made (R17: an Envido tapped on a board drawn before the rivals' ¡Truco! is chanted over
    it, as the person asked; the truco waits). Not when anything was answered or a flor
    declared, nor a chant of the tapped one's own family (an Envido that would now raise the
    rivals' envido to four points), nor for an answer (it would answer another chant) or the
    mazo (it would now cost what that chant is worth): the person is told what changed."""
    h = state.hand
    behind = state.step - step
    if behind <= 0 or h is None:
        return Refusal(Refused.STALE)
    if behind > len(h.history):  # a deal in between: another hand
        return Refusal(Refused.STALE_HAND, hand=h.number)
    between = h.history[-behind:]
    theirs = [a for a in between if a.seat != action.seat]
    since = next((a for a in reversed(theirs) if a.kind is not ActionKind.PLAY), None)
    if since is None and theirs:
        since = theirs[-1]
    answer = any(
        a.seat == action.seat and a.kind in (ActionKind.QUIERO, ActionKind.NO_QUIERO)
        for a in state.legal_actions()
    )
    said = [a for a in theirs if a.kind is not ActionKind.PLAY]
    if said and not _chanted_over(action, said):
        # somebody chanted, answered or declared meanwhile: say it (and ask for the answer)
        return Refusal(Refused.STALE, since=since, answer=answer)
    mine = [a for a in between if a.seat == action.seat]
    if mine:
        # a double tap, or a button from before one's own move: their hand message is edited
        # at their next turn (`Planner.shown_at_turn`), so say the card that went
        card = next((a.card for a in mine if a.card is not None), None)
        return Refusal(Refused.STALE, card=card) if card else Refusal(Refused.STALE)
    if not state.is_legal(action):
        return Refusal(Refused.STALE, since=since, answer=answer)  # no longer open
    players = state.players
    plays_now = sum(1 for a in h.history if a.kind is ActionKind.PLAY)
    plays_since = sum(1 for a in between if a.kind is ActionKind.PLAY)
    if (plays_now - plays_since) // players != plays_now // players:
        return Refusal(Refused.STALE_ROUND, since=since)
    return None


CHANT_FAMILIES = (frozenset(TRUCO_CHANTS), frozenset(ENVIDO_CHANTS))


def of_this_hand(state: MatchState, step: int) -> bool:
    """Whether a button drawn at `step` belongs to the hand in play: a seña is of the hand,
    so a hand message a few moves behind (its owner had nothing new to do) still makes one."""
    h = state.hand
    behind = state.step - step
    return h is not None and 0 <= behind <= len(h.history)


def _chanted_over(action: Action, said: list[Action]) -> bool:
    """Whether a chant tapped before the calls `said` (others', in order) keeps its stake:
    each of them a chant of the other family (an envido over the rivals' truco, R17)."""
    family = next((f for f in CHANT_FAMILIES if action.kind in f), None)
    if family is None:  # an answer, the mazo, a card, a flor's call
        return False
    return all(a.kind not in family and any(a.kind in f for f in CHANT_FAMILIES) for a in said)


def people_to_move(table: Table) -> list[int]:
    if table.state is None:
        return []
    seats = sorted({a.seat for a in table.state.legal_actions()})
    return [s for s in seats if not is_bot(table.seats[s])]


def calls_of(events: list[Event]) -> list[Call]:
    """The lines of a table's recent calls that these events add (None: a new hand began)."""
    out: list[Call] = []
    for event in events:
        if isinstance(event, Chanted):
            out.append(Call(event.seat, event.kind))
        elif isinstance(event, WentToMazo):
            out.append(Call(event.seat, Note.MAZO))
        elif isinstance(event, EnvidoResolved) and event.wanted:
            values = tuple((w.seat, w.value) for w in event.values)
            out.append(Call(None, Note.ENVIDO_VALUES, values))
        elif isinstance(event, FlorResolved) and event.values:
            out.append(Call(None, Note.FLOR_VALUES, tuple((w.seat, w.value) for w in event.values)))
        elif isinstance(event, EnvidoAnnulled):
            out.append(Call(event.seat, Note.ENVIDO_ANNULLED))
        elif isinstance(event, Scored) and event.reason in DURING:
            envido = event.reason in (ScoreReason.ENVIDO, ScoreReason.ENVIDO_NOT_WANTED)
            note = Note.ENVIDO_SCORED if envido else Note.FLOR_SCORED
            out.append(Call(None, note, ((event.side, event.points),)))
    return out


def remember_calls(table: Table, events: list[Event]) -> None:
    for index, event in enumerate(events):
        if isinstance(event, HandDealt | DuelStarted):  # a new hand's (or duel's) calls
            table.calls = calls_of(events[index + 1 :])
            break
    else:
        table.calls += calls_of(events)
    del table.calls[:-RECENT_CALLS]


class Play:
    def __init__(
        self,
        tables: Tables,
        *,
        seed: int | None = None,
        sign_catch_chance: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tables = tables
        self.seed = seed
        self.sign_catch_chance = sign_catch_chance
        self.clock = clock

    # -- the start ---------------------------------------------------------------------------------
    def start(self, table: Table) -> tuple[list[Event], Entries]:
        """Deal the first hand (the table's seat list is full): the caller commits."""
        state = new_match(table.config)
        table.seed = new_seed() if self.seed is None else seed_for_tests(self.seed, table.id)
        deal = self._deal(table, 1)
        events = state.apply(deal)
        table.state = state
        table.status = TableStatus.PLAYING
        table.started_at = self.clock()
        table.calls = []
        entries: Entries = [(None, deal.code)]
        forced, forced_entries = self._declare_forced_flores(table)
        events += forced
        entries += forced_entries
        remember_calls(table, forced)
        self.arm(table)
        return events, entries

    def _deal(self, table: Table, hand_number: int) -> Deal:
        """The deal of a hand, drawn from the table's committed seed (bot/game/fair.py)."""
        if table.seed is None:  # a match started before seeds existed
            return random_deal(random.SystemRandom(), table.config.players)
        return fair_deal(table.seed, hand_number, table.config.players)

    @staticmethod
    def _declare_forced_flores(table: Table) -> tuple[list[Event], Entries]:
        """F6: a seat holding an undeclared flor may do nothing but declare it whenever it could
        act. Where that is a seat's only legal action, it is declared for them at once (nearest
        the mano first): no button for a forced move, and nothing shown that a holder could not
        use. A flor *answer* (flor, contraflor, con flor me achico) stays the holder's choice."""
        state = table.state
        assert state is not None
        events: list[Event] = []
        entries: Entries = []
        while state.hand is not None and not state.is_over:
            by_seat: dict[int, list[Action]] = {}
            for action in state.legal_actions():
                by_seat.setdefault(action.seat, []).append(action)
            forced = [
                own[0]
                for own in by_seat.values()
                if len(own) == 1 and own[0].kind is ActionKind.FLOR
            ]
            if not forced:
                break
            order = state.hand.order_from_mano()
            action = min(forced, key=lambda a: order.index(a.seat))
            events += state.apply(action)
            entries.append((None, action.code))  # declared for them, not a tap
        return events, entries

    def arm(self, table: Table) -> None:
        """Set the deadline of whoever the game now waits on (none without a timer, and none
        for a computer player: it never runs out of time)."""
        playing = table.status is TableStatus.PLAYING and table.state is not None
        handed = playing and table.state is not None and table.handed == table.state.step
        waits_on_people = playing and bool(people_to_move(table)) and not handed
        table.deadline = (
            self.clock() + table.turn_seconds if waits_on_people and table.turn_seconds else None
        )

    # -- actions -----------------------------------------------------------------------------------
    async def act(
        self,
        table_id: int,
        user_id: int,
        step: int,
        kind: ActionKind,
        card: Card | None,
        in_chat: bool = False,
    ) -> TableChange:
        """A person's action, decided on the table at `step` (`in_chat`: tapped in a chat, not
        on a web page)."""
        started = time.perf_counter()
        for attempt in range(RETRIES):
            async with self.tables.locked(table_id):
                table, seat = await self.in_play(table_id, user_id)
                assert table.state is not None
                if (kind is ActionKind.PLAY) != (card is not None):
                    raise Refusal(Refused.BAD_BUTTON)
                if step != table.state.step:
                    changed = what_changed(table.state, Action(seat, kind, card), step)
                    if changed is not None:
                        raise changed
                try:
                    change = await self.apply(
                        table, user_id, Action(seat, kind, card),
                        in_chat=user_id if in_chat else None,
                    )  # fmt: skip
                    break
                except Conflict:
                    # Another process saved the table first without moving the game (a
                    # reminder, a message id): the tap still counts, on the table as it is.
                    if attempt == RETRIES - 1:
                        raise
        took_ms = (time.perf_counter() - started) * 1000
        assert change.action is not None
        log.info(
            "action table=%s user=%s seat=%s action=%s step=%s took_ms=%.1f",
            table_id, user_id, change.seat, change.action.code, step, took_ms,
        )  # fmt: skip
        return change

    async def in_play(self, table_id: int, user_id: int) -> tuple[Table, int]:
        """The match in play and the user's seat at it (the caller holds the lock), or the
        refusal: no match, not seated, or paused for an empty seat."""
        table = await self.tables.get(table_id)
        if table is not None and table.in_line:  # (full, waiting for its turn to start)
            raise Refusal(Refused.IN_LINE, place=await self.tables.place_in_line(table))
        if table is None or table.status is not TableStatus.PLAYING or table.state is None:
            raise Refusal(Refused.NO_GAME)
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refusal(Refused.NOT_SEATED)
        if table.vacated is not None:
            raise Refusal(Refused.PAUSED)
        return table, seat

    async def apply(
        self,
        table: Table,
        user_id: int,
        action: Action,
        timed_out: bool = False,
        in_chat: int | None = None,
    ) -> TableChange:
        """Apply, deal the next hand if due, and commit; the caller holds the table's lock."""
        state = table.state
        assert state is not None
        first_seq = state.step
        waiting_before = frozenset(self.tables.waiting_users(table))
        try:
            events = state.apply(action)
        except IllegalActionError as error:
            raise Refusal(Refused.ILLEGAL, reason=error.reason) from None
        entries: Entries = [(user_id, action.code)]
        if state.needs_deal:
            deal = self._deal(table, state.hand_number + 1)
            events += state.apply(deal)
            entries.append((None, deal.code))
        forced, forced_entries = self._declare_forced_flores(table)
        events += forced
        entries += forced_entries
        remember_calls(table, events)
        if state.is_over and state.winner is not None:
            table.status = TableStatus.FINISHED
            table.ended_at = self.clock()
            table.outcome = Outcome.reached(state.winner, table.scores)
        if not timed_out:
            table.strikes[table.geometry.side(action.seat)] = 0
        if is_person(user_id):
            if timed_out:  # the timer played for them: they are not looking
                table.acted.pop(user_id, None)
            else:
                table.acted[user_id] = self.clock()
                if user_id not in table.came:
                    table.came.append(user_id)
        self.arm(table)
        change = TableChange(
            ChangeKind.ACTION, table, table.chat_id, tuple(events), user_id, action.seat, action,
            timed_out, waiting_before, in_chat=in_chat,
        )  # fmt: skip
        await self.tables.commit(table, change, entries, first_seq)
        return change

    async def bot_act(
        self, table_id: int, seat: int, step: int, action: Action, in_chat: int | None = None
    ) -> TableChange | None:
        """A computer player's move, decided for `step`: applied only if the game is still
        there and waits on that seat (a late or doubled decision changes nothing; `in_chat`:
        the change it follows was a tap in that person's chat)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.state is None or table.state.step != step:
                return None
            if bot_to_move(table) != seat or action.seat != seat:
                return None
            user = table.seats[seat]
            assert user is not None
            if not table.state.is_legal(action):
                log.warning("bot offered an illegal action table=%s %s", table.id, action.code)
                return None
            change = await self.apply(table, user, action, in_chat=in_chat)
        log.info("bot action table=%s seat=%s action=%s step=%s", table.id, seat, action.code, step)
        return change

    async def hand_off(
        self,
        table_id: int,
        user_id: int,
        step: int,
        timed_out: bool = False,
        in_chat: bool = False,
    ) -> TableChange:
        """🤖 Que decida: a person hands the chant their side must answer to their computer
        partner (or the timer does, when their time runs out)."""
        async with self.tables.locked(table_id):
            table, seat = await self.in_play(table_id, user_id)
            assert table.state is not None
            if step != table.state.step:
                raise Refusal(Refused.STALE)
            return await self.handed(table, seat, timed_out, user_id if in_chat else None)

    async def handed(
        self, table: Table, seat: int, timed_out: bool = False, in_chat: int | None = None
    ) -> TableChange:
        """The decision of `seat`'s side goes to its computer partner; the caller holds the lock."""
        assert table.state is not None
        partner = partner_for(table, seat)
        if partner is None:
            raise Refusal(Refused.NO_PARTNER_TO_HAND)
        table.handed = table.state.step
        user = table.seats[seat]
        if not timed_out and is_person(user) and user not in table.came:
            table.came.append(user)  # (a tap: they came)
        self.arm(table)  # nobody's clock runs while the partner thinks
        change = TableChange(
            ChangeKind.HANDED, table, table.chat_id, actor=table.seats[seat], seat=partner,
            timed_out=timed_out, in_chat=in_chat,
        )  # fmt: skip
        await self.tables.commit(table, change)
        return change

    # -- señas -------------------------------------------------------------------------------------
    async def sign(
        self, table_id: int, user_id: int, step: int, sign: str, in_chat: bool = False
    ) -> SignChange:
        """A person shows their partners a seña (2v2, a 3v3 redondo); each rival may catch it.
        The seña is part of the match: committed with the table (`Table.signs`)."""
        if sign not in SIGNS:
            raise Refusal(Refused.BAD_BUTTON)
        for attempt in range(RETRIES):
            async with self.tables.locked(table_id):
                table = await self.tables.get(table_id)
                if table is None or table.state is None or table.status is not TableStatus.PLAYING:
                    raise Refusal(Refused.NO_GAME)
                seat = table.seat_of(user_id)
                if seat is None:
                    raise Refusal(Refused.NOT_SEATED)
                if not table.geometry.partners(seat):
                    raise Refusal(Refused.ONLY_2V2)
                hand = table.state.hand
                if hand is not None and hand.duel is not None:
                    raise Refusal(Refused.NO_SIGNS_IN_DUELS)
                if not of_this_hand(table.state, step):
                    raise Refusal(Refused.STALE)
                shown = [s.sign for s in table.hand_signs() if s.seat == seat]
                if sign in shown:
                    raise Refusal(Refused.SIGN_REPEATED)
                if len(shown) >= SIGNS_PER_HAND:
                    raise Refusal(Refused.SIGNS_SPENT)
                try:
                    return await self._signed(
                        table, seat, sign, user_id, user_id if in_chat else None
                    )
                except Conflict:  # another process saved the table first: look again
                    if attempt == RETRIES - 1:
                        raise
        raise AssertionError("unreachable")  # (the last attempt returned or raised)

    async def bot_signs(
        self, table_id: int, seat: int, hand: int, signs: list[str], in_chat: int | None = None
    ) -> None:
        """A computer player shows its partners (people among them) its señas for hand `hand`:
        once (a seña the table already holds is not made again: after a restart, or when
        another worker made it first)."""
        for sign in signs:
            async with self.tables.locked(table_id):
                table = await self.tables.get(table_id)
                if (
                    table is None or table.state is None
                    or table.status is not TableStatus.PLAYING
                    or table.state.hand_number != hand
                    or any(s.seat == seat and s.sign == sign for s in table.hand_signs())
                ):  # fmt: skip
                    continue
                try:
                    await self._signed(table, seat, sign, None, in_chat)
                except (Conflict, Refusal):  # the table moved on meanwhile: nothing to show
                    log.info("seña of table=%s seat=%s not made: the table changed", table_id, seat)

    async def _signed(
        self, table: Table, seat: int, sign: str, actor: int | None, in_chat: int | None
    ) -> SignChange:
        """Make the seña (the caller holds the table's lock): who catches it, then the commit."""
        assert table.state is not None
        step = table.state.step
        chance = self.sign_catch_chance
        seed = self.seed
        rng = random.Random(None if seed is None else f"{seed}:{table.id}:{step}:{seat}:{sign}")
        caught = tuple(
            rival
            for rival in table.geometry.rivals(seat)
            if is_person(table.seats[rival]) and rng.random() < chance
        )
        table.signs.append(Sign(table.state.hand_number, step, seat, sign, caught))
        change = SignChange(table, seat, sign, actor, caught, in_chat=in_chat)
        await self.tables.commit(table, change)
        return change
