"""What the bot says in Telegram about each change of the core: a subscriber that, inside the
commit, decides the outbox rows (the lobby or board to refresh, hand messages to refresh or
send anew, the end of a match), and after it wakes the sender.

Texts that depend on the moment (a timeout, a seña) are rendered here; a lobby, board or hand
renders the latest committed state when it goes out (`delivery.py`), so a burst of actions
costs one edit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC
from html import escape

from bot.game.actions import ActionKind
from bot.game.events import Chanted, EnvidoResolved, HandDealt
from bot.i18n import translator
from bot.model.daily import DailyNote
from bot.model.outbox import POST, Outgoing, Planned, Record, RowKind
from bot.model.table import HandPlace, PlaceKind, Table, TableStatus
from bot.service.changes import (
    Change,
    ChangeKind,
    DailyChange,
    SignChange,
    TableChange,
    TourneyChange,
)
from bot.service.mailbox import Mailbox
from bot.service.people import People
from bot.service.presence import Presence, Writer
from bot.service.turns import VACATED_SECONDS
from bot.service.unit import Tables
from bot.telegram.records import NOTIFIED, NOTIFY, board_record, new_join_record
from bot.telegram.rows import (
    board_row,
    close_row,
    daily_row,
    hand_row,
    lobby_row,
    match_end_row,
    note_row,
    shown_row,
    sign_menu_row,
    tag_row,
    text_row,
    tourney_row,
)
from bot.tourney.model import Tournament
from bot.tourney.news import news_of, redraws_bracket, starts_final, steps_after
from bot.tourney.service import Tournaments
from bot.tourney.views import (
    final_started_text,
    match_notice,
    news_text,
    people_of,
    rest_notice,
    step_text,
)
from bot.views.common import (
    Keys,
    Seating,
    card_name,
    mark_first,
    rules_line,
    seating_at,
    short_name,
)
from bot.views.daily import close_text
from bot.views.lobby import practice_text
from bot.views.review import review_keys
from bot.views.summary import private_ending
from bot.views.table import kind_label, rematch_keys, vacated_keys

ATTENTIVE_SECONDS = 20.0  # acted this recently: looking at the chat, no need to notify
BUZZED_REMEMBERED = 50_000  # (table, person) pairs whose last notifying hand is remembered
NOTE_EVERY = 3600.0  # /avisame: at most one note a person this often (records.py: NOTIFIED)
RUNG_REMEMBERED = 50_000  # tables whose last ring-out's hand is remembered
# The big moments that ring out in the group as a new message (the rest are the board's edits)
RINGING = (ActionKind.VALE_CUATRO, ActionKind.CONTRAFLOR, ActionKind.CONTRAFLOR_AL_RESTO)
# Telegram's 🎉 message effect (`message_effect_id`, private chats only, Bot API 7.4): the
# identifier its clients show for the confetti among the free effects
WIN_EFFECT = "5046509860389126442"


class Planner:
    def __init__(
        self,
        tables: Tables,
        people: People,
        sender: Mailbox,
        tournaments: Tournaments,
        presence: Presence | None = None,
    ) -> None:
        self.tables = tables
        self.people = people
        self.sender = sender
        self.tournaments = tournaments
        # Who has a table's web page open: their hand message waits until it closes
        self.presence = presence
        if presence is not None:
            presence.converge = self.converge
        # When each player's hand last came as a new message (it notified): one sent a moment
        # ago is being looked at, and is edited, not deleted and sent again (the oldest are
        # forgotten: that costs at most one more new message).
        self._buzzed: OrderedDict[tuple[int, int], float] = OrderedDict()
        # The hand of each table's last ring-out: at most one a hand.
        self._rung: OrderedDict[int, int] = OrderedDict()

    def _buzz(self, table: Table, user: int) -> None:
        key = (table.id, user)
        self._buzzed[key] = self.tables.clock()
        self._buzzed.move_to_end(key)
        if len(self._buzzed) > BUZZED_REMEMBERED:
            self._buzzed.popitem(last=False)

    def _loud_hands(self, table: Table, first: bool = False) -> list[Outgoing]:
        """Every player's hand as a new message (the match starts; `first`: before anything
        else waiting, in their chat and for the bot's budget)."""
        for user in table.players:
            self._buzz(table, user)
        return [hand_row(table, u, loud=True, first=first) for u in table.players]

    # -- a subscriber of the core ----------------------------------------------------------------
    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        self.sender.wake(rows)

    async def plan(self, change: Change) -> Sequence[Planned]:
        planned = await self._plan(change)
        if self.presence is None or not isinstance(change, TableChange | SignChange):
            return planned
        quiet = [p for p in planned if _refresh_of_hand(p)]
        if not quiet:
            return planned
        # A person with the table's web page open sees it there, live: their hand message is
        # not edited meanwhile (a notifying one still goes: it is their turn and they were
        # away), unless the change answers their own tap in the chat (`in_chat`).
        watching = await self.presence.watching(change.the_table.id)
        if change.in_chat is not None:
            watching -= {change.in_chat}
        if not watching:
            return planned
        return [
            p for p in planned
            if not (isinstance(p, Outgoing) and _refresh_of_hand(p) and p.chat_id in watching)
        ]  # fmt: skip

    # -- what a tap shows its tapper alone (asked by the handlers; no change of the table) ------
    async def show_hand(self, table: Table, user_id: int, query_id: str) -> None:
        """The person's hand, in the group under the board, seen by them alone, anew."""
        await self.sender.send([shown_row(table, user_id, query_id)])

    async def show_sign_menu(self, table: Table, user_id: int, step: int) -> None:
        """The menu of señas, in place of the hand's buttons."""
        await self.sender.send([sign_menu_row(table, user_id, step)])

    async def show_hand_again(self, table: Table, user_id: int) -> None:
        """The person's hand message as the table stands (back from the señas' menu)."""
        await self.sender.send([hand_row(table, user_id, urgent=True)])

    async def converge(self, table_id: int, user_id: int, also: Writer) -> None:
        """The person closed the table's web page: their hand message shows the table as it
        is now (one edit, none if it shows that already), written with `also`."""
        table = await self.tables.get(table_id)
        rows = []
        if table is not None and table.state is not None and user_id in table.players:
            rows = [hand_row(table, user_id, urgent=True)]
        await self.sender.send(rows, also=also)

    async def _plan(self, change: Change) -> Sequence[Planned]:
        if change.kind is ChangeKind.CHAT:
            return []  # settings whose rows the command gives itself
        if change.kind is ChangeKind.TOURNEY:
            return await self._tourney(change)
        if change.kind is ChangeKind.DAILY:
            return await self._daily(change)
        kind = change.kind
        table = change.the_table
        if table.place is PlaceKind.TRYOUT:
            return []  # the web try-out's: no Telegram chat, no Telegram person at it
        t = translator(table.language)
        if kind is ChangeKind.HINTED:
            return []  # kept with the table (the match is marked so); the hint is the tapper's
        if kind is ChangeKind.HANDED:  # the hander's buttons go: their partner decides
            return [hand_row(table, u) for u in table.players if u == change.actor]
        if table.tournament is not None:
            # A tournament's match is played in private chats (and on the web table): the
            # group gets the tournament's bracket and results, not a board per match, which
            # keeps a round of many matches within the group's few messages a minute.
            return await self._private_table(change)
        if table.practice:  # its place is the player's private chat
            return await self._private_table(change)
        if change.kind is ChangeKind.SIGN:
            return await self._sign(change)
        if kind is ChangeKind.OPENED:
            return [lobby_row(table), new_join_record(table.id), *await self._notes(table)]
        if kind is ChangeKind.LOBBY:
            return [lobby_row(table)]
        if kind is ChangeKind.STARTED:
            # (a table that waited in line: the group told, as its board takes the lobby's place)
            told = [text_row(table.chat_id, t("queue.started"), table.thread_id)]
            # (its first deal goes before any other table's refreshes: people just sat down)
            hands = self._loud_hands(table, first=True)
            return [*(told if table.queued else []), board_row(table), *hands]
        if kind is ChangeKind.QUEUED:
            # One call, not two: the lobby itself says the table waits, its place and why
            # (the joiner's answer told them at once); nobody has to act until it starts, and
            # that is said in a message that notifies (`queue.started`, the loud hands).
            return [lobby_row(table)]
        if kind is ChangeKind.EXPIRED:
            return [close_row(table, "lobby.expired")]
        if kind is ChangeKind.CANCELLED:
            playing = change.was is TableStatus.PLAYING
            rows = [close_row(table, "match.cancelled" if playing else "lobby.cancelled")]
            return rows + ([hand_row(table, u) for u in table.players] if playing else [])
        if kind is ChangeKind.CHAT_GONE:
            return [hand_row(table, u) for u in table.players] if table.state else []
        if kind is ChangeKind.MOVED:  # the old group's message is not the new one's
            forget: list[Planned] = [board_record(table.id, None)]
            if table.status is TableStatus.LOBBY:
                return [*forget, lobby_row(table)]
            return [*forget, board_row(table), *(hand_row(table, u) for u in table.players)]
        said = await self._said(change)
        if kind is ChangeKind.VACATED:
            keys = vacated_keys(t, table.id)
            return [text_row(table.chat_id, said, table.thread_id, keys), board_row(table)]
        if kind is ChangeKind.BOT_IN:
            rows = [text_row(table.chat_id, said, table.thread_id), board_row(table)]
            return rows + [hand_row(table, u) for u in table.players]
        if kind is ChangeKind.REMIND:
            return await self._reminders(table)
        told = [text_row(table.chat_id, said, table.thread_id)] if said else []
        if kind is ChangeKind.CONCEDED:
            return told + await self._match_over(table, change.tapper)
        return told + await self._after_action(change)

    async def _notes(self, table: Table) -> list[Planned]:
        """/avisame: a table opened in a group; each person who asked there for a note gets
        one in private (not whoever is already seated), at most one an hour a person."""
        watchers = await self.tables.records.of(NOTIFY, table.chat_id)
        if not watchers:
            return []
        t = translator(table.language)
        now = self.tables.clock()
        missing = sum(1 for user in table.seats if user is None)
        planned: list[Planned] = []
        for name, title in watchers.items():
            user = int(name) if name.isascii() and name.isdigit() else 0
            if not user or user in table.seats or user == table.opener_id:
                continue
            last = (await self.tables.records.of(NOTIFIED, user)).get(NOTIFIED)
            if last is not None and now - float(last) < NOTE_EVERY:
                continue
            group = f"<b>{escape(title)}</b>" if title else t("avisame.the_group")
            rules = rules_line(t, table.config)
            text = t("avisame.note", group=group, rules=rules, count=missing)
            # (whether they are still in the group is asked where the note is delivered:
            # not here, inside the commit, under the table's lock)
            planned += [note_row(user, text, table.chat_id, key=f"note:{table.id}:{user}")]
            planned.append(Record(NOTIFIED, user, NOTIFIED, repr(now)))
        return planned

    async def _said(self, change: TableChange) -> str:
        """The line a change of a table says of itself, where it says one: a seat left empty,
        a computer player in it, what the timer did ("" for any other change)."""
        table = change.the_table
        seat = change.seat
        kind = change.kind
        if seat is None or not (
            change.timed_out or kind in (ChangeKind.VACATED, ChangeKind.BOT_IN)
        ):
            return ""  # (most changes: said without reading a name)
        t = translator(table.language)
        who = await self.who(table)
        if kind is ChangeKind.VACATED:
            key = "vacated.timeout" if change.timed_out else "vacated.left"
            partners = who.either(t, table.geometry.partners(seat))
            return t(key, name=who.seat(seat), partner=partners, count=VACATED_SECONDS // 60)
        if kind is ChangeKind.BOT_IN:
            return t("vacated.bot_in", name=who.seat(seat))
        if not change.timed_out:
            return ""
        if kind is ChangeKind.CONCEDED:
            side = table.geometry.side(seat)
            return t("timeout.conceded", side=who.side(t, side), count=who.size(side))
        action = change.action
        if action is None:
            return ""
        what = (
            t("timeout.card", card=card_name(t, action.card))
            if action.card is not None
            else t("timeout.said", chant=kind_label(t, action.kind))
        )
        return t("timeout.acted", name=who.seat(seat), action=what)

    async def _tourney(self, change: TourneyChange[Tournament]) -> list[Outgoing]:
        """A tournament's change: its group message redrawn, and what the tournament tells
        (`news_of`), worded: a message in the group, notes in private, the champion's tag."""
        tour = change.tournament
        t = translator(tour.language)
        news = news_of(change)
        rows = [tourney_row(tour.chat_id, tour.id)]
        names = await self.people.names(people_of(tour)) if news.group else {}
        lines = (news_text(t, tour, said, change.results, names, UTC) for said in news.group)
        text = "\n\n".join(x for x in lines if x)
        if text:
            rows.append(text_row(tour.chat_id, text, tour.thread_id))
        if news.signed is not None:
            said = news_text(t, tour, news.signed, change.results, names, UTC)
            rows += [text_row(u, said) for u in tour.signed]
        for fixture, people in news.resting:
            rest = rest_notice(t, tour, fixture)
            if rest is not None:
                rows += [text_row(u, rest) for u in people]
        for user in news.crowned:  # each champion told in private, and tagged in the group
            said = t("tourney.champion_private", number=tour.number)
            rows.append(text_row(user, said, key=f"crowned:{tour.id}:{user}"))
            rows.append(tag_row(tour.chat_id, user, t("tourney.champion_tag")))
        return rows

    async def _daily(self, change: DailyChange) -> list[Outgoing]:
        """A hand of the day: its message (sent, then how many answered, then closed); at the
        close, the answer told in the group (a message that notifies)."""
        hand = change.hand
        rows = [daily_row(hand.chat_id, hand.id)]
        closing = change.closing
        if change.note is DailyNote.CLOSED and closing is not None:
            t = translator(hand.language)
            people = [a.user_id for a in closing.answers]
            people += [s.user_id for s in closing.month]
            people += [hand.user_id] if hand.user_id is not None and closing.named else []
            names = await self.people.names(people)
            said = close_text(t, hand, closing, {u: escape(n) for u, n in names.items()})
            rows.append(text_row(hand.chat_id, said, key=f"daily_close:{hand.id}"))
        return rows

    async def _private_table(self, change: TableChange | SignChange) -> list[Outgoing]:
        """What a table played in private chats says, all of it there: a tournament's match
        (each player's chat), or a practice (its place is the player's own chat, where the
        hand message is the board too)."""
        table = change.the_table
        kind = change.kind
        t = translator(table.language)
        practice = table.tournament is None
        if kind is ChangeKind.STARTED:
            rows = await self._match_notices(table, told=True) if not practice else [
                text_row(table.chat_id, practice_text(t, table, await self.people.at(table)))
            ]  # fmt: skip
            if practice and table.queued:  # (it waited in line)
                rows.insert(0, text_row(table.chat_id, t("queue.started_here")))
            return rows + self._loud_hands(table)
        if isinstance(change, TableChange) and kind is ChangeKind.QUEUED:
            # a practice waits in line (a tournament's match never does)
            return [text_row(table.chat_id, t("queue.queued_here", place=change.place))]
        if kind in (ChangeKind.OPENED, ChangeKind.LOBBY, ChangeKind.MOVED):
            return []
        if kind is ChangeKind.REMIND:  # in private only (no mention meant for a group)
            return await self._reminders(table, in_group=False)
        if kind in (ChangeKind.CANCELLED, ChangeKind.CHAT_GONE):
            return [hand_row(table, u) for u in table.players] if table.state else []
        if change.kind is ChangeKind.SIGN:
            if practice:  # (its señas are lines of the person's hand message, as a hand shown
                # in the group has them: a message each, they came by the dozen, notifying)
                return [hand_row(table, u, urgent=u == change.actor) for u in table.players]
            rows = await self._sign(change)
            return [r for r in rows if r.chat_id != table.chat_id]
        said = await self._said(change)
        # (a seat left empty: its partners choose there, in private, as in the group)
        keys = vacated_keys(t, table.id) if kind is ChangeKind.VACATED else None
        rows = [text_row(u, said, markup=keys) for u in table.players] if said else []
        over = table.state is not None and table.state.is_over
        if kind is ChangeKind.CONCEDED or over:
            # the last hand's edit first, then the end (each in its chat, in this order)
            rows += [final(hand_row(table, u, urgent=u == change.tapper)) for u in table.players]
            steps = None if practice else await self._next_steps(table)
            return rows + await self._private_endings(table, again=practice, next_steps=steps)
        if kind in (ChangeKind.VACATED, ChangeKind.BOT_IN):
            return rows + [hand_row(table, u) for u in table.players]
        if kind is ChangeKind.ACTION:
            rows += self._hands_after(change)
            if not practice and isinstance(change, TableChange) and redraws_bracket(change):
                rows += await self._live_score(table)
        return rows

    async def _live_score(self, table: Table) -> list[Outgoing]:
        """A tournament match's hand ended: its bracket shows the new score (a keyed refresh,
        coalesced at the group's pace)."""
        assert table.tournament is not None
        tour = await self.tournaments.get(table.tournament.tournament)
        return [tourney_row(tour.chat_id, tour.id)] if tour is not None else []

    async def _next_steps(self, table: Table) -> dict[int, str] | None:
        """Each player of a knockout's match that decided its tie: where they go now
        ("Pasás a semifinales", "Quedaste afuera en cuartos"; `steps_after` decides)."""
        tie = await self.tournaments.tie_of(table)
        if tie is None:
            return None
        tour, fixture = tie
        t = translator(tour.language)
        steps = steps_after(tour, fixture, table)
        return {user: step_text(t, tour, fixture, step) for user, step in steps.items()}

    async def _private_endings(
        self, table: Table, again: bool, next_steps: dict[int, str] | None = None
    ) -> list[Outgoing]:
        """Each player's own end of the match, in the second person ("🏆 ¡Ganaste 15 a 9!"),
        a new message that notifies; with `again`, 🔁 Revancha under it. `next_steps`: per
        player, the line that closes it (a tournament's: "Pasás a semifinales")."""
        outcome = table.outcome
        if outcome is None:
            return []
        t = translator(table.language)
        who = await self.who(table)
        # 🔁 (with `again`) and 📝 the person's review of this match
        review = review_keys(t, table.id)
        keys = Keys((*rematch_keys(t, table.id), *review)) if again else review
        rows = []
        for user in table.players:
            seat = table.seat_of(user)
            if seat is None:
                continue
            side = table.geometry.side(seat)
            step = (next_steps or {}).get(user)
            text = private_ending(t, who, outcome, side, seat, table.state, step)
            # 🎉 over "¡Ganaste!" (a private chat's message effect)
            effect = WIN_EFFECT if outcome.winner == side else None
            key = f"end:{table.id}:{user}"
            rows.append(text_row(user, text, markup=keys, key=key, effect=effect))
        return rows

    async def _match_notices(self, table: Table, told: bool = False) -> list[Outgoing]:
        """Each player of a tournament's match that starts: against whom, in which round; and
        (`told`) the group, when it is a knockout's final (`starts_final`)."""
        tie = await self.tournaments.tie_of(table)
        if tie is None:
            return []
        tour, fixture = tie
        t = translator(tour.language)
        names = await self.people.names(people_of(tour))
        rows = [text_row(u, match_notice(t, tour, fixture, len(fixture.games), names, u))
                for u in table.players]  # fmt: skip
        if told and starts_final(tour, fixture):
            said = final_started_text(t, tour, fixture, names)
            rows.append(text_row(tour.chat_id, said, tour.thread_id, key=f"final:{tour.id}"))
        return rows

    async def who(self, table: Table) -> Seating:
        return seating_at(translator(table.language), table, await self.people.at(table))

    async def _reminders(self, table: Table, in_group: bool = True) -> list[Outgoing]:
        """Half the time is gone: each person the game waits on, in private and (`in_group`)
        with a mention in the group."""
        if table.state is None or not table.deadline:
            return []
        t = translator(table.language)
        names = await self.people.at(table)
        left = max(int(table.deadline - self.tables.clock()), 1)
        step = table.state.step
        rows = []
        for seat in sorted({a.seat for a in table.state.legal_actions()}):
            user = table.seats[seat]
            if user is None or user < 0:
                continue  # a computer player needs no reminder
            name = short_name(names.get(user, "?"))
            mention = f'<a href="tg://user?id={user}">{name}</a>'
            key = f"remind:{table.id}:{step}:{user}"
            if in_group:
                rows.append(
                    text_row(table.chat_id, t("timeout.remind", name=mention, seconds=left),
                             table.thread_id, key=key)
                )  # fmt: skip
            rows.append(text_row(user, t("timeout.remind", name=name, seconds=left), key=key))
        return rows

    async def _sign(self, change: SignChange) -> list[Outgoing]:
        """A seña: the partners (people) are told it; each rival who caught it is told it
        privately, and whoever made it that they were seen (F18: the one who catches a seña
        learns it; the group learns nothing of a seña while the hand is played); and the hand
        of whoever showed it gets its buttons back (the menu is gone)."""
        table = change.the_table
        t = translator(table.language)
        who = await self.who(table)
        name = who.seat(change.seat)
        sign, meaning = t(f"sign.{change.sign}"), t(f"sign.meaning.{change.sign}")
        rows = []
        hand = table.state.hand_number if table.state else 0
        # The same seña told twice while the first is still waiting is one message.
        key = f"sign:{table.id}:{hand}:{change.seat}:{change.sign}"
        for seat in table.geometry.partners(change.seat):
            partner = table.seats[seat]
            if partner is not None and partner > 0:
                text = mark_first(t("sign.received", name=name, sign=sign, meaning=meaning), who)
                rows.append(text_row(partner, text, key=key))
        maker = table.seats[change.seat]
        for rival in change.caught_by:
            catcher = table.seats[rival]
            if catcher is None or catcher <= 0:
                continue
            caught = mark_first(t("sign.caught", name=name, sign=sign, meaning=meaning), who)
            rows.append(text_row(catcher, caught, key=f"{key}:{rival}"))
            if maker is not None and maker > 0:
                seen = mark_first(t("sign.seen", rival=who.seat(rival), sign=sign), who)
                rows.append(text_row(maker, seen, key=f"{key}:seen:{rival}"))
        if change.actor is not None:
            rows.append(hand_row(table, change.actor, urgent=True))
        return rows

    async def _after_action(self, change: TableChange) -> list[Outgoing]:
        table = change.the_table
        rows: list[Outgoing] = []
        # The end of a hand is told on the board itself (its record on top of the next hand):
        # one coalesced message per group, so the group is never more than a call behind.
        over = table.state is not None and table.state.is_over
        if over:
            rows.append(final(board_row(table)))
        elif table.status is TableStatus.PLAYING:
            rows.append(board_row(table, watched=await self._watched_only(change)))
        if over:
            rows += await self._match_over(table, change.tapper)
        if over or not table.is_open:
            return rows
        return rows + await self._ring_out(change) + self._hands_after(change)

    async def _watched_only(self, change: TableChange) -> bool:
        """Whether the board after this change is only for those watching: every person at
        the table has their hand in their private chat, whose message shows the table (the
        rounds, the bets, the score, whose turn) and is edited when they can act, so the
        board says nothing they need (a hand shown in the group is short: it leans on the
        board). A hand's end waits its window too: each private hand tells the hand that ended
        on top of the new cards (`hand_text`). Only in 1v1: in teams a private hand is edited
        when its owner can act, not at each card of the others, so between turns the board is
        where they follow a partner's card or a chant."""
        table = change.the_table
        if len(table.seats) > 2:
            return False
        for user in table.players:
            if await self.people.plays_in(user) is not HandPlace.PRIVATE:
                return False
        return True

    async def _ring_out(self, change: TableChange) -> list[Outgoing]:
        """A big moment of the hand (a falta envido wanted, a vale cuatro, a flor against flor)
        told in the group as a short new message, so that it notifies: at most one a hand,
        keyed (one waits at a time) and dropped if the group's lane is too far behind to make
        it news (`RING_FRESH` in delivery)."""
        table = change.the_table
        state = table.state
        if state is None or state.hand is None or self._rung.get(table.id) == state.hand_number:
            return []
        t = translator(table.language)
        text = ""
        for event in change.events:
            if isinstance(event, EnvidoResolved) and event.wanted:
                if ActionKind.FALTA_ENVIDO in state.hand.envido_chain:
                    who = await self.who(table)
                    text = t("ring.falta", points=event.points, name=who.side(t, event.winner))
            elif isinstance(event, Chanted) and event.kind in RINGING:
                who = await self.who(table)
                if event.kind is ActionKind.VALE_CUATRO:
                    text = t("ring.vale_cuatro", name=who.seat(event.seat))
                else:
                    chant = kind_label(t, event.kind)
                    text = t("ring.contraflor", chant=chant, name=who.seat(event.seat))
            if text:
                break
        if not text:
            return []
        self._rung[table.id] = state.hand_number
        self._rung.move_to_end(table.id)
        if len(self._rung) > RUNG_REMEMBERED:
            self._rung.popitem(last=False)
        return [text_row(table.chat_id, text, table.thread_id, key=f"ring:{table.id}", ring=True)]

    def _hands_after(self, change: TableChange) -> list[Outgoing]:
        """Each player's hand message after an action: at a table whose group board shows
        the play, only the hands whose options changed (the actor's, whoever the game waited
        on or waits on now, everyone's at a new hand); the others show nothing the board
        does not, and are brought up to date when their options change. A table played in
        private chats (a tournament's, a practice) has no board: every hand follows."""
        table = change.the_table
        new_hand = any(isinstance(e, HandDealt) for e in change.events)
        waiting_now = self.tables.waiting_users(table)
        now = self.tables.clock()
        boarded = table.tournament is None and not table.practice
        concerned = waiting_now | change.waiting_before | {change.actor}
        rows = []
        for user in table.players:
            if boarded and not new_hand and user not in concerned:
                continue  # its options did not change: the board says the rest
            # A new message notifies; an edit does not. Someone who acted a moment ago is
            # looking at the chat: a buzz at every move of a quick match is noise (and a
            # second call), so they get the edit.
            # (and one whose hand came anew a moment ago: that message is the one they see)
            seen = max(table.acted.get(user, float("-inf")),
                       self._buzzed.get((table.id, user), float("-inf")))  # fmt: skip
            looking = now - seen < ATTENTIVE_SECONDS
            # Play comes to them (at a new hand: to whoever acts first; the others' new cards
            # come by an edit, and a notifying message when their turn comes)
            turn = user in waiting_now and (new_hand or user not in change.waiting_before)
            notify = turn and not looking
            if notify:
                self._buzz(table, user)
            mine = user == change.tapper
            later = mine and self._waits_for_turn(change)
            # The hand of whoever must act now goes first and never waits for the overall
            # budget, the tapper's own too when it goes now; the others' are background
            # refreshes.
            urgent = (mine or turn) and not later
            rows.append(hand_row(table, user, loud=notify, urgent=urgent, later=later))
        return rows

    def shown_at_turn(self, change: TableChange) -> bool:
        """Whether the answer to the tap should say that the tapper's own hand message catches
        up at their turn: it waits for it, whatever the load (`_waits_for_turn`, and a sender
        that defers it always; one that sends it at once, or only under load, would make that
        untrue)."""
        duel = len(change.the_table.players) == 2
        always = self.sender.defer > 0 and (duel or self.sender.defer_above <= 0)
        return always and self._waits_for_turn(change)

    def _waits_for_turn(self, change: TableChange) -> bool:
        """Whether the tapper's own hand waits for their next edit (their turn, a chant they
        must answer, the hand's end; at most `own_hand_defer` seconds) rather than going now:
        the answer to their tap says what went and that their message catches up then, so an
        edit now would tell them nothing they need (a call a tap, at any load). At a new hand
        their new cards go now; where no board shows the play (a practice, a tournament's
        match) the hand is the board, and goes now too."""
        table = change.the_table
        if table.tournament is not None or table.practice or change.tapper is None:
            return False
        if any(isinstance(e, HandDealt) for e in change.events):
            return False
        if table.state is None or table.state.is_over or not table.is_open:
            return False
        if change.tapper in self.tables.waiting_users(table):
            return False
        # In 1v1 the rival's move, seconds away, edits it; in teams the next turn is several
        # moves away and the message would say "👉 Te toca." all that while: there it waits
        # only while the budget is crowded (the saving matters then).
        return len(table.players) == 2 or self.sender.defer <= 0 or self.sender.crowded()

    async def _match_over(self, table: Table, actor: int | None = None) -> list[Outgoing]:
        """The group's end of the match (after the board's last edit, which goes first, in
        order: `final`), everyone's last hand (the match's last hand told whole; the hand of
        whoever ended it goes first, as after any tap), and to each player a new message, so
        that it notifies: the end in the second person, and 🔁 Revancha."""
        rows = []
        outcome = table.outcome
        if outcome is not None and outcome.conceded:
            rows.append(close_row(table, "match.ended_board"))
        rows.append(match_end_row(table))
        rows += [final(hand_row(table, u, urgent=u == actor)) for u in table.players]
        return rows + await self._private_endings(table, again=True)


def _refresh_of_hand(planned: Planned) -> bool:
    """A hand message's edit (not a notifying send)."""
    return isinstance(planned, Outgoing) and planned.kind is RowKind.HAND and not planned.loud


def final(row: Outgoing) -> Outgoing:
    """A board's or hand's last edit, sent in its place among the new messages (before the
    end of the match decided after it) rather than as a refresh that waits behind them."""
    return replace(row, priority=POST)
