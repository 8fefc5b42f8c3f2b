"""A group looks back: /historial, /partida hand by hand, the JSON export that replays with the
engine, and deals anyone can check against the seed revealed at the end."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from bot.game import MatchConfig, parse_any, replay
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import open_table, play_to_the_end, read_account

ROOT = Path(__file__).resolve().parents[2]
OTHER = -100777


def readme_snippet() -> str:
    """The "check the deals" code of docs/playing.md, run as the page shows it."""
    text = (ROOT / "docs" / "playing.md").read_text(encoding="utf-8")
    match = re.search(
        r"<!-- verify:start -->\s*```python\n(.*?)```\s*<!-- verify:end -->", text, re.S
    )
    assert match, "docs/playing.md lost its deal-checking snippet"
    return match.group(1)


async def test_history_account_export_and_verification_of_a_finished_match(
    harness: Harness,
) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seed is not None
    seed = table.seed
    sealed = hashlib.sha256(seed.encode()).hexdigest()
    board = h.fake.last(GROUP)
    assert sealed[:12] in board.text  # the seal is on the board from the first deal (short)
    ana.send(GROUP, f"/verificar {table.id}")
    await h.settle()
    assert "sigue en juego" in h.fake.last(GROUP).text and sealed in h.fake.last(GROUP).text
    await play_to_the_end(h, [ana, juan], seed=2)
    await h.settle()
    # The seed was never shown while the match ran; its end points to /verificar, which
    # reveals it now.
    assert not [x for chat in (GROUP, 1, 2) for x in h.fake.texts(chat) if seed in x]
    ended = next(x for x in h.fake.texts(GROUP) if x.startswith("🏆"))
    assert f"/verificar {table.id}" in ended

    state = (await h.store.table(table.id)).state  # type: ignore[union-attr]
    assert state is not None and state.is_over
    log = [parse_any(code) for _, _, code in await h.store.action_log(table.id)]

    # /historial lists it; its 🔎 button opens it hand by hand, in pages under the limit.
    ana.send(GROUP, "/historial")
    await h.settle()
    listing = h.fake.last(GROUP)
    assert (
        "Ana</b> vs <b>Juan" in listing.text
        and f"{state.scores[0]}–{state.scores[1]}" in listing.text
    )
    assert f"{state.hand_number} manos" in listing.text
    seen = await read_account(h, ana, listing, table.id)
    account = h.fake.last(GROUP)
    for text in h.fake.texts(GROUP):
        assert len(text) <= 4096
    hands = {int(n) for n in re.findall(r"<b>Mano (\d+)</b> · da", seen)}
    assert hands == set(range(1, state.hand_number + 1))
    first_deal = log[0]
    for card in first_deal.hands[0]:  # type: ignore[union-attr]
        assert card.code[:-1] in seen  # the cards of each hand, revealed

    # The export replays with the engine to the same final state.
    await juan.tap(GROUP, account.message_id, "📄 Exportar JSON")
    await h.settle()
    chat, filename, body, _ = h.fake.documents[-1]
    assert chat == juan.id and filename == f"partida-{table.id}.json"
    exported = json.loads(body)
    config = MatchConfig.from_dict(exported["config"])
    again = replay(config, [parse_any(code) for code in exported["log"]])
    assert again.to_dict() == state.to_dict() and exported["scores"] == state.scores
    assert exported["seed"] == seed and exported["commitment"] == sealed
    # How it ended, in the model's one vocabulary (the format's second version).
    assert exported["format"] == "truco-bot/match/2" and exported["termination"] == "target"
    assert exported["winner_side"] == (0 if state.scores[0] > state.scores[1] else 1)

    # /verificar says every deal comes from the seed; the README's few lines agree.
    ana.send(GROUP, f"/verificar {table.id}")
    await h.settle()
    verdict = h.fake.last(GROUP).text
    assert f"Los {state.hand_number} repartos salen de la semilla ✅" in verdict and seed in verdict
    namespace: dict[str, object] = {}
    exec(readme_snippet(), namespace)  # the README's own code, checked
    check = namespace["check"]
    assert check(exported) is True  # type: ignore[operator]
    tampered = dict(exported, log=list(exported["log"]))
    first = tampered["log"][0].split("|")
    first[0], first[1] = first[1], first[0]
    tampered["log"][0] = "|".join(first)
    assert check(tampered) is False  # type: ignore[operator]


async def test_bad_numbers_other_groups_and_running_matches_are_refused(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    for args in ("", "x", "1 2", "99999999999999"):
        ana.send(GROUP, f"/partida {args}".strip())
        await h.settle()
        assert "Uso: /partida" in h.fake.last(GROUP).text, args
    ana.send(GROUP, f"/partida {table.id}")  # still being played: no cards revealed
    await h.settle()
    assert "No hay una partida terminada" in h.fake.last(GROUP).text
    await play_to_the_end(h, [ana, juan], seed=3)
    h.fake.members[OTHER] = {1}
    ana.send(OTHER, f"/partida {table.id}")  # another group's match
    await h.settle()
    assert "No hay una partida terminada" in h.fake.last(OTHER).text
    ana.send(OTHER, f"/verificar {table.id}")
    await h.settle()
    assert "No hay una partida terminada" in h.fake.last(OTHER).text
    forged = ana.tap_data(GROUP, h.fake.last(GROUP).message_id, "p:m:424242:0")
    assert "No hay una partida terminada" in (await ana.answer_of(forged))["text"]


async def test_a_match_opened_from_the_list_comes_below_it_and_the_list_stays(
    harness: Harness,
) -> None:
    """Under polling the bot never reads a tapped message's text (it is dropped before
    parsing): the 🔎 button itself says it comes from /historial, so the list is not edited
    away but answered with the match below it."""
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    await play_to_the_end(h, [ana, juan], seed=4)
    ana.send(GROUP, "/historial")
    await h.settle()
    listing = h.fake.last(GROUP)
    before = listing.text
    await ana.tap(GROUP, listing.message_id, f"🔎 {table.id}")
    await h.settle()
    assert h.fake.messages[GROUP][listing.message_id].text == before  # the list stays
    account = h.fake.last(GROUP)
    assert account.message_id != listing.message_id
    assert account.reply_to == listing.message_id
    assert f"<b>Partida {table.id}</b>" in account.text or f"Partida {table.id}" in account.text
    # Its pages turn in place: the match's own message is edited, no new message.
    if any(b["text"] == "▶️" for b in account.buttons()):
        count = len(h.fake.messages[GROUP])
        await ana.tap(GROUP, account.message_id, "▶️")
        await h.settle()
        assert len(h.fake.messages[GROUP]) == count
