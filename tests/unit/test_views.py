"""Views: what each eye may see, and texts and buttons within Telegram's limits."""

from __future__ import annotations

import random
import re

from bot.callbacks import unpack
from bot.game import MatchConfig, MatchState, new_match, observe, random_deal
from bot.game.ending import ending_of, last_ended
from bot.game.events import CardPlayed, HandEnded
from bot.game.state import HandLog
from bot.i18n import Translator, translator
from bot.model.table import Table, TableStatus
from bot.views.common import fosforos_text, seating
from bot.views.common import plain as plain_text
from bot.views.ending import record_lines
from bot.views.scene import Scene, scene_of
from bot.views.table import board_markup, board_text, hand_markup, hand_text

CARD = re.compile(r"(1[0-2]|[1-7]|ancho|siete) de (oro|copa|espada|basto)\b")
SUITS = {"oro": "o", "copa": "c", "espada": "e", "basto": "b"}
NUMBERS = {"ancho": "1", "siete": "7"}  # the top cards, by their names


def scene(t: Translator, state: MatchState, names: dict[int, str], seat: int | None) -> Scene:
    """What `seat` sees of a table playing `state` (its players are 1, 2, ...)."""
    seats: list[int | None] = list(range(1, state.players + 1))
    table = Table(1, -1, 0, TableStatus.PLAYING, 1, state.config, seats, t.language, 0.0, 0.0)
    table.state = state
    ended = last_ended(state)
    return scene_of(t, table, names, seat, [ended] if ended else [])


SHORT = re.compile(r"(1[0-2]|[1-7])(🪙|🍷|🗡️|🪵)")  # "7🗡️": the rounds on the board
EMOJI = {"🪙": "o", "🍷": "c", "🗡️": "e", "🪵": "b"}


def mentioned(text: str) -> set[str]:
    """Every card a text names, long ("ancho de espada", "4 de copa") or short ("4🍷")."""
    named = {f"{NUMBERS.get(n, n)}{SUITS[s]}" for n, s in CARD.findall(text)}
    return named | {f"{n}{EMOJI[e]}" for n, e in SHORT.findall(text)}


def test_fosforos_draw_squares_of_five_and_split_malas_and_buenas() -> None:
    assert fosforos_text(0, 30) == "·"
    assert fosforos_text(7, 30) == "⊠||"
    assert fosforos_text(15, 30) == "⊠⊠⊠"
    assert fosforos_text(21, 30) == "⊠⊠⊠ ┃ ⊠|"
    assert fosforos_text(16, 15) == "⊠⊠⊠|"


def test_no_view_shows_a_card_its_reader_may_not_see() -> None:
    t = translator("es")
    for players in (2, 4):
        names = {i: f"<P{i}>" for i in range(1, players + 1)}
        who = seating(list(range(1, players + 1)), names)
        for seed in range(40):
            rng = random.Random(seed)
            state = new_match(MatchConfig(players=players, target=15))
            public: set[str] = set()
            before: set[str] = set()  # the last hand's cards played and shown: its record's
            while not state.is_over:
                if state.needs_deal:
                    state.apply(random_deal(rng, players))
                    before, public = public, set()
                    continue
                assert state.hand is not None
                held = {s: {c.code for c in state.hand.held[s]} for s in range(players)}
                board = observe(state)
                text = board_text(t, scene(t, state, names, None))
                assert mentioned(text) <= public | before, text
                assert "&lt;P1&gt;" in text and len(text) < 4096
                markup = board_markup(t, 1, board)
                for row in markup.inline_keyboard if markup else ():
                    for button in row:
                        assert unpack(button.callback_data) is not None  # type: ignore[arg-type]
                for seat in range(players):
                    obs = observe(state, seat)
                    mine = hand_text(t, scene(t, state, names, seat))
                    others = set().union(*(held[s] for s in range(players) if s != seat))
                    assert not mentioned(mine) & (others - public - before), mine
                    assert len(mine) < 4096
                    hand_markup(t, 1, obs, signs=players == 4)
                events = state.apply(rng.choice(state.legal_actions()))
                for event in events:
                    if isinstance(event, CardPlayed):
                        public.add(event.card.code)
                    if isinstance(event, HandEnded):
                        shown = {c.code for _, cs in event.shown for c in cs}
                        public |= shown
                        assert state.hand is not None
                        ending = ending_of(state.config, HandLog.of(state.hand))
                        summary = "\n".join(record_lines(t, who, ending))
                        assert mentioned(summary) <= public, summary


