"""Outbox payloads: one declaration per kind of row, stored under the letters the rows have
always used, read back as they were written; a stored payload that fits no declaration reads as
None."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.game import MatchConfig
from bot.model.outbox import RowKind
from bot.model.table import Table, TableStatus
from bot.telegram import payloads
from bot.telegram.payloads import (
    KINDS,
    ClosePayload,
    EditPayload,
    HandPayload,
    Payload,
    TablePayload,
    TextPayload,
    Wire,
    read,
    write,
)
from bot.telegram.rows import (
    board_row,
    close_row,
    daily_row,
    edit_row,
    ephemeral_edit_row,
    ephemeral_reply_row,
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
from bot.views.common import Button, Keys

INTS = st.integers(-(2**53), 2**53)
JSONISH = st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4), max_size=3)


def _values(f: Any) -> st.SearchStrategy[Any]:
    base: st.SearchStrategy[Any] = {
        int: INTS,
        str: st.text(max_size=12),
        bool: st.booleans(),
        dict: JSONISH,
    }[f.base]
    return base if f.default is dataclasses.MISSING else base | st.just(f.default)


def _instances(cls: type[Payload]) -> st.SearchStrategy[Payload]:
    fields = {f.name: _values(f) for f in cls.FIELDS}
    return st.builds(cls, **fields).filter(lambda p: p.valid())


@settings(max_examples=200)
@given(st.sampled_from(KINDS).flatmap(_instances))
def test_every_payload_reads_back_as_written(payload: Payload) -> None:
    stored = write(payload)
    for kind in payload.KINDS:
        assert read(kind, stored) == payload


def test_every_row_kind_has_its_payload() -> None:
    assert {kind for cls in KINDS for kind in cls.KINDS} == set(RowKind)


TABLE = Table(7, -100, 0, TableStatus.LOBBY, 1, MatchConfig(), [1, 2], "es", 0.0, 0.0)
KEYS = Keys([(Button("Sí", callback_data="x:1"),)])
MARKUP = KEYS.to_dict()


# What each constructor stored before the declarations, spelled out: the same dicts now.
RELEASED: list[tuple[Any, dict[str, Any]]] = [
    (board_row(TABLE), {"t": 7}),
    (lobby_row(TABLE), {"t": 7}),
    (match_end_row(TABLE), {"t": 7}),
    (close_row(TABLE, "close.cancelled"), {"t": 7, "key": "close.cancelled"}),
    (tourney_row(-100, 3), {"n": 3}),
    (daily_row(-100, 4), {"d": 4}),
    (hand_row(TABLE, 1), {"t": 7, "u": 1}),
    (shown_row(TABLE, 1, "q99"), {"t": 7, "u": 1, "q": "q99"}),
    (sign_menu_row(TABLE, 1, 12), {"t": 7, "u": 1, "menu": 12}),
    (sign_menu_row(TABLE, 1, 0), {"t": 7, "u": 1, "menu": 0}),
    (text_row(-100, "hola"), {"text": "hola"}),
    (text_row(-100, "hola", 5, KEYS, 9), {"text": "hola", "thread": 5, "markup": MARKUP,
                                          "reply_to": 9}),
    (text_row(-100, "hola", 0, None, 0), {"text": "hola"}),
    (text_row(1, "¡Ganaste!", effect="77"), {"text": "¡Ganaste!", "effect": "77"}),
    (text_row(-100, "¡Truco!", ring=True), {"text": "¡Truco!", "ring": 1}),
    (note_row(1, "abrieron", -100, "n"), {"text": "abrieron", "member_of": -100}),
    (ephemeral_reply_row(-100, 1, "tabla", 55, KEYS, 3),
     {"text": "tabla", "in": -100, "asked": 55, "thread": 3, "markup": MARKUP}),
    (ephemeral_reply_row(-100, 1, "tabla", 55), {"text": "tabla", "in": -100, "asked": 55}),
    (tag_row(-100, 1, "campeona"), {"u": 1, "tag": "campeona"}),
    (edit_row(-100, 8, "panel", KEYS), {"m": 8, "text": "panel", "markup": MARKUP}),
    (edit_row(-100, 8, "panel"), {"m": 8, "text": "panel"}),
    (ephemeral_edit_row(-100, 1, 6, "pág"), {"in": -100, "e": 6, "text": "pág"}),
]  # fmt: skip


@pytest.mark.parametrize(("row", "stored"), RELEASED)
def test_rows_store_what_they_always_stored(row: Any, stored: dict[str, Any]) -> None:
    assert row.payload == stored
    found = read(row.kind, stored)
    assert found is not None and write(found) == stored


def test_the_typed_readings() -> None:
    assert read(RowKind.HAND, {"t": 7, "u": 1, "menu": 0}) == HandPayload(7, 1, menu=0)
    assert read(RowKind.TEXT, {"text": "x", "ring": 1}) == TextPayload("x", ring=True)
    assert read(RowKind.EDIT, {"in": -1, "e": 6, "text": "p"}) == EditPayload(
        "p", group=-1, ephemeral=6
    )
    assert read(RowKind.CLOSE, {"t": 1, "key": "k"}) == ClosePayload(1, "k")
    assert read(RowKind.BOARD, {"t": 1, "other": "kept by nobody"}) == TablePayload(1)


@pytest.mark.parametrize(
    ("kind", "stored"),
    [(RowKind.BOARD, {}), (RowKind.BOARD, {"t": "1"}), (RowKind.BOARD, {"t": True}),
     (RowKind.HAND, {"t": 1}), (RowKind.HAND, {"t": 1, "u": 2, "q": 5}),
     (RowKind.TEXT, {}), (RowKind.TEXT, {"text": 1}), (RowKind.TEXT, {"text": "x", "ring": 2}),
     (RowKind.TEXT, {"text": "x", "asked": 5}), (RowKind.TEXT, {"text": "x", "markup": []}),
     (RowKind.EDIT, {"text": "x"}), (RowKind.EDIT, {"text": "x", "e": 1}),
     (RowKind.TAG, {"u": 1}), (RowKind.TOURNEY, {"n": None}), (RowKind.DAILY, [])],
)  # fmt: skip
def test_a_payload_that_fits_no_declaration_reads_as_none(kind: RowKind, stored: Any) -> None:
    assert read(kind, stored) is None


def test_a_declaration_gives_each_field_one_key_of_its_own() -> None:
    with pytest.raises(TypeError):

        class NoKey(Payload, kinds=()):
            a: int

    with pytest.raises(TypeError):

        class SameKey(Payload, kinds=()):
            a: Annotated[int, Wire("t")]
            b: Annotated[int, Wire("t")]

    with pytest.raises(TypeError):

        class KindAgain(Payload, kinds=(RowKind.BOARD,)):
            a: Annotated[int, Wire("t")]

    assert payloads.KINDS == KINDS
