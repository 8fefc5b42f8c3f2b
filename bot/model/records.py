"""What the storage hands up about finished matches: frozen values, read by attribute (no row
leaves the storage), in the model's one vocabulary of how a match ended (`Termination`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.model.outcome import LEAVING, Termination

DECIDED = frozenset(t for t in Termination if t is not Termination.CANCELLED)  # somebody won


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """The league's record of a finished match (`matches`): what /historial, /partida's export,
    the replay and the league read. Its result (`termination`, `winner`, `scores`, `ended_at`)
    is the league's, not the game's end (`Table.outcome`): when a side left a 2v2 it is settled
    then, whatever was played after (`bot.model.outcome`)."""

    table_id: int
    chat_id: int
    players: int
    target: int
    flor: bool
    house_rule: bool  # R24
    termination: Termination
    winner: int | None  # the side that won (None: cancelled)
    scores: tuple[int, int]
    hands: int
    started_at: float | None
    ended_at: float
    bots: int  # computer players seated
    hinted: bool  # somebody asked for a hint (💡)

    @property
    def conceded(self) -> bool:
        """Ended by a side leaving (a concession, its timeouts, a walkover), not on the score."""
        return self.termination in LEAVING


@dataclass(frozen=True, slots=True)
class Counting:
    """Which finished matches a reading takes, as the core decided it: the storage filters by
    exactly these values and decides nothing. `bots`/`hinted`: False, only matches without;
    True, only matches with; None, either. `players`, `since`: a mode, matches ended since."""

    terminations: frozenset[Termination] = DECIDED
    bots: bool | None = None
    hinted: bool | None = None
    players: int | None = None
    since: float | None = None

    def takes(self, termination: Termination, bots: int, hinted: bool, players: int,
              ended_at: float) -> bool:  # fmt: skip
        """The same decision in Python: what the storage's filter keeps."""
        return (
            termination in self.terminations
            and (self.bots is None or self.bots == (bots > 0))
            and (self.hinted is None or self.hinted == hinted)
            and (self.players is None or self.players == players)
            and (self.since is None or ended_at >= self.since)
        )

    def takes_record(self, record: MatchRecord) -> bool:
        return self.takes(record.termination, record.bots, record.hinted, record.players,
                          record.ended_at)  # fmt: skip