def test_a_pending_chant_names_its_singer_its_stakes_and_who_answers_to_each_reader() -> None:
    """2v2, sin flor: the mano chants ¡Truco!. The board names one person and what each
    answer is worth; each private hand speaks to its reader."""
    from bot.game import ActionKind

    t = translator("es")
    names = {1: "Ana", 2: "Beto", 3: "Carla", 4: "Dario"}
    state = new_match(MatchConfig(players=4, flor=False))
    state.apply(random_deal(random.Random(2), 4))
    singer = state.legal_actions()[0].seat
    truco = next(a for a in state.legal_actions() if a.kind is ActionKind.TRUCO)
    state.apply(truco)
    side = singer % 2
    rivals = [s for s in range(4) if s % 2 != side]
    partner = (singer + 2) % 4

    board = board_text(t, scene(t, state, names, None))
    n = lambda s: f"<b>{names[s + 1]}</b>"  # noqa: E731
    line = next(x for x in board.splitlines() if x.startswith("⏳"))
    assert line.startswith(f"⏳ {n(singer)}: <b>¡Truco!</b>")
    assert "Quiero → vale 2" in line and f"No quiero → {n(side)} y {n(side + 2)} +1" in line
    assert f"contesta {n(rivals[0])} o {n(rivals[1])}" in line

    mine = hand_text(t, scene(t, state, names, singer))
    assert "⏳ Cantaste <b>¡Truco!</b>" in mine and "esperá a" in mine
    assert "esperá a" in hand_text(t, scene(t, state, names, partner))
    answerer = hand_text(t, scene(t, state, names, rivals[0]))
    assert f"contestás vos o {n(rivals[1])}" in answerer
    assert "Te toca" not in answerer  # the answer is asked for in the line itself


def test_the_hand_record_names_the_real_reason() -> None:
    """ "+2 (truco no querido)" was a retruco not wanted; "+4 (la mano)" a vale cuatro won;
    a mazo says who went, and why it is worth two."""
    from tests.engine.helpers import do, start

    t = translator("es")
    who = seating([1, 2], {1: "Ana", 2: "Beto"})
    hands = "1e 4c 5o | 3o 4o 5c"

    def record(*codes: str, config: MatchConfig | None = None) -> str:
        state = start(hands, config or MatchConfig(flor=False))
        do(state, *codes)
        assert state.hand is not None
        return record_lines(t, who, ending_of(state.config, HandLog.of(state.hand)))[0]

    assert "<b>Beto</b> +2 (retruco no querido)" in record("0:t", "1:rt", "0:nq")
    assert "<b>Ana</b> +1 (truco no querido)" in record("0:t", "1:nq")
    won = record("0:t", "1:rt", "0:v4", "1:q", "0:p:1e", "1:p:3o", "0:p:4c", "1:p:4o")
    assert "<b>Ana</b> +4 (vale cuatro querido)" in won
    early = record("0:m", config=MatchConfig(flor=False, mazo_penalty=True))
    assert "<b>Beto</b> +2 (<b>Ana</b> se fue al mazo en la 1ª, sin envido: vale 2)" in early
    late = record("0:p:1e", "1:p:3o", "0:m")
    assert "+1 (<b>Ana</b> se fue al mazo)" in late
    envido = record("0:e", "1:re", "0:q")
    assert "<b>Beto</b> ya sumó 5 (envido y real envido querido)" in envido


def test_cards_are_named_as_a_table_names_them() -> None:
    from bot.game import Card
    from bot.views.common import card_name

    t = translator("es")
    assert card_name(t, Card.parse("7o")) == "siete de oro 🪙"
    assert card_name(t, Card.parse("7e")) == "siete de espada 🗡️"
    assert card_name(t, Card.parse("1b")) == "ancho de basto 🪵"
    assert card_name(t, Card.parse("4c")) == "4 de copa 🍷"
    assert "7 de oros" not in t("reglas") and "siete de oro" in t("reglas")


def test_values_are_said_in_the_order_they_were_said() -> None:
    """R19 at six: "son buenas" stays where it was said (neighbours named together), and a 0
    is said as a table says it."""
    from bot.views.common import Seating, said_line

    t = translator("es")
    who = Seating(("Ana", "Beto", "Caro", "Dani", "Eva", "Fede"))
    said = [(4, 7), (5, 20), (0, None), (2, 23), (3, None), (1, None)]
    assert plain_text(said_line(t, who, said)) == (
        "Eva 7 · Fede 20 · Ana son buenas · Caro 23 · Dani y Beto son buenas"
    )
    assert plain_text(said_line(t, who, [(1, 0), (0, 27)])) == "Beto nada · Ana 27"


