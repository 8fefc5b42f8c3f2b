"""What an outbox row of the Telegram adapter carries, declared: one frozen dataclass per kind of
row, its fields typed, each with the short key it is stored under (`Annotated[int, Wire("t")]`).

The keys are the stored format: rows written before these declarations (the same letters, the
same JSON) read back the same. A field with a default is left out while it holds it (`X | None
= None`, `thread: int = 0`, a flag stored as 1); `write` and `read` are generic. A stored
payload that does not fit its kind's declaration reads as None: its row is dropped, as a row
of a kind this code no longer makes is.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    ClassVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from bot.model.outbox import RowKind


@dataclass(frozen=True)
class Wire:
    """A field's key in the stored payload."""

    key: str


Markup = dict[str, Any]  # an inline keyboard as the Bot API takes it (`to_dict()`)


@dataclass(frozen=True)
class _Field:
    name: str
    key: str
    base: type
    default: Any  # dataclasses.MISSING: required


def _read_value(base: type, value: Any) -> tuple[bool, Any]:
    """(whether `value` is one of `base`, the value as `base`)."""
    if base is bool:
        ok = type(value) is bool or (type(value) is int and value in (0, 1))
        return ok, bool(value) if ok else None
    if base is int:
        return type(value) is int, value
    return isinstance(value, base), value


def _fields_of(cls: type) -> tuple[_Field, ...]:
    hints = get_type_hints(cls, include_extras=True)
    found = []
    for spec in dataclasses.fields(cls):
        hint = hints[spec.name]
        if get_origin(hint) is not Annotated:
            raise TypeError(f"{cls.__name__}.{spec.name}: declare its key, Annotated[..., Wire()]")
        base, *extras = get_args(hint)
        wires = [x for x in extras if isinstance(x, Wire)]
        if len(wires) != 1:
            raise TypeError(f"{cls.__name__}.{spec.name}: one Wire key")
        if get_origin(base) in (Union, types.UnionType):
            (base,) = [x for x in get_args(base) if x is not type(None)]
        base = get_origin(base) or base  # (dict[str, Any] is a dict)
        if base not in (int, str, bool, dict):
            raise TypeError(f"{cls.__name__}.{spec.name}: an int, str, bool or dict: {base!r}")
        found.append(_Field(spec.name, wires[0].key, base, spec.default))
    keys = [f.key for f in found]
    if len(set(keys)) != len(keys):
        raise TypeError(f"{cls.__name__}: a key twice: {keys}")
    return tuple(found)


_BY_KIND: dict[RowKind, type[Payload]] = {}


@dataclass_transform(frozen_default=True)
class Payload:
    """A kind of payload: `class X(Payload, kinds=(RowKind.BOARD,)): table: Annotated[int,
    Wire("t")]` (a frozen dataclass; each row kind has one)."""

    KINDS: ClassVar[tuple[RowKind, ...]]
    FIELDS: ClassVar[tuple[_Field, ...]]

    def __init_subclass__(cls, kinds: tuple[RowKind, ...], **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)
        cls.KINDS, cls.FIELDS = kinds, _fields_of(cls)
        for kind in kinds:
            if kind in _BY_KIND:
                raise TypeError(f"{cls.__name__}: {kind} is {_BY_KIND[kind].__name__}'s")
            _BY_KIND[kind] = cls

    def valid(self) -> bool:
        """Whether the fields make sense together (a kind's own rule across its fields)."""
        return True


def write(payload: Payload) -> dict[str, Any]:
    """The payload as stored: each field under its key, a default left out."""
    if not payload.valid():
        raise ValueError(f"not a payload: {payload!r}")
    out: dict[str, Any] = {}
    for f in payload.FIELDS:
        value = getattr(payload, f.name)
        if f.default is not dataclasses.MISSING and value == f.default:
            continue
        out[f.key] = int(value) if f.base is bool else value
    return out


def read(kind: RowKind, stored: dict[str, Any]) -> Payload | None:
    """A stored payload of a row of `kind`, as its declared type; None if it does not fit."""
    cls = _BY_KIND.get(kind)
    if cls is None or not isinstance(stored, dict):
        return None
    values: dict[str, Any] = {}
    for f in cls.FIELDS:
        if f.key not in stored:
            if f.default is dataclasses.MISSING:
                return None
            continue
        ok, value = _read_value(f.base, stored[f.key])
        if not ok:
            return None
        values[f.name] = value
    found = cls(**values)
    return found if found.valid() else None


# -- the payloads ---------------------------------------------------------------------------------
class TablePayload(Payload, kinds=(RowKind.BOARD, RowKind.LOBBY, RowKind.MATCH_END)):
    """A table's group message (its board, its lobby) or its end, rendered when it goes out."""

    table: Annotated[int, Wire("t")]


class ClosePayload(Payload, kinds=(RowKind.CLOSE,)):
    """The lobby or board of a table that ended without a winner: the text's key."""

    table: Annotated[int, Wire("t")]
    key: Annotated[str, Wire("key")]


class HandPayload(Payload, kinds=(RowKind.HAND,)):
    """A player's hand message; shown anew as the answer to their tap `query` on 🃏, or the
    menu of señas in place of its buttons while the table is at step `menu`."""

    table: Annotated[int, Wire("t")]
    user: Annotated[int, Wire("u")]
    query: Annotated[str | None, Wire("q")] = None
    menu: Annotated[int | None, Wire("menu")] = None


class TourneyPayload(Payload, kinds=(RowKind.TOURNEY,)):
    tourney: Annotated[int, Wire("n")]


class DailyPayload(Payload, kinds=(RowKind.DAILY,)):
    hand: Annotated[int, Wire("d")]


class TagPayload(Payload, kinds=(RowKind.TAG,)):
    user: Annotated[int, Wire("u")]
    tag: Annotated[str, Wire("tag")]


class TextPayload(Payload, kinds=(RowKind.TEXT,)):
    """A new message. With `asked` (and `group`), the answer to an ephemeral command in group
    `group`, shown to its asker alone; with `member_of`, a note sent only while its person is
    in that group; `ring`, a ring-out that is dropped once stale."""

    text: Annotated[str, Wire("text")]
    thread: Annotated[int, Wire("thread")] = 0
    markup: Annotated[Markup | None, Wire("markup")] = None
    reply_to: Annotated[int | None, Wire("reply_to")] = None
    member_of: Annotated[int | None, Wire("member_of")] = None
    group: Annotated[int | None, Wire("in")] = None
    asked: Annotated[int | None, Wire("asked")] = None
    effect: Annotated[str | None, Wire("effect")] = None
    ring: Annotated[bool, Wire("ring")] = False

    def valid(self) -> bool:
        return self.asked is None or self.group is not None


class EditPayload(Payload, kinds=(RowKind.EDIT,)):
    """A new text for message `message` of ours, or for a person's ephemeral message
    `ephemeral` in group `group`."""

    text: Annotated[str, Wire("text")]
    message: Annotated[int | None, Wire("m")] = None
    group: Annotated[int | None, Wire("in")] = None
    ephemeral: Annotated[int | None, Wire("e")] = None
    markup: Annotated[Markup | None, Wire("markup")] = None

    def valid(self) -> bool:
        if self.ephemeral is not None:
            return self.group is not None
        return self.message is not None


KINDS: tuple[type[Payload], ...] = tuple(dict.fromkeys(_BY_KIND.values()))
