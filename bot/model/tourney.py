"""Where a table stands in a tournament: a value of the core's model, kept in columns of its
own with the table (`games.tournament_id`, `_round`, `_slot`, `_game`). The table knows this
much of its tournament; the tournament itself is a feature above the core (`bot.tourney`)."""

from __future__ import annotations

from typing import NamedTuple


class TourneyPlace(NamedTuple):
    """The tie a tournament's table plays (its round and its slot in the round) and which match
    of the tie's series (`game`: 0 for the first). Ordered as the ties are played: a sort of
    places is round by round, slot by slot, match by match."""

    tournament: int
    round: int
    slot: int
    game: int

    @property
    def tie(self) -> tuple[int, int]:
        """The tie's key, as a fixture's (`Fixture.key`)."""
        return self.round, self.slot