def test_hints_read_as_a_teacher_would_say_them() -> None:
    """Each hint says what it advises, why and its odds, always: a refusal says it is the
    chance a want would have had, and what refusing costs against what wanting risks; a bluff
    is named a bluff, with how often it works, what it gains when it does and what it risks;
    a low chance never reads "solo menos de 1 de cada 10"; the English reads as English."""
    from bot.ai.hints import Hint, Stakes, Topic
    from bot.game import Action, ActionKind
    from bot.views.hints import hint_text

    K = ActionKind
    es, en = translator("es"), translator("en")
    falta, truco = Action(0, K.FALTA_ENVIDO), Action(0, K.TRUCO)
    retruco = Action(0, K.RETRUCO)
    quiero, refuse, mazo = Action(0, K.QUIERO), Action(0, K.NO_QUIERO), Action(0, K.MAZO)
    bluff = Hint(falta, Topic.ENVIDO, 0.3, 0.3, falta, 6, 100, stakes=Stakes(1, 30, 1))
    assert hint_text(es, bluff, team=True) == (
        "💡 Falta envido, de farol: con tu 6, si se lo quieren ganan el envido 3 de cada 10"
        " veces. Si se achican, suman 1 punto; si lo quieren y pierden, pierden 30."
    )
    assert hint_text(en, bluff) == (
        "💡 Falta envido as a bluff: with 6, if they accept you win the envido 3 times in 10."
        " If they back down, you score 1 point; if they accept and you lose, you lose 30."
    )
    works = Hint(truco, Topic.HAND, 0.35, 0.35, truco, 20, 100, stakes=Stakes(1, 2, 1))
    assert hint_text(es, works) == (
        "💡 ¡Truco!, de farol: te sale bien 4 de cada 10 veces. Si se achican, sumás 1 punto;"
        " si lo quieren y perdés, perdés 2 en vez de 1: arriesgás 1 más para ganar 1."
    )
    assert hint_text(en, works).startswith("💡 ¡Truco! as a bluff: it works 4 times in 10.")
    # the issue's: "¡Retruco!, de farol: les sale bien menos de 1 de cada 10 veces", alone
    seldom = Hint(retruco, Topic.HAND, 0.04, 0.04, retruco, 20, 100, stakes=Stakes(2, 3, 2))
    assert hint_text(es, seldom, team=True) == (
        "💡 ¡Retruco!, de farol: les sale bien menos de 1 de cada 10 veces. Si se achican, suman"
        " 2 puntos; si lo quieren y pierden, pierden 3 en vez de 2: arriesgan 1 más para ganar 2."
    )
    honest = Hint(truco, Topic.HAND, 0.8, 0.8, truco, 20, 100, stakes=Stakes(1, 2, 1))
    assert hint_text(es, honest) == "💡 ¡Truco!: ganás la mano 8 de cada 10 veces."
    gone = Hint(mazo, Topic.HAND, 0.02, 0.03, quiero, 20, 100, stakes=Stakes(1, 2, 1))
    assert hint_text(es, gone) == (
        "💡 Me voy al mazo: si la seguís, ganás la mano menos de 1 de cada 10 veces. Irse cuesta"
        " 1 punto; seguir y perder, 2."
    )
    turned = Hint(refuse, Topic.HAND, 0.21, 0.3, quiero, 20, 100, stakes=Stakes(1, 2, 1))
    assert hint_text(es, turned) == (
        "💡 No quiero: si lo querés, ganás la mano solo 2 de cada 10 veces. No querer cuesta 1"
        " punto; querer y perder, 2."
    )
    assert hint_text(en, turned) == (
        "💡 No quiero: if you accept, you win the hand only 2 times in 10. Declining costs 1"
        " point; accepting and losing, 2."
    )
    # the issue's: "No quiero: con tu 5, ganan el envido 3 de cada 10 veces" read as a win
    envido_no = Hint(refuse, Topic.ENVIDO, 0.3, 0.3, refuse, 5, 100, stakes=Stakes(1, 2, 1))
    assert hint_text(es, envido_no, team=True) == (
        "💡 No quiero: con tu 5, si lo quieren, ganan el envido solo 3 de cada 10 veces. No"
        " querer cuesta 1 punto; querer y perder, 2."
    )
    every = (bluff, works, seldom, honest, gone, turned, envido_no)
    for t in (es, en):
        for hint in every:
            for team in (False, True):
                said = hint_text(t, hint, team)
                assert "solo menos" not in said and "only less" not in said
                assert "wanting it" not in said and "would be yours" not in said


