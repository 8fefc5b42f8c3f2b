"""Telegram's pacing of the mailbox's lanes: what kind of place a chat is, by the form of its
id, and the pace Telegram allows there (the mailbox in `bot.service` knows neither).

- A group (a negative id): about 20 messages a minute, `group_interval` seconds between calls
  kept in the database; its rows are what the group shows (its board), ranked as such for the
  overall budget. A board only watchers need (`WATCHED`, the planner's: every player sees the
  table in their own private hand message) goes at most once every `watched` seconds.
- A private chat (a positive id): about a call a second after a small burst. The hands shown
  inside a group (ephemeral messages, Bot API 10.2) go in their reader's own lane and are paced
  with it, as Telegram paces a member's ephemeral messages like their private chat
  (tests/fakebot.py, `ephemeral_in_group_limit`); they do not touch the group's 20 a minute.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.mailbox import LanePolicy


@dataclass(frozen=True)
class TelegramPacing:
    """The policy of each chat's lane (`bot.service.mailbox.Pacing`)."""

    group_interval: float
    private_per_second: float = 0.0  # 0: private chats are not paced
    private_burst: int = 3
    # Seconds between two edits of a board only watchers need (`WATCHED`): its players see
    # the table in their own hand messages, edited when they can act
    watched: float = 0.0

    @property
    def group(self) -> LanePolicy:
        return LanePolicy("group", shown=True, interval=self.group_interval, watched=self.watched)

    @property
    def private(self) -> LanePolicy:
        """A person's lane: their private chat, and the hands shown to them in a group."""
        return LanePolicy("private", per_second=self.private_per_second, burst=self.private_burst)

    def lane(self, chat_id: int) -> LanePolicy:
        return self.group if chat_id < 0 else self.private
