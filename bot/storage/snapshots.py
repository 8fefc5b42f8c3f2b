"""A match's snapshot: the cache of its state, which is `replay(config, log)`.

A match is its rules (`games.config`), its seal (`games.seed`: every deal is drawn from it and
written to the log) and its action log (`actions`); its state is what the engine makes of them.
`games.state` only saves replaying the log at every read: a snapshot says which format wrote it
and how many actions it had seen, and `load` takes it only when both still hold (this code's
format, the log's length); otherwise the log is replayed (`rebuild`) and the next save writes the
snapshot again. Dropping every snapshot loses nothing.

One codec, by declared types: a value is written as its class declares it (a dataclass's or a
named tuple's fields; another class's public annotated attributes and the properties it lets
one set), positionally; the engine's named values by their codes (a card, an action, a table's
seats). `FORMAT` is a digest of every class and type the snapshot holds, so a change to the
engine's fields makes older snapshots stale by itself.
"""

from __future__ import annotations

import dataclasses
import hashlib
import types
from collections.abc import Callable, Hashable, Sequence
from enum import StrEnum
from functools import cache
from operator import attrgetter
from typing import Any, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from bot import codec
from bot.game import Action, Card, MatchConfig, MatchState, parse_any, replay
from bot.game.actions import ALL_ACTIONS
from bot.game.cards import DECK
from bot.game.seats import Seats, duel, seats

T = TypeVar("T")
Encode = Callable[[Any], Any]
Decode = Callable[[Any], Any]

_FLAT = (int, bool, str, float, type(None))  # JSON as they are


class _Interned(dict[str, Any]):
    """The engine's values by their codes, the ones made ahead looked up in C (`[]`, as `map`
    calls it over a list), any other parsed: a snapshot holds about a hundred actions and
    seventy cards, read at every load."""

    def __init__(self, known: dict[str, Any], parse: Callable[[str], Any]) -> None:
        super().__init__(known)
        self.parse = parse

    def __missing__(self, code: str) -> Any:
        return self.parse(code)


_ACTIONS = _Interned({a.code: a for a in ALL_ACTIONS}, Action.parse)  # every one a table can have
_CARDS = _Interned({c.code: c for c in DECK}, Card.parse)


def _seats(every: Sequence[int]) -> Seats:
    """A whole table's seats (0 .. n-1) or a pica-pica duel's two."""
    if list(every) == list(range(len(every))):
        return seats(len(every))
    return duel(every[0], every[1])


# The engine's values that have a code of their own: how each is written and read.
_NAMED: dict[type, tuple[Encode, Decode]] = {
    Card: (attrgetter("code"), _CARDS.__getitem__),
    Action: (attrgetter("code"), _ACTIONS.__getitem__),
    Seats: (attrgetter("all"), _seats),
}


def _fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """A class's fields and their types, in order."""
    hints = get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        names = [f.name for f in dataclasses.fields(cls)]
    elif issubclass(cls, tuple):  # a named tuple
        names = list(cls._fields)  # type: ignore[attr-defined]
    else:
        names = [name for name in hints if not name.startswith("_")]
        for name, member in vars(cls).items():
            if isinstance(member, property) and member.fset is not None:
                hints[name] = get_type_hints(member.fget)["return"]
                names.append(name)
    return tuple((name, hints[name]) for name in names)


