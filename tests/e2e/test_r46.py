"""R46, the falta a las malas, as a table's option through the real bot: the lobby and /config
offer it for matches to 30, /nueva takes it as a word, the rules line and /reglas say it, and a
match played with it scores its falta envido as R46 says."""

from __future__ import annotations

from tests.conftest import GROUP, Harness
from tests.e2e.helpers import hand_message, open_table

MALAS = "falta a las malas"


async def test_the_lobby_offers_it_for_a_match_to_30_and_the_table_plays_it(
    harness: Harness,
) -> None:
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    ana.send(GROUP, "/nueva")
    await h.settle()
    lobby = h.fake.last(GROUP)
    labels = [b["text"] for b in lobby.buttons()]
    assert "🔄 Falta a las malas: no" in labels and MALAS not in lobby.text
    answer = await beto.tap(GROUP, lobby.message_id, "🔄 Falta a las malas: no")
    assert answer["text"] == "Solo quien abrió la mesa cambia las opciones."
    await ana.tap(GROUP, lobby.message_id, "🔄 Falta a las malas: no")
    await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    assert MALAS in lobby.text and "🔄 Falta a las malas: sí" in [
        b["text"] for b in lobby.buttons()
    ]
    ana.send(GROUP, "/reglas")  # the machete says it while this table plays it
    await h.settle()
    assert "En esta mesa, falta a las malas" in h.fake.last(GROUP).text
    # to 15 it means nothing: not offered, not said
    await ana.tap(GROUP, lobby.message_id, "🔄 Partida: a 30")
    await h.settle()
    lobby = h.fake.messages[GROUP][lobby.message_id]
    assert MALAS not in lobby.text
    assert not any("Falta a las malas" in b["text"] for b in lobby.buttons())
    ana.send(GROUP, "/cancelar")
    await h.settle()
    ana.send(GROUP, "/reglas")
    await h.settle()
    assert "En esta mesa" not in h.fake.last(GROUP).text

    # /nueva takes it as a word; each player's hand says it (the engine's tests score it)
    await open_table(h, [ana, beto], "malas")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    assert table.config.falta_malas and table.state.config.falta_malas
    for user in (ana, beto):
        hand = hand_message(h, user) or h.fake.last(user.id)
        assert MALAS in hand.text, hand.text
