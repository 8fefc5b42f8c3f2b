"""Every language has every string, with the same placeholders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.ai.signs import SIGNS
from bot.game import ActionKind, Reason
from bot.game.events import HandEnd, ScoreReason
from bot.i18n import LANGUAGES, LOCALES_DIR, catalog, placeholders, plural_forms, translator

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


def test_files_are_valid_json_objects_of_strings_or_plural_forms() -> None:
    for path in LOCALES_DIR.glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        for value in data.values():
            assert isinstance(value, str) or (
                isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
            ), (path.name, value)


def test_both_locales_agree_on_plural_forms() -> None:
    """A string that depends on a count has plural forms in every language; each language
    gives `one` and `other` and no form its CLDR rule does not have; every form of a string
    uses the same placeholders, `count` among them unless the form is the same for all."""
    plural = {
        lang: {k for k, v in catalog(lang).items() if isinstance(v, dict)} for lang in LANGUAGES
    }
    assert plural["es"], "no plural strings at all"
    for language in LANGUAGES:
        assert plural[language] == plural["es"], language
        for key in plural[language]:
            forms = catalog(language)[key]
            assert isinstance(forms, dict)
            assert {"one", "other"} <= set(forms) <= plural_forms(language), (language, key)
            names = [placeholders(text) for text in forms.values()]
            assert all(n == names[0] for n in names), (language, key)


def test_plural_forms_are_chosen_by_count_and_the_language() -> None:
    es, en = translator("es"), translator("en")
    pair = es("side.pair", a="Beto", b="Darío")
    assert es("summary.end.rounds", side=pair, count=2) == "Beto y Darío ganan la mano."
    assert es("summary.end.rounds", side="Ana", count=1) == "Ana gana la mano."
    assert es("match.winner", side=pair, count=2) == "🏆 ¡Ganaron Beto y Darío!"
    assert en("summary.end.rounds", side="Ana", count=1) == "Ana wins the hand."
    assert en("summary.end.rounds", side="Ana and Carla", count=2) == "Ana and Carla win the hand."
    assert es("yo.partner", name="Ana", count=1).endswith("(1 partida juntos)")
    assert en("yo.partner", name="Ana", count=7).endswith("(7 matches together)")
    assert es("tabla.provisional", count=1_000_000) == "Con menos de 1000000 partidas:"  # many
    with pytest.raises(TypeError):
        es("match.winner", side="Ana")  # a plural string needs its count


def test_translator_formats_and_falls_back_to_spanish() -> None:
    t = translator("en")
    assert t("card", number=7, suit=t("suit.e")) == "7 of espadas"
    assert translator("xx")("card", number=1, suit="oro") == "1 de oro"