def _items(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """A list's or tuple's origin and its item types (one for `tuple[X, ...]`)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return tuple, args[:1]
    return origin, args


def _optional(tp: Any) -> Any | None:
    """X of `X | None`, else None."""
    if get_origin(tp) in (Union, types.UnionType):
        inner = [a for a in get_args(tp) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no snapshot of {tp}")
        return inner[0]
    return None


def _flat(tp: Any) -> bool:
    """A type whose values JSON holds as they are, and nobody changes in place."""
    if tp in _FLAT or (isinstance(tp, type) and issubclass(tp, StrEnum)):
        return True
    inner = _optional(tp)
    if inner is not None:
        return _flat(inner)
    origin, args = _items(tp)
    return origin is tuple and all(_flat(a) for a in args)


@cache
def _encoder(tp: Hashable) -> Encode | None:
    """How a value of type `tp` is written (None: as it is)."""
    if _flat(tp):
        return None
    if tp in _NAMED:
        return _NAMED[tp][0]
    inner = _optional(tp)
    if inner is not None:
        some = _encoder(inner)
        return None if some is None else lambda v: None if v is None else some(v)
    origin, args = _items(tp)
    if origin in (list, tuple):
        each = [_encoder(a) for a in args]
        if origin is list and len(args) == 1 and each[0] is None:
            return list  # a copy: the snapshot never shares the engine's lists
        if len(args) == 1:
            one = each[0]
            assert one is not None
            return lambda v: list(map(one, v))
        return cast(Encode, _fixed(each, "[", "]"))
    if isinstance(tp, type):
        named = [(name, _encoder(kind)) for name, kind in _fields(tp)]
        scope: dict[str, Any] = {f"e{i}": e for i, (_, e) in enumerate(named) if e is not None}
        parts = [f"v.{n}" if e is None else f"e{i}(v.{n})" for i, (n, e) in enumerate(named)]
        return cast(Encode, _compiled(f"    return [{', '.join(parts)}]\n", "v", scope))
    raise TypeError(f"no snapshot of {tp}")


def _fixed(each: list[Any], opening: str, closing: str) -> Any:
    """A fixed-length tuple's coder, item by item written out (`opening`, `closing`: a list's
    brackets or a tuple's); a wrong length raises, as `zip(strict=True)` did."""
    scope: dict[str, Any] = {f"c{i}": c for i, c in enumerate(each) if c is not None}
    items = [f"x{i}" if c is None else f"c{i}(x{i})" for i, c in enumerate(each)]
    unpack = "".join(f"x{i}, " for i in range(len(each))) or "()"
    made = f"{opening}{', '.join(items)}{closing}" if items else f"{opening}{closing[-1]}"
    return _compiled(f"    {unpack}= v\n    return {made}\n", "v", scope)


def _compiled(body: str, argument: str, scope: dict[str, Any]) -> Any:
    """A function of `argument` made of `body` with `scope`'s names: a class's encoder or
    decoder written out field by field once, from the engine's own field names, where a loop
    over the fields at every call cost each snapshot a good part of its time
    (docs/performance.md, "The snapshot codec")."""
    exec(f"def compiled({argument}):\n{body}", scope)
    return scope["compiled"]


@cache
def _decoder(tp: Hashable) -> Decode | None:
    """How a value of type `tp` is read (None: as JSON has it)."""
    if tp in _FLAT:
        return None
    if isinstance(tp, type) and issubclass(tp, StrEnum):
        return tp
    if tp in _NAMED:
        return _NAMED[tp][1]
    inner = _optional(tp)
    if inner is not None:
        some = _decoder(inner)
        return None if some is None else lambda d: None if d is None else some(d)
    origin, args = _items(tp)
    if origin in (list, tuple):
        each = [_decoder(a) for a in args]
        if len(args) == 1:
            one = each[0]
            if one is None:
                return None if origin is list else tuple  # (JSON's lists are new ones)
            return (lambda d: list(map(one, d))) if origin is list else (
                lambda d: tuple(map(one, d))
            )
        return cast(Decode, _fixed(each, "(", ",)"))
    if isinstance(tp, type):
        named = [(name, _decoder(kind)) for name, kind in _fields(tp)]
        scope: dict[str, Any] = {f"d{i}": e for i, (_, e) in enumerate(named) if e is not None}
        scope["tp"] = tp
        read = [f"x{i}" if e is None else f"d{i}(x{i})" for i, (_, e) in enumerate(named)]
        unpack = "".join(f"x{i}, " for i in range(len(named))) or "()"  # (a wrong length raises)
        if dataclasses.is_dataclass(tp) or issubclass(tp, tuple):
            body = f"    {unpack}= d\n    return tp({', '.join(read)})\n"
        else:  # a plain class: made empty, then each field set (a property's setter too)
            sets = "".join(f"    v.{n} = {x}\n" for (n, _), x in zip(named, read, strict=True))
            body = f"    {unpack}= d\n    v = tp.__new__(tp)\n{sets}    return v\n"
        return cast(Decode, _compiled(body, "d", scope))
    raise TypeError(f"no snapshot of {tp}")


def to_json(value: Any) -> Any:
    """`value` as JSON (lists, or tuples where the engine's are), by its class's fields."""
    encode = _encoder(cast(Any, type(value)))  # (a type hashes: mypy does not know)
    return value if encode is None else encode(value)


def from_json(kind: type[T], data: Any) -> T:
    """A `kind` from what `to_json` wrote."""
    decode = _decoder(cast(Any, kind))
    return data if decode is None else decode(data)  # type: ignore[no-any-return]


def _schema(tp: Any, seen: dict[Any, str]) -> None:
    """Every class `tp` holds, with its fields' types, in `seen`."""
    inner = _optional(tp)
    if inner is not None:
        _schema(inner, seen)
        return
    origin, args = _items(tp)
    if origin in (list, tuple):
        for arg in args:
            _schema(arg, seen)
        return
    if tp in seen or _flat(tp) or tp in _NAMED or not isinstance(tp, type):
        return
    fields = _fields(tp)
    seen[tp] = f"{tp.__qualname__}({', '.join(f'{name}: {kind}' for name, kind in fields)})"
    for _, kind in fields:
        _schema(kind, seen)


def _format() -> str:
    seen: dict[Any, str] = {}
    _schema(MatchState, seen)
    schema = "; ".join(["1", *(t.__qualname__ for t in _NAMED), *seen.values()])
    return hashlib.sha256(schema.encode()).hexdigest()[:16]


FORMAT = _format()  # the snapshots this code writes and reads


def dump(state: MatchState) -> str:
    """A match state's snapshot, for `games.state`."""
    return codec.dumps({"format": FORMAT, "steps": state.step, "state": to_json(state)})


def load(text: str | None, logged: int) -> MatchState | None:
    """The state a snapshot holds if it is current (this code's format, and as many actions
    as the log has: `logged`); None if there is none or it is stale."""
    if not text:
        return None
    data = codec.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT or data["steps"] != logged:
        return None
    return from_json(MatchState, data["state"])


def rebuild(config: MatchConfig, codes: Sequence[str]) -> MatchState | None:
    """The state of a match from its action log (None before the first deal)."""
    return replay(config, [parse_any(code) for code in codes]) if codes else None
