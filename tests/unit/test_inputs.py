"""What people type and tap reaches the bot as text: button data, command arguments, start
payloads, names. Thrown at by hypothesis, every parser answers (a value or a refusal) and never
raises; what it accepts is well formed."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.callbacks import MAX_BYTES, pack, unpack
from bot.game import MatchConfig
from bot.handlers.commands import parse_bot, parse_options
from bot.handlers.common import ascii_number
from bot.model.names import BOT_MARK, MAX_NAME, clean_name, told_apart

HOSTILE = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["a:1:2:p:1e", "a:1:2:p", "l:1:j:0", "p:t:7:99999", "a:99999999999999:1:q",
                     "a:1:2:q:1e", "s:1:2:m", "r:0", "g:fr", "k:", "v:1:z", "c:1:2", ":::",
                     "a:1:-2:q", "a:١:2:q", "a:1:2²:q"]),
    st.lists(st.sampled_from(["a", "l", "p", "1", "99999999999999999", ":", "e", "x", "j"]),
             max_size=8).map("".join),
)  # fmt: skip


@settings(max_examples=1500)
@given(text=HOSTILE)
def test_button_data_is_ours_or_nothing(text: str) -> None:
    data = unpack(text)
    if data is not None:
        again = pack(data)
        assert len(again.encode()) <= MAX_BYTES and unpack(again) == data


WORDS = st.lists(
    st.one_of(
        st.text(max_size=20),
        st.sampled_from(["1v1", "2v2", "3v3", "2x2", "15", "30", "conflor", "sinflor", "bot",
                         "difícil", "DIFICIL", "mazo2", "casa", "0", "-1", "1e999"]),
    ),
    max_size=8,
)  # fmt: skip


@settings(max_examples=800)
@given(words=WORDS)
def test_command_arguments_give_a_table_or_the_word_not_understood(words: list[str]) -> None:
    rest, _, level = parse_bot(words)
    assert level in (None, "facil", "normal", "dificil")
    config, unknown = parse_options(rest)
    assert isinstance(config, MatchConfig)  # always a valid table (or the defaults)
    assert unknown is None or (unknown in [w[:32] for w in rest] and len(unknown) <= 32)


@given(payload=st.text(max_size=40))
def test_start_payload_numbers_are_small_ascii_or_nothing(payload: str) -> None:
    number = ascii_number(payload[1:])
    assert number is None or (0 <= number < 10**12 and payload[1:].isascii())


@settings(max_examples=1000)
@given(name=st.text(max_size=120))
@example(name="H\x1f\u0323")  # a mark the control kept apart from its letter (seen in a run)
@example(name="a" * 63 + " b")  # the cut at a space
def test_a_name_keeps_nothing_invisible_or_misleading(name: str) -> None:
    clean = clean_name(name)
    assert clean == clean_name(clean)  # settled
    assert len(clean) <= MAX_NAME and clean == clean.strip() and "  " not in clean
    assert BOT_MARK not in clean
    for c in clean:
        assert unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"), c


def test_the_names_the_probe_used() -> None:
    assert clean_name("\u200b\u200b\u200c\u2060") == ""  # only zero-width: nothing left
    assert clean_name("\u202e🤖 Bot normal") == "Bot normal"  # no override, no mark
    assert clean_name("  Ana \n\t Gómez  ") == "Ana Gómez"
    assert told_apart(["Ana", "Beto", "ana", "Ana"]) == ["Ana", "Beto", "ana 2", "Ana 3"]
