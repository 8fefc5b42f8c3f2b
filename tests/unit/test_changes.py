"""A change is one of a few typed variants: each carries its own fields and no other's, and
its `kind` says which it is (what subscribers dispatch on)."""

from __future__ import annotations

import dataclasses

import pytest

from bot.game import MatchConfig
from bot.model.table import Table, TableStatus
from bot.service.changes import (
    ChangeKind,
    ChatChange,
    SignChange,
    TableChange,
    TourneyChange,
    TourneyNote,
)
from bot.tourney.model import Tournament


def _fields(kind: type) -> set[str]:
    return {f.name for f in dataclasses.fields(kind)}


def test_each_variant_carries_only_its_own_fields() -> None:
    table_only = {"events", "action", "timed_out", "waiting_before", "was", "credited"}
    assert table_only <= _fields(TableChange)
    assert not table_only & (_fields(SignChange) | _fields(ChatChange) | _fields(TourneyChange))
    assert {"sign", "caught_by"} <= _fields(SignChange)
    assert not {"sign", "caught_by"} & (_fields(TableChange) | _fields(TourneyChange))
    assert {"tournament", "note", "results"} <= _fields(TourneyChange)
    assert not {"tournament", "note", "results"} & (_fields(TableChange) | _fields(SignChange))


def test_a_variant_knows_its_chat_and_kind() -> None:
    table = Table(7, -100, 0, TableStatus.LOBBY, 1, MatchConfig(), [None, None], "es", 0.0, 0.0)
    assert TableChange(ChangeKind.LOBBY, table).chat_id == -100
    sign = SignChange(table, 0, "ae", actor=1)
    assert (sign.kind, sign.chat_id, sign.tapper, sign.the_table) == (
        ChangeKind.SIGN, -100, 1, table
    )  # fmt: skip
    tour = Tournament(3, -200, 0, 1, "es", 0.0, 0.0)
    told = TourneyChange(tour, TourneyNote.OPENED, 1)
    assert (told.kind, told.chat_id, told.table) == (ChangeKind.TOURNEY, -200, None)
    assert (ChatChange(-300).kind, ChatChange(-300).table) == (ChangeKind.CHAT, None)
    with pytest.raises(AttributeError):
        _ = told.events  # type: ignore[attr-defined]
