"""A finished match, to watch again on the web table: the public view after every action of its
log (the engine plays the log again; nothing is stored twice), each hand's cards shown when the
hand ends as the record shows them, and what the page needs to check the deals against the
sealed seed itself."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from bot.game import AnyAction, Deal, MatchState
from bot.game.ending import ended_hands
from bot.game.fair import commitment
from bot.model.table import Table, TableStatus
from bot.web.view import table_view


def replay_of(table: Table, names: dict[int, str], log: Sequence[AnyAction]) -> dict[str, Any]:
    """Every frame of match `table` (finished), oldest first, and its deals and seed."""
    state = MatchState(table.config)
    frames: list[dict[str, Any]] = []
    deals: list[str] = []
    for number, action in enumerate(log, start=1):
        state.apply(action)
        if isinstance(action, Deal):
            deals.append("|".join(" ".join(c.code for c in hand) for hand in action.hands))
        over = state.is_over and number == len(log)
        moment = dataclasses.replace(
            table,
            state=state,
            status=table.status if over else TableStatus.PLAYING,
            version=number,
            calls=[],
            deadline=None,
            turn_seconds=0,
        )
        frame = table_view(moment, names, None, (), ended_hands(state)[-1:])
        frame["action"] = number
        frames.append(frame)
    return {
        "id": table.id,
        "language": table.language,
        "frames": frames,
        "deals": deals,
        "players": table.config.players,
        "seed": table.seed,
        "commitment": commitment(table.seed) if table.seed else None,
    }
