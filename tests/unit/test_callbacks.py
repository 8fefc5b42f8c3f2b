"""Button data: one codec, short, and nothing we did not make gets through."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.callbacks import (
    MAX_BYTES,
    ActData,
    CardsData,
    LanguageData,
    LobbyData,
    SignData,
    pack,
    unpack,
)
from bot.game import ActionKind, card


@pytest.mark.parametrize(
    "data",
    [
        ActData(123456789, 4321, ActionKind.CONTRAFLOR_AL_RESTO),
        ActData(1, 0, ActionKind.PLAY, card(12, "b")),
        LobbyData(99, "j", "1"),
        LobbyData(99, "o", "house"),
        CardsData(7),
        SignData(7, 12, "ae"),
        LanguageData("en"),
    ],
)
def test_round_trip_and_size(data: object) -> None:
    text = pack(data)  # type: ignore[arg-type]
    assert len(text.encode()) <= MAX_BYTES and text.isascii()
    assert unpack(text) == data


def test_anything_over_64_bytes_is_refused() -> None:
    with pytest.raises(ValueError):
        pack(LobbyData(1, "o", "x" * 70))
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
