"""Button data: one codec, short, and nothing we did not make gets through."""

from __future__ import annotations

import dataclasses
import string
import types
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.callbacks import (
    KINDS,
    LOBBY_CANCEL,
    MAX_BYTES,
    MAX_DIGITS,
    SIGN_BACK,
    SIGN_MENU,
    TOURNEY_CUT,
    TOURNEY_KEEP,
    ActData,
    BadButton,
    CallbackData,
    CardsData,
    ConfigData,
    Digits,
    HintData,
    HintOp,
    Language,
    LanguageData,
    LobbyData,
    LobbyOp,
    PageData,
    PageView,
    RematchData,
    Scope,
    SignData,
    TablaData,
    TourneyData,
    TourneyOp,
    Vacated,
    VacatedData,
    Word,
    decode,
    pack,
    unpack,
)
from bot.game import DECK, ActionKind, Card, card
from bot.game.seats import SEAT_COUNTS


@pytest.mark.parametrize(
    "data",
    [
        ActData(123456789, 4321, ActionKind.CONTRAFLOR_AL_RESTO),
        ActData(1, 0, ActionKind.PLAY, card(12, "b")),
        LobbyData(99, LobbyOp.JOIN, "1"),
        LobbyData(99, LobbyOp.OPTION, "house"),
        CardsData(7),
        SignData(7, 12, "ae"),
        LanguageData(Language.EN),
    ],
)
def test_round_trip_and_size(data: object) -> None:
    text = pack(data)  # type: ignore[arg-type]
    assert len(text.encode()) <= MAX_BYTES and text.isascii()
    assert unpack(text) == data


def test_anything_over_64_bytes_is_refused() -> None:
    with pytest.raises(ValueError):
        pack(LobbyData(1, LobbyOp.OPTION, "x" * 70))
    assert unpack("l:1:o:" + "x" * 70) is None


@pytest.mark.parametrize(
    "text",
    ["", "a", "a:1", "a:x:1:t", "a:1:1:zz", "a:1:1:p", "a:1:1:t:1e", "a:1:1:p:8e", "c:", "g:fr",
     "l:1:z:", "s:1:1:", "a:-1:1:t", "a:1:1:t:extra:more", "ñ:1", None],
)  # fmt: skip
def test_malformed_data_is_refused(text: str | None) -> None:
    assert unpack(text) is None


@given(st.text(max_size=80))
def test_unpack_never_raises(text: str) -> None:
    result = unpack(text)
    if result is not None:
        assert unpack(pack(result)) == result


# -- the declarative codec: every type, every old button ---------------------------------------
def _values(hint: Any) -> st.SearchStrategy[Any]:
    """Any value a field of this declared type may hold (read from the declaration alone)."""
    if get_origin(hint) in (Union, types.UnionType):
        (inner,) = [x for x in get_args(hint) if x is not type(None)]
        return st.none() | _values(inner)
    if get_origin(hint) is Annotated:
        _, word = get_args(hint)
        if isinstance(word, Digits):
            return st.integers(0, 10**word.most - 1)
        assert isinstance(word, Word)
        alphabet = string.ascii_letters + (string.digits if word.digits else "")
        return st.text(alphabet, min_size=word.least, max_size=word.size)
    if hint is int:
        return st.integers(0, 10**MAX_DIGITS - 1)
    if hint is Card:
        return st.sampled_from(DECK)
    if hint is Scope:
        return st.builds(Scope, st.sampled_from([None, *SEAT_COUNTS]), st.booleans())
    assert isinstance(hint, type) and issubclass(hint, Enum), hint
    return st.sampled_from(list(hint))


def _instances(kind: type[CallbackData]) -> st.SearchStrategy[CallbackData]:
    hints = get_type_hints(kind, include_extras=True)
    fields = {f.name: _values(hints[f.name]) for f in dataclasses.fields(kind)}
    return st.builds(kind, **fields).filter(lambda data: data.valid())


def test_every_prefix_is_a_type() -> None:
    assert {kind.PREFIX for kind in KINDS} == {
        "a", "l", "c", "s", "h", "g", "k", "v", "r", "T", "p", "p:t", "d", "p:d", "q"
    }  # fmt: skip


@settings(max_examples=300)
@given(st.sampled_from(KINDS).flatmap(_instances))
def test_every_type_packs_small_and_unpacks_to_itself(data: CallbackData) -> None:
    text = pack(data)
    assert len(text.encode()) <= MAX_BYTES and text.isascii()
    assert unpack(text) == data and type(unpack(text)) is type(data)


TOKENS = st.one_of(
    st.sampled_from(["", "0", "1", "12", "99999999999999", "-1", "1e", "p", "t", "j", "x", "o",
                     "m", "b", "cancel", "house", "k", "es", "²", "١", " 1", "1 ", "ñ"]),
    st.text(max_size=6),
)  # fmt: skip
PREFIXED = st.tuples(st.sampled_from([k.PREFIX for k in KINDS]), st.lists(TOKENS, max_size=6))


@settings(max_examples=1500)
@given(st.one_of(
    st.binary(max_size=90).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.binary(max_size=90).map(lambda b: b.decode("latin-1")),
    PREFIXED.map(lambda p: ":".join([p[0], *p[1]])),
))  # fmt: skip
def test_any_bytes_decode_or_are_refused_by_the_codec_alone(text: str) -> None:
    try:
        data = decode(text)
    except BadButton:
        assert unpack(text) is None
        return
    again = pack(data)  # (what we accept we could have made)
    assert unpack(again) == data and len(again.encode()) <= MAX_BYTES


