"""What the core (or a front end) answers when something asked of it cannot be done: one code
per case, each with its text in every locale (`refusal.<code>`; an illegal move says the
engine's reason instead, `reason.<reason>`). Nothing refused changes anything."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from bot.game import Reason


class Refused(StrEnum):
    # tournaments
    TOURNEY_ALREADY_OPEN = "tourney_already_open"
    NO_TOURNEY = "no_tourney"
    TOURNEY_STARTED = "tourney_started"
    ALREADY_SIGNED = "already_signed"
    NOT_SIGNED = "not_signed"
    TOURNEY_TOO_FEW = "tourney_too_few"
    TOURNEY_BAD_TIME = "tourney_bad_time"  # a tournament set for a time already gone
    TOURNEY_TOO_MANY = "tourney_too_many"
    TOURNEY_UNEVEN = "tourney_uneven"
    TOURNEY_FULL = "tourney_full"
    TOURNEY_TEAM_MISFIT = "tourney_team_misfit"  # a team signed up together that the mode
    # cannot seat
    ONLY_TOURNEY_OPENER = "only_tourney_opener"
    # tables and lobbies
    TABLE_ALREADY_OPEN = "table_already_open"
    TOO_MANY_TABLES = "too_many_tables"
    NO_TABLE = "no_table"
    LOBBY_CLOSED = "lobby_closed"
    ALREADY_JOINED = "already_joined"
    NOT_JOINED = "not_joined"
    TEAM_FULL = "team_full"
    TABLE_FULL = "table_full"
    TOO_MANY_FOR_1V1 = "too_many_for_1v1"
    ONLY_OPENER = "only_opener"
    ONLY_OPENER_OR_ADMIN = "only_opener_or_admin"
    BOT_NEEDS_PEOPLE = "bot_needs_people"
    NO_BOT = "no_bot"
    NOT_MEMBER = "not_member"
    MEMBER_UNKNOWN = "member_unknown"
    REMATCH_NOT_OVER = "rematch_not_over"
    REMATCH_NOT_YOURS = "rematch_not_yours"
    IN_LINE = "in_line"  # the full lobby waits in line to start (`place`: 1 is next)
    # play
    NO_GAME = "no_game"
    NOT_SEATED = "not_seated"
    PAUSED = "paused"
    ALREADY_DECIDED = "already_decided"
    ONLY_PARTNER = "only_partner"
    ILLEGAL = "illegal"  # the engine refused the move: its `Reason` says why
    STALE = "stale"  # a button from an older moment of the game (`card`: one from before the
    # tapper's own card went, told by `refusal.already_played`)
    STALE_ROUND = "stale_round"
    STALE_HAND = "stale_hand"
    ONLY_2V2 = "only_2v2"  # señas are for partners
    NO_SIGNS_IN_DUELS = "no_signs_in_duels"  # nobody makes señas in a pica-pica hand (R40)
    SIGN_REPEATED = "sign_repeated"
    SIGNS_SPENT = "signs_spent"
    NO_PARTNER_TO_HAND = "no_partner_to_hand"  # 🤖 Que decida: no computer partner may answer now
    NO_HINTS = "no_hints"  # 💡 at a table without consejos
    HINT_NOT_YOUR_MOVE = "hint_not_your_move"
    HINT_BUSY = "hint_busy"  # 💡 one in flight already, or more asked than can be thought now
    # a review after the match
    REVIEW_NO_MATCH = "review_no_match"  # no such match
    REVIEW_NOT_OVER = "review_not_over"  # still in play, or cancelled before its end
    REVIEW_NOT_YOURS = "review_not_yours"  # the asker did not play it
    # la mano del día
    DAILY_GONE = "daily_gone"  # no such hand of the day in this group
    DAILY_CLOSED = "daily_closed"  # its time to answer is over
    DAILY_NOT_MEMBER = "daily_not_member"  # only the group's members answer
    # whoever asks, and where
    BAD_BUTTON = "bad_button"  # data we did not make, or that does not fit
    NEED_PRIVATE = "need_private"
    GROUP_ONLY = "group_only"
    NOT_IN_THIS_CHAT = "not_in_this_chat"
    NOT_A_PERSON = "not_a_person"
    DB_BUSY = "db_busy"

    @property
    def key(self) -> str:
        """Its text's key in the locales."""
        return f"refusal.{self.value}"


class Refusal(Exception):
    """Something a person asked for that cannot be done. `params` fill the text (and an
    illegal move carries the engine's `reason`)."""

    def __init__(self, code: Refused, **params: Any) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params

    @property
    def reason(self) -> Reason | None:
        """The engine's reason, for an illegal move."""
        reason = self.params.get("reason")
        return reason if isinstance(reason, Reason) else None
