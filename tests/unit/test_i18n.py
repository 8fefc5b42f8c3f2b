"""Every language has every string, with the same placeholders."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.ai.signs import SIGNS
from bot.game import ActionKind, Reason
from bot.game.events import ScoreReason
from bot.i18n import LOCALES_DIR, catalog, languages, placeholders, plural_forms, translator
from bot.model.refusals import Refused

LANGUAGES = languages()
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
    needed |= {f"sign.{s}" for s in SIGNS} | {f"sign.meaning.{s}" for s in SIGNS}
    source = "\n".join(p.read_text() for p in (ROOT / "bot").rglob("*.py"))
    needed |= {code.key for code in Refused if code is not Refused.ILLEGAL}  # (-> reason.*)
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
    counted = {"points": 3, "reason": "flor"}
    assert es("ending.counted", side=pair, count=2, **counted) == "Beto y Darío ya sumaron 3 (flor)"
    assert es("ending.counted", side="Ana", count=1, **counted) == "Ana ya sumó 3 (flor)"
    assert es("match.winner", side=pair, count=2) == "🏆 ¡Ganaron Beto y Darío!"
    assert en("match.winner", side="Ana", count=1) == "🏆 Ana won!"
    assert es("yo.partner", name="Ana", count=1).endswith("(1 partida juntos)")
    assert en("yo.partner", name="Ana", count=7).endswith("(7 matches together)")
    many = es("tabla.provisional", count=1_000_000)
    assert many == "Con menos de 1000000 partidas (ganadas de jugadas):"
    with pytest.raises(TypeError):
        es("match.winner", side="Ana")  # a plural string needs its count


def test_translator_formats_and_falls_back_to_spanish() -> None:
    t = translator("en")
    assert t("card", number=7, suit=t("suit.e")) == "7 of espadas"
    assert translator("xx")("card", number=1, suit="oro") == "1 de oro"


def test_every_word_the_web_page_asks_for_is_sent_to_it() -> None:
    """app.js asks `w("key")` for the words the server sends it (WEB_WORDS): a key missing
    there shows as its bare name on the page."""
    import re
    from pathlib import Path

    from bot.web.routes import WEB_WORDS

    script = (Path(__file__).resolve().parents[2] / "bot" / "web" / "static" / "app.js").read_text()
    asked = set(re.findall(r"\bw\(\"([A-Za-z_]+)\"\)", script))
    assert asked and asked <= {word.removeprefix("web.") for word in WEB_WORDS}, sorted(
        asked - {word.removeprefix("web.") for word in WEB_WORDS}
    )