# Buttons as released messages carry them (the views before the declarative codec wrote these
# very strings): each still means what it meant, and a new button is byte for byte the same.
OLD_BUTTONS: list[tuple[str, CallbackData]] = [
    ("a:12:3:t", ActData(12, 3, ActionKind.TRUCO)),
    ("a:12:3:p:1e", ActData(12, 3, ActionKind.PLAY, card(1, "e"))),
    ("a:12:3:m", ActData(12, 3, ActionKind.MAZO)),
    ("l:9:j:", LobbyData(9, LobbyOp.JOIN)),
    ("l:9:j:1", LobbyData(9, LobbyOp.JOIN, "1")),
    ("l:9:x:", LobbyData(9, LobbyOp.LEAVE)),
    ("l:9:o:house", LobbyData(9, LobbyOp.OPTION, "house")),
    ("l:9:o:cancel", LobbyData(9, LobbyOp.OPTION, LOBBY_CANCEL)),
    ("l:9:b:", LobbyData(9, LobbyOp.ADD_BOT)),
    ("l:9:b:0", LobbyData(9, LobbyOp.ADD_BOT, "0")),
    ("l:9:r:", LobbyData(9, LobbyOp.REMOVE_BOT)),
    ("c:9", CardsData(9)),
    ("s:9:4:m", SignData(9, 4, SIGN_MENU)),
    ("s:9:4:b", SignData(9, 4, SIGN_BACK)),
    ("s:9:4:ae", SignData(9, 4, "ae")),
    ("h:9:4:h", HintData(9, 4, HintOp.HINT)),
    ("h:9:4:d", HintData(9, 4, HintOp.HAND_OFF)),
    ("g:es", LanguageData(Language.ES)),
    ("k:lang", ConfigData("lang")),
    ("v:9:b", VacatedData(9, Vacated.BOT)),
    ("v:9:e", VacatedData(9, Vacated.END)),
    ("r:9", RematchData(9)),
    ("T:3:s:", TourneyData(3, TourneyOp.SIGN)),
    ("T:3:p:", TourneyData(3, TourneyOp.PARTNER)),
    ("T:3:u:", TourneyData(3, TourneyOp.UNSIGN)),
    ("T:3:o:format", TourneyData(3, TourneyOp.OPTION, "format")),
    ("T:3:g:", TourneyData(3, TourneyOp.START)),
    ("T:3:x:", TourneyData(3, TourneyOp.CANCEL)),
    ("T:3:x:k", TourneyData(3, TourneyOp.CANCEL, TOURNEY_KEEP)),
    ("T:3:x:c", TourneyData(3, TourneyOp.CANCEL, TOURNEY_CUT)),
    ("T:3:z:", TourneyData(3, TourneyOp.PAUSE)),
    ("p:h:5:0", PageData(PageView.MATCH, 5)),
    ("p:m:5:2", PageData(PageView.PAGE, 5, 2)),
    ("p:j:5:0", PageData(PageView.EXPORT, 5)),
    ("p:f:5:0", PageData(PageView.VERIFY, 5)),
    ("p:v:5:0", PageData(PageView.REVIEW, 5)),
    ("p:t:0:0", TablaData(Scope())),
    ("p:t:2:1", TablaData(Scope(2), 1)),
    ("p:t:4:0", TablaData(Scope(4))),
    ("p:t:104:3", TablaData(Scope(4, month=True), 3)),
    ("p:t:100:0", TablaData(Scope(None, month=True))),
]


@pytest.mark.parametrize(("text", "data"), OLD_BUTTONS, ids=[t for t, _ in OLD_BUTTONS])
def test_an_old_button_means_what_it_meant_and_a_new_one_is_the_same(
    text: str, data: CallbackData
) -> None:
    assert unpack(text) == data
    assert pack(data) == text


def test_a_tabla_key_of_no_mode_counts_every_match() -> None:
    # (a forged or older key: what /tabla answered before, every match, page clamped later)
    assert unpack("p:t:7:99999") == TablaData(Scope(None), 99999)
    assert unpack("p:t:107:0") == TablaData(Scope(None, month=True))
    assert unpack("p:t:x:0") is None and unpack("p:t:2") is None and unpack("p:q:2:0") is None


def test_a_type_is_checked_when_it_is_declared() -> None:
    with pytest.raises(TypeError, match="over 64"):

        class TooLong(CallbackData, prefix="zzlong"):
            a: int
            b: int
            c: int
            d: int
            e: int

    with pytest.raises(TypeError, match="prefix"):

        class Twice(CallbackData, prefix="a"):
            table: int

    with pytest.raises(TypeError, match="a button field"):

        class Loose(CallbackData, prefix="zzloose"):
            text: str

    with pytest.raises(TypeError, match="optional"):

        class Gap(CallbackData, prefix="zzgap"):
            card: Card | None
            table: int

    assert {k.PREFIX for k in KINDS}.isdisjoint({"zzlong", "zzloose", "zzgap"})


def test_fields_that_do_not_fit_together_are_refused_both_ways() -> None:
    assert unpack("a:1:1:p") is None and unpack("a:1:1:t:1e") is None
    with pytest.raises(ValueError):
        pack(ActData(1, 1, ActionKind.PLAY))
    with pytest.raises(ValueError):
        pack(LobbyData(1, LobbyOp.OPTION, "no:colons"))
