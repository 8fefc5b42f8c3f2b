"""Every language has every string, with the same placeholders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.game import ActionKind, Reason
from bot.game.events import HandEnd, ScoreReason
from bot.handlers.buttons import SIGNS
from bot.i18n import LANGUAGES, LOCALES_DIR, catalog, placeholders, translator

ROOT = Path(__file__).resolve().parents[2]


def test_every_language_has_every_key_with_the_same_placeholders() -> None:
    base = catalog("es")
    for language in LANGUAGES:
        strings = catalog(language)
        assert set(strings) == set(base), language
        for key, text in strings.items():
            assert placeholders(text) == placeholders(base[key]), (language, key)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_code_the_engine_and_service_can_give_has_a_string(language: str) -> None:
    strings = catalog(language)
    needed = {f"reason.{r.value}" for r in Reason}
    needed |= {f"kind.{k.value}" for k in ActionKind}
    needed |= {f"score_reason.{r.value}" for r in ScoreReason}
    needed |= {f"summary.end.{e.value}" for e in HandEnd if e is not HandEnd.MATCH_OVER}
    needed |= {f"sign.{s}" for s in SIGNS} | {f"sign.meaning.{s}" for s in SIGNS}
    source = "\n".join(p.read_text() for p in (ROOT / "bot").rglob("*.py"))
    codes = set(re.findall(r'Refusal\("([a-z_0-9]+)"', source)) - {"illegal"}  # -> reason.*
    needed |= {f"refusal.{code}" for code in codes}
    needed |= set(re.findall(r'\bt\("([a-z_0-9.]+)"', source))
    assert needed - set(strings) == set()


def test_files_are_valid_json_objects_of_strings() -> None:
    for path in LOCALES_DIR.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert all(isinstance(v, str) for v in data.values())


def test_translator_formats_and_falls_back_to_spanish() -> None:
    t = translator("en")
    assert t("card", number=7, suit=t("suit.e")) == "7 of espadas"
    assert translator("xx")("card", number=1, suit="oro") == "1 de oro"