def test_no_hint_is_ever_a_bare_move() -> None:
    """Every kind of hint, in both languages, alone or with partners, says more than its move:
    why (a chance, a flor, what is at stake), and its odds ("de cada 10"), or, where no world
    could be drawn at all, that it is difícil's move and that the chance could not be had."""
    from bot.ai.hints import Hint, Stakes, Topic
    from bot.game import Action, ActionKind, Card
    from bot.views.hints import hint_text, move_text

    K = ActionKind
    card = Action(0, K.PLAY, Card.parse("12e"))  # (the longest card's name)
    cases = [
        Hint(card, Topic.HAND, 0.6, 0.6, card, 20, 40),
        *(
            Hint(Action(0, k), Topic.HAND, c, c, p, 20, 40, None, low, high, Stakes(3, 4, 3))
            for k, p in ((K.QUIERO, Action(0, K.QUIERO)), (K.NO_QUIERO, Action(0, K.QUIERO)),
                         (K.MAZO, Action(0, K.QUIERO)), (K.MAZO, card),
                         (K.TRUCO, Action(0, K.TRUCO)), (K.RETRUCO, Action(0, K.RETRUCO)),
                         (K.VALE_CUATRO, Action(0, K.VALE_CUATRO)))
            for c in (0.02, 0.35, 0.8)
            for low, high in ((None, None), (0.2, 0.6))  # (a range against a stranger)
        ),
        *(
            Hint(Action(0, k), Topic.ENVIDO, c, c, Action(0, k), 27, 40, stakes=Stakes(1, 30, 0))
            for k in (K.QUIERO, K.NO_QUIERO, K.MAZO, K.ENVIDO, K.REAL_ENVIDO, K.FALTA_ENVIDO)
            for c in (0.02, 0.35, 0.8)
        ),
        *(
            Hint(Action(0, k), Topic.FLOR, c, c, Action(0, k), 33, 40, flor=33)
            for k in (K.FLOR, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO, K.CON_FLOR_ME_ACHICO,
                      K.QUIERO, K.NO_QUIERO)
            for c in (0.02, 0.5, 0.97)
        ),
    ]  # fmt: skip
    for t in (translator("es"), translator("en")):
        ten = "de cada 10" if t.language == "es" else "in 10"
        for hint in cases:
            for team in (False, True):
                said = plain_text(hint_text(t, hint, team))
                move = move_text(t, hint.action)
                assert said.startswith(f"💡 {move}") and len(said) > len(move) + 20, said
                assert len(said) <= 200, said  # (the answer to a tap: Telegram's limit)
                assert ten in said, said
                if hint.action.kind in (K.NO_QUIERO, K.MAZO) and hint.topic is not Topic.FLOR:
                    stakes = hint.stakes
                    assert stakes is not None  # what backing down costs, what wanting risks
                    assert f" {stakes.folded} " in said and f" {stakes.wanted}." in said, said
        none = Hint(Action(0, K.QUIERO), Topic.NONE, None, None, Action(0, K.QUIERO), 20, 0)
        said = plain_text(hint_text(t, none))
        assert said.startswith("💡 Quiero") and len(said) > 30, said


def test_a_review_says_the_cards_in_hand_not_those_already_on_the_table() -> None:
    """A decision is told with the cards the person still held then: the ones already played
    are on the table (its own line), not in hand again ("con 11🗡️, 3🪵 y 5🍷" while 3🪵 and
    11🗡️ were played)."""
    from bot.ai.review import RIVAL, YOU, Moment, Worth
    from bot.views.review import slip_text

    es = translator("es")
    on_table = ((YOU, "3b"), (RIVAL, "4o"), (YOU, "11e"), (RIVAL, "7c"))
    late = Moment(
        hand=4, step=30, dealt=("11e", "3b", "5c"), held=("5c",), table=on_table,
        scores=(10, 12), calls=(), pending=None, envido=5, made="0:t", best="0:m",
        made_worth=Worth(-2.0, 0.1), best_worth=Worth(-1.0, 0.0), error=0.1,
        habit="chant_truco", worlds=48,
    )  # fmt: skip
    head, position, *_ = plain_text(slip_text(es, 1, late)).splitlines()
    assert head == "1. Cantar truco con 5🍷 te costó 1,0 puntos.", head
    assert "en la mesa: 3🪵 (vos), 4🪙 (rival), 11🗡️ (vos), 7🍷 (rival)" in position
    card = Moment(
        hand=4, step=20, dealt=("11e", "3b", "5c"), held=("3b", "5c"), table=on_table[:2],
        scores=(10, 12), calls=(), pending=None, envido=5, made="0:p:5c", best="0:p:3b",
        made_worth=Worth(-1.0, 0.2), best_worth=Worth(0.5, 0.6), error=0.1, habit="card",
        worlds=48,
    )  # fmt: skip
    head = plain_text(slip_text(es, 1, card)).splitlines()[0]
    assert "con 3🪵 y 5🍷 te costó" in head and "11🗡️" not in head, head
