"""Deep links: one codec, declared once, and nothing we did not make reads as a link."""

from __future__ import annotations

import dataclasses
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import links
from bot.callbacks import MAX_DIGITS
from bot.links import (
    KINDS,
    MAX_PAYLOAD,
    Channel,
    HandLink,
    JoinLink,
    Link,
    NotifyLink,
    PartnerLink,
    PlaceLink,
    PracticeLink,
    ReplayLink,
    ReviewLink,
    TableLink,
    TourneyLink,
    decode,
    encode,
)

TOKEN_ALPHABET = string.ascii_letters + string.digits + "_-"


def _instances(kind: type[Link]) -> st.SearchStrategy[Link]:
    if kind.FIELD is None:
        return st.just(kind())
    name, codec = kind.FIELD
    room = MAX_PAYLOAD - len(kind.PREFIX)
    value: st.SearchStrategy[Any] = (
        st.integers(0, 10**MAX_DIGITS - 1)
        if codec.kind == "int"
        else st.text(TOKEN_ALPHABET, min_size=1, max_size=room)
    )
    return value.map(lambda v: kind(**{name: v}))


@settings(max_examples=400)
@given(st.sampled_from(KINDS).flatmap(_instances))
def test_every_kind_decodes_to_itself(link: Link) -> None:
    text = encode(link)
    assert len(text) <= MAX_PAYLOAD and text.isascii()
    found = decode(link.CHANNEL, text)
    assert found == link and type(found) is type(link)


# The payloads released messages carry (written by hand before the codec): byte for byte the same.
RELEASED: list[tuple[str, str, Link]] = [
    ("start", "h12", HandLink(12)),
    ("start", "jAbC-_9", JoinLink("AbC-_9")),
    ("start", "tpXy_z", PartnerLink("Xy_z")),
    ("start", "v7", ReviewLink(7)),
    ("start", "practica", PracticeLink()),
    ("start", "avisame", NotifyLink()),
    ("start", "mano", PlaceLink()),
    ("startapp", "t5", TableLink(5)),
    ("startapp", "r5", ReplayLink(5)),
    ("startapp", "k3", TourneyLink(3)),
]


@pytest.mark.parametrize(("channel", "text", "link"), RELEASED)
def test_released_links_read_and_write_the_same(channel: str, text: str, link: Link) -> None:
    assert decode(Channel(channel), text) == link
    assert encode(link) == text
    url = links.url(link, "truco_bot", "mesa")
    assert (
        url == f"https://t.me/truco_bot{'/mesa' if channel == 'startapp' else ''}?{channel}={text}"
    )


def test_every_kind_is_released() -> None:
    assert {type(link) for _, _, link in RELEASED} == set(KINDS)


@pytest.mark.parametrize(
    ("channel", "text"),
    [("start", t) for t in ["", "h", "h" + "9" * 20, "h²", "h-1", "h 1", "j", "tp", "t5", "v",
                            "v١", "practica1", "mano ", "x", "H1"]]
    + [("startapp", t) for t in ["", "t", "tx", "t" + "9" * 13, "t1²", "h5", "j5", "r", "K1"]],
)  # fmt: skip
def test_what_we_did_not_make_is_no_link(channel: str, text: str) -> None:
    assert decode(Channel(channel), text) is None


@settings(max_examples=500)
@given(st.sampled_from(list(Channel)), st.one_of(
    st.text(max_size=80),
    st.tuples(st.sampled_from([k.PREFIX for k in KINDS]), st.text(max_size=20)).map("".join),
))  # fmt: skip
def test_any_text_decodes_or_is_refused(channel: Channel, text: str) -> None:
    found = decode(channel, text)  # never raises
    if found is not None and found.FIELD is not None and found.FIELD[1].kind == "int":
        assert decode(channel, encode(found)) == found  # (what we accept we could have made)


def test_a_token_outside_telegrams_alphabet_is_never_written() -> None:
    for bad in ["a b", "ñ", "a/b", "x" * MAX_PAYLOAD]:
        with pytest.raises(ValueError):
            encode(JoinLink(bad))
    for number in [-1, 10**MAX_DIGITS]:
        with pytest.raises(ValueError):
            encode(HandLink(number))


def test_a_prefix_is_one_kinds_in_its_channel() -> None:
    with pytest.raises(TypeError):

        class Again(Link, channel=Channel.START, prefix="h"):
            table: int

    with pytest.raises(TypeError):

        class TwoFields(Link, channel=Channel.START, prefix="zz"):
            a: int
            b: int

    assert all(dataclasses.is_dataclass(kind) for kind in KINDS)
