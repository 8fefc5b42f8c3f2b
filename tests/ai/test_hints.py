"""💡 Hints (bot/ai/hints.py): difícil's own move for the asking seat, from that seat's
observation only, with a chance that means what it says; and how a hint reads."""

from __future__ import annotations

import math
import random

import pytest

from bot.ai import Level, decide
from bot.ai.hints import (
    CALIBRATION,
    FLOOR,
    KNOWN_HANDS,
    Hint,
    Known,
    Topic,
    advise,
    calibrated,
    envido_won,
    probe_of,
    stakes_of,
    stated,
)
from bot.ai.search import Machine
from bot.game import (
    Action,
    ActionKind,
    Card,
    Deal,
    MatchConfig,
    MatchState,
    new_match,
    observe,
    side_of,
)
from bot.game.actions import ENVIDO_CHANTS
from bot.game.events import Scored
from bot.game.state import Pending
from bot.i18n import translator
from bot.views.common import card_name
from bot.views.hints import hint_text, move_text
from bot.views.table import FLOR_FAMILY
from tests.ai.test_players import CONFIGS, _hidden_swapped, configs, states

K = ActionKind
INFINITE = math.inf


def hint(obs: object, seed: int) -> Hint:
    """A hint with no clock (all its worlds, whatever the machine's load)."""
    return advise(obs, seed, budget=INFINITE, worlds=40)  # type: ignore[arg-type]


@pytest.mark.parametrize("config", configs(fast=0))
def test_a_hint_is_dificils_own_move_for_the_same_observation_and_seed(
    config: MatchConfig,
) -> None:
    checked = 0
    topics = set()
    for index, (state, _) in enumerate(states(config, seed=23, count=25)):
        seat = state.acting_seats()[0]
        obs = observe(state, seat)
        got = hint(obs, index)
        assert got.action == decide(obs, Level.DIFICIL, index, budget=INFINITE)
        assert got.action in obs.actions and got.probe in obs.actions
        if got.chance is not None:
            assert 0.0 <= got.chance <= 1.0 and got.worlds >= 12
        topics.add(got.topic)
        checked += 1
    assert checked == 25 and Topic.HAND in topics


@pytest.mark.slow("many cases: the whole suite runs them")
def test_a_hint_reads_only_the_seats_observation() -> None:
    """Deal the other seats' hidden cards anew, keeping what the asking seat sees: the hint
    (its move, its chance to the last digit) does not change."""
    config = CONFIGS[2]  # 2v2: a partner's cards are hidden too
    rng = random.Random(5)
    checked = changed = 0
    for index, (state, log) in enumerate(states(config, seed=31, count=30)):
        seat = state.acting_seats()[0]
        obs = observe(state, seat)
        for _ in range(3):
            other = _hidden_swapped(config, log, seat, rng)
            if other is None or observe(other, seat) != obs:
                continue
            assert other.hand is not None and state.hand is not None
            changed += other.hand.dealt != state.hand.dealt
            assert hint(observe(other, seat), index) == hint(obs, index)
            checked += 1
            break
    assert checked >= 20 and changed >= 15


def _dealt_to_the_mano(mano: str, other: str, config: MatchConfig) -> MatchState:
    """A match's first hand with `mano`'s cards to the mano and `other`'s to the other seat."""
    cards = tuple(Card.parse(c) for c in mano.split()), tuple(Card.parse(c) for c in other.split())
    state = new_match(config)
    state.apply(Deal(cards))
    if state.acting_seats()[0] != 0:  # the mano is seat 1: deal again, the other way round
        state = new_match(config)
        state.apply(Deal((cards[1], cards[0])))
    return state


def test_the_chance_of_the_envido_is_what_the_cards_say() -> None:
    """Answering an envido with 33 (the best there is) the hint says it is won; with 5
    against a rival who chanted, that it is rarely won; and the deal's own truth agrees."""
    config = MatchConfig(players=2, flor=False)
    for answerer, expect_high in (("7e 6e 4o", True), ("12c 5b 3o", False)):
        other = "12c 5b 3o" if expect_high else "7e 6e 4o"
        state = _dealt_to_the_mano(other, answerer, config)
        mano = state.acting_seats()[0]
        state.apply(Action(mano, K.ENVIDO))
        obs = observe(state, 1 - mano)
        assert obs.pending is Pending.ENVIDO
        got = hint(obs, 1)
        assert got.topic is Topic.ENVIDO and got.chance is not None
        if expect_high:
            assert got.envido == 33 and got.chance > 0.9
        else:
            assert got.envido == 5 and got.chance < 0.3
        assert envido_won(state, side_of(1 - mano)) is expect_high


def test_a_refusal_tells_the_chance_it_turns_down() -> None:
    """A truco refused or the mazo loses the hand for sure: the chance a hint tells then is
    of the hand wanted, or played on with the best card."""
    config = MatchConfig(players=2, flor=False)
    state = _dealt_to_the_mano("4c 5o 6b", "1e 1b 7e", config)
    mano = state.acting_seats()[0]
    at_turn = observe(state, mano)
    mazo = next(a for a in at_turn.actions if a.kind is K.MAZO)
    best = probe_of(at_turn, mazo)
    assert best.kind is K.PLAY and best.card == Card.parse("6b")
    state.apply(Action(mano, K.TRUCO))
    obs = observe(state, 1 - mano)
    refuse = next(a for a in obs.actions if a.kind is K.NO_QUIERO)
    assert probe_of(obs, refuse).kind is K.QUIERO
    wanted = next(a for a in obs.actions if a.kind is K.QUIERO)
    assert probe_of(obs, wanted) == wanted
    # with both anchos and a 7 of espadas (envido 28) against 4, 5, 6: the truco wanted or
    # raised, or the envido first ("el envido está primero"), each nearly sure
    got = hint(obs, 3)
    assert got.action.kind in (K.QUIERO, K.RETRUCO, K.VALE_CUATRO, *ENVIDO_CHANTS)
    assert got.chance is not None and got.chance > 0.8


def test_calibration_maps_rise_and_stay_within_0_and_1() -> None:
    for topic, points in CALIBRATION.items():
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        assert xs == sorted(xs) and ys == sorted(ys), topic
        assert points[0] == (0.0, 0.0) and points[-1] == (1.0, 1.0)
        for raw in (0.0, 0.01, 0.33, 0.5, 0.77, 0.99, 1.0):
            assert 0.0 <= calibrated(topic, raw) <= 1.0
        assert calibrated(topic, 0.2) <= calibrated(topic, 0.6)


def test_the_hands_chance_rises_and_is_a_range_only_against_a_stranger() -> None:
    """The chance told rises with the worlds' share; against
    rivals the match has not shown yet it comes with a range around it, and after KNOWN_HANDS
    hands (or a belief remembered from other matches) it is one
    number. The envido's is one number always, rising with the worlds' share."""
    stranger = Known(0.5, 0.0, 0)
    for topic in ("hand", "refusal"):
        chances = [stated(topic, raw, stranger)[0] for raw in (0.05, 0.3, 0.5, 0.7, 0.95)]
        assert chances == sorted(chances) and all(0 < c < 1 for c in chances)
        chance, low, high = stated(topic, 0.5, stranger)
        assert low is not None and high is not None and low <= chance <= high
        assert high - low > 0.1
        shown = stated(topic, 0.5, Known(0.4, 0.05, KNOWN_HANDS - 1))
        assert shown[1] is not None and shown[2] is not None
        assert stated(topic, 0.5, Known(0.3, 0.1, KNOWN_HANDS))[1:] == (None, None)
        assert stated(topic, 0.5, Known(0.3, 0.5, 0))[1:] == (None, None)  # remembered
        # against a rival who plays like our own levels the hand goes its way less often than
        # against one of habits (who gives hands away the worlds do not)
        sound = stated(topic, 0.5, Known(0.95, 0.3, 9))[0]
        habits = stated(topic, 0.5, Known(0.03, 0.3, 9))[0]
        assert sound < habits
    envido = [stated("envido", raw, stranger) for raw in (0.05, 0.3, 0.5, 0.7, 0.95)]
    assert all(low is None and high is None for _, low, high in envido)
    assert [c for c, _, _ in envido] == sorted(c for c, _, _ in envido)


def test_a_hint_in_the_games_own_words() -> None:
    t = translator("es")
    quiero = Action(0, K.QUIERO)
    three = Action(0, K.PLAY, Card.parse("3e"))
    refuse = Action(0, K.NO_QUIERO)
    mazo = Action(0, K.MAZO)
    envido = Hint(quiero, Topic.ENVIDO, 0.81, 0.85, quiero, 31, 100)
    assert hint_text(t, envido) == "💡 Quiero: con 31 ganás el envido 8 de cada 10 veces."
    card = Hint(three, Topic.HAND, 0.62, 0.7, three, 20, 100)
    name = card_name(t, Card.parse("3e"))
    assert hint_text(t, card) == f"💡 Tirá el {name}: ganás la mano 6 de cada 10 veces."
    turned = Hint(refuse, Topic.HAND, 0.21, 0.3, quiero, 20, 100)
    assert hint_text(t, turned) == (
        "💡 No quiero: si lo querés, ganás la mano solo 2 de cada 10 veces."
    )
    gone = Hint(mazo, Topic.HAND, 0.02, 0.03, three, 20, 100)
    assert "menos de 1 de cada 10" in hint_text(t, gone)
    sure = Hint(quiero, Topic.HAND, 0.97, 0.99, quiero, 20, 100)
    assert "más de 9 de cada 10" in hint_text(t, sure)
    flor = Hint(Action(0, K.FLOR), Topic.FLOR, 0.7, 0.7, Action(0, K.FLOR), 0, 40, flor=31)
    assert hint_text(t, flor) == "💡 ¡Flor!: con tu flor de 31, tenés la mejor 7 de cada 10 veces."
    assert hint_text(translator("en"), envido).startswith("💡 ")
    assert hint_text(t, envido, team=True) == (
        "💡 Quiero: con tu 31, ganan el envido 8 de cada 10 veces."
    )
    assert hint_text(t, card, team=True).endswith("ganan la mano 6 de cada 10 veces.")
    stranger = Hint(three, Topic.HAND, 0.42, 0.5, three, 20, 100, None, 0.31, 0.52)
    assert hint_text(t, stranger) == (
        f"💡 Tirá el {name}: ganás la mano 3 a 5 de cada 10 veces, contra alguien que no "
        "conocés todavía."
    )
    assert hint_text(t, stranger, team=True).endswith(
        "ganan la mano 3 a 5 de cada 10 veces, contra rivales que no conocen todavía."
    )
    narrow = Hint(three, Topic.HAND, 0.42, 0.5, three, 20, 100, None, 0.38, 0.44)
    assert hint_text(t, narrow) == f"💡 Tirá el {name}: ganás la mano 4 de cada 10 veces."
    assert "you don't know yet" in hint_text(translator("en"), stranger)
    nearly = Hint(quiero, Topic.HAND, 0.97, 0.99, quiero, 20, 100, None, 0.93, 0.99)
    assert "más de 9 de cada 10" in hint_text(t, nearly)  # (9 to 10 is said as one)


def test_the_reckoning_reads_how_the_rival_at_the_table_plays() -> None:
    """What the table counted of the rivals this match (public: every seat sees the same
    counts) goes into the chance: against one who refuses every truco the same worlds' share
    is told as a better chance than against one who wants every truco (the folder gives away
    hands the worlds, whose rivals play as difícil imagines them, would have it fight for);
    and the counts are the rival seats' only."""
    from bot.ai.hints import COUNTED, known_of
    from tests.ai.scripted import caller, folder, hands_against

    seen = {}
    for name, rival in (("folder", folder), ("caller", caller)):
        obs = hands_against(rival, 10, seed=3)
        known = known_of(obs, {})
        counts = dict(zip(COUNTED, known.counts, strict=True))
        assert counts == {name: getattr(obs.habits[1], name) for name in COUNTED}
        assert known.seat_hands == len(obs.past) == 10
        seen[name] = known
    assert seen["folder"].counts[COUNTED.index("truco_wanted")] == 0
    assert seen["folder"].counts[COUNTED.index("truco_refused")] > 0
    assert seen["caller"].counts[COUNTED.index("truco_refused")] == 0
    assert seen["caller"].counts[COUNTED.index("truco_wanted")] > 0
    for raw in (0.3, 0.5, 0.7):
        told = {name: stated("hand", raw, known, 0.6)[0] for name, known in seen.items()}
        assert told["folder"] > told["caller"] + 0.02


def test_the_chance_reads_the_moment() -> None:
    """Where in the hand a refusal's chance is told goes into it (the same worlds' share is
    not told alike for a truco refused at its level and a mazo before the first card; the
    hand's chance does not read it: that did not help on deals not fitted on); and a
    stranger's range spans the shifts of the rivals the model was fitted on. (The envido's
    chance read the persona belief too, until it was measured worse than its map alone:
    `test_the_envidos_chance_is_its_map_of_the_worlds_share`.)"""
    from bot.ai.hints import STRANGERS, Moment

    known = Known(0.5, 0.3, 9)
    mazo = stated("refusal", 0.6, known, 0.6, Moment("play", 0, 0))[0]
    refused = stated("refusal", 0.6, known, 0.6, Moment("quiero", 2, 1))[0]
    assert abs(mazo - refused) > 0.02
    chance, low, high = stated("hand", 0.5, Known(0.5, 0.0, 0))
    assert low is not None and high is not None
    logit = math.log(chance / (1 - chance))
    assert math.log(low / (1 - low)) == pytest.approx(logit + min(lo for lo, _ in STRANGERS))
    assert math.log(high / (1 - high)) == pytest.approx(logit + max(hi for _, hi in STRANGERS))


def _all_rivals_machines(config: MatchConfig, seat: int) -> dict[int, Machine]:
    characters = ("prudente", None, "cantor")
    return {
        s: Machine("normal", characters[s % 3])
        for s in range(config.players)
        if side_of(s) != side_of(seat)
    }


@pytest.mark.slow("many cases: the whole suite runs them")
def test_against_our_own_computer_players_the_chance_is_told_as_it_comes() -> None:
    """Every rival one of our computer players: the chance is the worlds' share as it comes
    (they are played as they play: nobody to get to know, so no range at the first hands and
    no reckoning of habits; the envido's is reckoned as it always was); one person among the
    rivals, and it is reckoned as before. The
    hidden cards dealt anew, the hint is the same to the last digit (it still reads only what
    the seat sees)."""
    config = CONFIGS[2]  # 2v2
    rng = random.Random(7)
    told = ranged = same = 0
    for index, (state, log) in enumerate(states(config, seed=41, count=16)):
        seat = state.acting_seats()[0]
        obs = observe(state, seat)
        ours = _all_rivals_machines(config, seat)
        got = advise(obs, index, budget=INFINITE, worlds=20, machines=ours)
        if got.chance is None or got.topic is not Topic.HAND:
            continue
        told += 1
        assert got.chance == got.raw and got.low is None and got.high is None
        # one rival a person: reckoned against what the match has shown, as without machines
        person = dict(ours)
        person.pop(min(person))
        mixed = advise(obs, index, budget=INFINITE, worlds=20, machines=person)
        plain = advise(obs, index, budget=INFINITE, worlds=20)
        assert mixed == plain
        ranged += plain.low is not None
        other = _hidden_swapped(config, log, seat, rng)
        if other is not None and observe(other, seat) == obs:
            again = advise(observe(other, seat), index, budget=INFINITE, worlds=20, machines=ours)
            assert again == got
            same += 1
    # an envido to answer: its chance is reckoned as it always was
    state = _dealt_to_the_mano("12c 5b 3o", "7e 6e 5o", MatchConfig(players=2, flor=False))
    mano = state.acting_seats()[0]
    state.apply(Action(mano, K.ENVIDO))
    obs = observe(state, 1 - mano)
    got = advise(obs, 3, budget=INFINITE, worlds=20, machines={mano: Machine("normal")})
    assert got.topic is Topic.ENVIDO and got.chance is not None
    assert got == advise(obs, 3, budget=INFINITE, worlds=20)
    assert told >= 8 and ranged >= 3 and same >= 4, (told, ranged, same)


def test_the_hint_answers_an_envido_by_what_the_rivals_envidos_came_with() -> None:
    """The same positions (seat 0 facing a plain envido) against a rival whose envidos were
    shown to be bluffs and one whose were shown to be good, chanted about as often: the hint
    reckons the envido better against the bluffer, and wants it there whenever it wants it
    against the honest one."""
    from tests.ai.scripted import envido_honest, envido_liar, played_against
    from tests.ai.test_dificil import facing_envido, wants

    bases = {"liar": played_against(envido_liar, 24), "honest": played_against(envido_honest, 24)}
    more = 0
    for seed in range(10):
        told = {}
        for name, base in bases.items():
            state, ok = facing_envido(base, seed)
            assert ok
            told[name] = hint(observe(state, 0), seed)
        liar, honest = told["liar"], told["honest"]
        assert liar.topic is honest.topic is Topic.ENVIDO
        assert liar.chance is not None and honest.chance is not None
        assert liar.chance >= honest.chance - 0.02, seed  # (the same at 32: a few worlds)
        assert wants(liar.action) or not wants(honest.action), seed
        more += wants(liar.action) and not wants(honest.action)
    assert more >= 3


# -- what a hint stakes, its odds always -------------------------------------------------------
def _points(events: list[object], side: int) -> int:
    return sum(e.points for e in events if isinstance(e, Scored) and e.side == side)


@pytest.mark.parametrize("config", configs(fast=2))
def test_the_stakes_a_hint_tells_are_the_ones_the_engine_scores(config: MatchConfig) -> None:
    """What backing down gives (a refusal, the mazo, the rivals refusing a chant) and what a
    bet is worth wanted, as `stakes_of` reads them from the seat's observation, are what the
    engine then scores, over states of real matches."""
    checked: set[str] = set()
    for state, _ in states(config, seed=41, count=400):
        for seat in state.acting_seats():
            obs = observe(state, seat)
            side = side_of(seat)
            for action in obs.actions:
                stakes = stakes_of(state, action)
                kind = action.kind
                if stakes is None:
                    assert kind is K.PLAY or kind in FLOR_FAMILY, action
                    continue
                assert stakes.now == obs.hand_value
                folded = state.copy()
                events = folded.apply(action)
                if kind in (K.MAZO, K.NO_QUIERO):  # backing down gives the rivals this
                    assert _points(events, 1 - side) == stakes.folded, (action, events)
                    checked.add(f"{kind.value}:{obs.pending}")
                    continue
                if kind is K.QUIERO:
                    if obs.pending is Pending.TRUCO:
                        assert folded.hand is None or folded.hand.hand_value() == stakes.wanted
                    else:
                        assert _points(events, 0) + _points(events, 1) == stakes.wanted
                    checked.add(f"quiero:{obs.pending}")
                    continue
                # a chant: the rivals refuse it, or want it
                rival = [a for a in folded.legal_actions() if a.seat != seat]
                refuse = next((a for a in rival if a.kind is K.NO_QUIERO), None)
                want = next((a for a in rival if a.kind is K.QUIERO), None)
                if refuse is None or want is None:
                    continue  # (a rival's flor comes first)
                wanted = folded.copy()
                assert _points(folded.apply(refuse), side) == stakes.folded, action
                events = wanted.apply(want)
                if kind in ENVIDO_CHANTS:
                    assert _points(events, 0) + _points(events, 1) == stakes.wanted, action
                elif wanted.hand is not None and wanted.hand.number == state.hand.number:  # type: ignore[union-attr]
                    assert wanted.hand.hand_value() == stakes.wanted, action
                checked.add(kind.value)
    assert {"mazo:None", "mazo:truco", "no_quiero:truco", "no_quiero:envido", "truco", "envido",
            "quiero:truco", "quiero:envido"} <= checked, checked  # fmt: skip


def test_a_hint_tells_its_odds_however_busy_the_machine() -> None:
    """On a machine so busy the hint's budget is gone before its first world, the chance is
    still told: a few worlds, whatever they cost (a hint without its odds says nothing)."""
    config = MatchConfig(players=2, flor=False)
    state = _dealt_to_the_mano("4c 5o 6b", "1e 1b 7e", config)
    mano = state.acting_seats()[0]
    state.apply(Action(mano, K.TRUCO))
    got = advise(observe(state, 1 - mano), 3, budget=0.0)
    assert got.chance is not None and got.worlds >= FLOOR


def test_the_mazo_with_a_truco_waiting_tells_the_chance_of_wanting_it() -> None:
    """The mazo over a truco waiting for an answer gives the hand away: its chance is that of
    the truco wanted (not "ganás la mano menos de 1 de cada 10" of the mazo itself)."""
    config = MatchConfig(players=2, flor=False)
    state = _dealt_to_the_mano("1e 1b 7e", "4c 5o 6b", config)
    mano = state.acting_seats()[0]
    state.apply(Action(mano, K.PLAY, Card.parse("7e")))
    state.apply(Action(1 - mano, K.TRUCO))
    obs = observe(state, mano)
    mazo = next(a for a in obs.actions if a.kind is K.MAZO)
    assert probe_of(obs, mazo).kind is K.QUIERO


def test_a_flor_tells_the_chance_it_is_the_best() -> None:
    """A flor answered (¡Flor!, contraflor, con flor me achico) says how often the seat's flor
    is the best at the table: 38 (the best there is) against a declared flor, nearly always."""
    config = MatchConfig(players=2, flor=True)
    state = _dealt_to_the_mano("1c 2c 3c", "7e 6e 5e", config)
    obs = observe(state, state.acting_seats()[0])
    while obs.pending is not Pending.FLOR:  # (the mano's flor, declared for it)
        assert obs.actions, obs
        state.apply(next(a for a in obs.actions if a.kind is K.FLOR))
        obs = observe(state, state.acting_seats()[0])
    got = hint(obs, 2)
    assert got.topic is Topic.FLOR and got.chance is not None and got.chance > 0.9
    assert got.flor == 38


# What a hint gives as its reason, after the move: the envido, the hand, a flor, a bluff's
# success (each language's words for them)
REASONS = {
    "es": ("el envido", "la mano", "flor", "sale bien"),
    "en": ("the envido", "the hand", "flor", "it works"),
}


@pytest.mark.parametrize("config", configs(fast=2))
def test_no_hint_of_a_real_position_is_a_bare_choice(config: MatchConfig) -> None:
    """Over positions of real matches, whatever the asking seat may do: every hint, in both
    languages, alone or with partners, says its move, why, and its odds ("💡 Quiero" alone
    never), even with no time left for its chance (the busiest machine: budget 0)."""
    from bot.views.common import plain

    told = 0
    for index, (state, _) in enumerate(states(config, seed=23, count=40)):
        for seat in state.acting_seats():
            obs = observe(state, seat)
            if len(obs.actions) < 2:  # (no choice: nothing to advise)
                continue
            got = advise(obs, index, budget=0.0, worlds=FLOOR)
            assert got.chance is not None, (got, obs.actions)
            for t in (translator("es"), translator("en")):
                ten = "de cada 10" if t.language == "es" else "in 10"
                for team in (False, True):
                    said = plain(hint_text(t, got, team))
                    move = plain(move_text(t, got.action))
                    assert said.startswith(f"💡 {move}") and said != f"💡 {move}", said
                    rest = said.removeprefix(f"💡 {move}")
                    assert ten in rest or "time in 10" in rest or "once in 10" in rest, said
                    assert any(w in rest for w in REASONS[t.language]), said
            told += 1
    assert told >= 30, told


def _chanted_envidos(
    rival_cards: str,
    hands: int,
    chants: int,
    kind: ActionKind = K.ENVIDO,
    mine: str = "7e 12e 4o",
) -> MatchState:
    """A match (1v1, no flor) of `hands` hands: seat 1 was dealt `rival_cards` in the first
    `chants` of them and chanted `kind`, which seat 0 (an envido of 7) wanted, and a poor
    envido in the others; the cards were played out. Then a new hand, seat 0 dealt `mine` (an
    envido of 27), in which seat 1 chants `kind` again."""
    config = MatchConfig(players=2, flor=False)
    state = new_match(config)
    ours = tuple(Card.parse(c) for c in ["1e", "1b", "7o"])
    theirs = tuple(Card.parse(c) for c in rival_cards.split())
    quiet = tuple(Card.parse(c) for c in ["4o", "5c", "6e"])  # (no envido to chant)
    for i in range(hands):
        state.apply(Deal((ours, theirs if i < chants else quiet)))
        number = state.hand_number
        while state.hand_number == number and not state.is_over and not state.needs_deal:
            legal = state.legal_actions()
            kinds = {a.kind: a for a in legal}
            seat = legal[0].seat
            if seat == 1 and kind in kinds and i < chants:
                state.apply(kinds[kind])
            elif seat == 0 and K.QUIERO in kinds:
                state.apply(kinds[K.QUIERO])
            else:
                state.apply(next((a for a in legal if a.kind is K.PLAY), legal[0]))
    state.apply(Deal((tuple(Card.parse(c) for c in mine.split()),
                      tuple(Card.parse(c) for c in ["5c", "6o", "2b"]))))  # fmt: skip
    while not any(a.seat == 1 and a.kind is kind for a in state.legal_actions()):
        state.apply(next(a for a in state.legal_actions() if a.kind is K.PLAY))
    state.apply(Action(1, kind))
    return state


def test_a_rivals_envido_weighs_what_its_envidos_were_shown_to_come_with() -> None:
    """The envido's chance against a rival whose envidos the table saw come with less than an
    envido's floor (25) every time is the chance against such a chant: with 27, answering it
    wins mostly; against one whose envidos came with 33 every time, no more than against an
    envido of 25 or more. (The worlds took every rival's envido for what the persona belief
    reads of it; against the gauntlet's envido bluffer, answering its envido, 42% was stated
    and 53% won.)"""
    told = {}
    for name, cards in (("bluffer", "4c 5o 6b"), ("honest", "7c 6c 5b")):
        # (six chants in sixteen hands: no more often than an envido of 25 is dealt)
        state = _chanted_envidos(cards, hands=16, chants=6)
        seen = observe(state, 0)
        assert seen.pending is Pending.ENVIDO and len(seen.past) == 16
        got = hint(seen, 1)
        assert got.topic is Topic.ENVIDO and got.raw is not None
        told[name] = got.raw
    # (27 beats about 4 in 10 of the envidos of 25 or more a chanter may hold)
    assert told["honest"] <= 0.5 and told["bluffer"] - told["honest"] >= 0.35, told


def _chanted_often(
    kind: ActionKind, times: int, hands: int = 8, mine: str = "7e 12e 4o"
) -> MatchState:
    """A match (1v1, no flor) of `hands` hands, the mano alternating, in the first `times` of
    which the rival (seat 1) chanted `kind`, was refused, and seat 0 went to the mazo (its
    cards never all seen); then a hand in which seat 0 holds `mine` (an envido of 27) and
    seat 1 chants `kind` again."""
    state = new_match(MatchConfig(players=2, flor=False))
    ours = tuple(Card.parse(c) for c in ["1e", "1b", "7o"])
    theirs = tuple(Card.parse(c) for c in ["4c", "5o", "6b"])
    for i in range(hands):
        state.apply(Deal((ours, theirs)))
        number, chanted = state.hand_number, False
        while state.hand_number == number and not state.is_over and not state.needs_deal:
            legal = state.legal_actions()
            kinds = {a.kind: a for a in legal}
            seat = legal[0].seat
            if seat == 1 and kind in kinds and i < times and not chanted:
                chanted = True
                state.apply(kinds[kind])
            elif seat == 0 and K.NO_QUIERO in kinds:
                state.apply(kinds[K.NO_QUIERO])
            elif seat == 0 and chanted and K.MAZO in kinds:
                state.apply(kinds[K.MAZO])
            else:
                state.apply(next((a for a in legal if a.kind is K.PLAY), legal[0]))
    state.apply(Deal((tuple(Card.parse(c) for c in mine.split()),
                      tuple(Card.parse(c) for c in ["5c", "6o", "2b"]))))  # fmt: skip
    while not any(a.seat == 1 and a.kind is kind for a in state.legal_actions()):
        state.apply(next(a for a in state.legal_actions() if a.kind is K.PLAY))
    state.apply(Action(1, kind))
    return state


def test_a_rival_who_chants_more_often_than_its_hands_allow_is_bluffing_some() -> None:
    """A real envido wants 27 or more, which one hand in four holds: a rival who chanted it in
    most hands (none of them shown) chants it with less at least half the time, and 27 answers
    it winning about half the time; one who chanted it once is taken at its word. (The worlds
    took both at their word: 13% and 8%; against the gauntlet's envido caller, whose real
    envidos are often a plain envido's, 14% was told and 43% won.)"""
    told = {}
    for times in (8, 1):
        seen = observe(_chanted_often(K.REAL_ENVIDO, times), 0)
        assert seen.pending is Pending.ENVIDO and seen.pending_chant is K.REAL_ENVIDO
        got = hint(seen, 1)
        assert got.topic is Topic.ENVIDO and got.raw is not None
        told[times] = got.raw
    assert told[8] >= 0.45 and told[1] <= 0.2, told


def test_a_rivals_envidos_beyond_its_hands_come_with_any_hand() -> None:
    """A rival who chanted a real envido in each of eight hands (refused: none of them shown)
    chants it with less than 27 at least two times in three (one hand in four holds 27), and
    those it would not have made as a stranger are made with any hand, not with a near miss:
    holding 25 wins about half of such chants, 21 more than a third. (Told were 27% and 22%:
    the worlds held its weak real envidos to be 24s and 26s; against the gauntlet's envido
    caller, refusing its opening real envido, 12% was told and 26% won on seed 41.)"""
    told = {}
    for mine in ("4c 1c 7o", "1c 12c 4o"):  # (an envido of 25, and of 21)
        seen = observe(_chanted_often(K.REAL_ENVIDO, 8, mine=mine), 0)
        assert seen.pending_chant is K.REAL_ENVIDO
        got = hint(seen, 1)
        assert got.topic is Topic.ENVIDO and got.raw is not None
        told[mine] = got.raw
    assert told["4c 1c 7o"] >= 0.45 and told["1c 12c 4o"] >= 0.35, told


def test_a_strangers_real_envido_is_read_as_the_rival_model_reads_one() -> None:
    """A rival who chanted one real envido in eight hands tells nothing of its own yet: its
    real envido reads as the rival model (`bot.ai.tells`) holds a stranger's, 15% of them
    under 27, and an envido of 26 answers it winning about one time in seven. (The worlds
    weighed it as a stranger's too, but by the persona belief: 5% under 27, and 26 won 5%.)"""
    from bot.ai.tells import PRIOR, Rate

    seen = observe(_chanted_often(K.REAL_ENVIDO, 1, mine="4e 2e 7o"), 0)
    got = hint(seen, 1)
    assert got.topic is Topic.ENVIDO and got.raw is not None
    assert got.raw >= 0.8 * PRIOR[Rate.REAL_ENVIDO], got.raw


def test_the_envidos_chance_is_its_map_of_the_worlds_share() -> None:
    """The envido's chance told is the worlds' share through its map (`CALIBRATION`), whoever
    the rivals: reckoned further against the rival's habits and the persona belief it told
    too much at the top (seed 31, seventeen opponents: 97% stated, 89% won over 380 hints, the
    map alone 96% and 93%) and fit worse (log loss 0.465 against the map's 0.451; on seed 41,
    against the two envido styles, 0.526 against 0.504). How a rival's chants read is now in
    the worlds' weights (`envido_tells`)."""
    from bot.ai.hints import FIRST_MORE

    sound = Known(0.95, 0.3, 9, more=FIRST_MORE)
    wanting = (*FIRST_MORE[:5], 0.95, *FIRST_MORE[6:])
    habits = Known(0.03, 0.3, 9, more=wanting, counts=(3, 0, 4, 5, 0, 7, 0), seat_hands=9)
    for raw in (0.05, 0.3, 0.5, 0.7, 0.95):
        for known in (sound, habits):
            assert stated("envido", raw, known, 0.8) == (calibrated(Topic.ENVIDO, raw), None, None)


def test_a_refusal_against_a_rival_who_wants_trucos_is_not_told_above_the_worlds() -> None:
    """A refusal's chance (the truco it turns down, wanted) against what the match showed of
    the gauntlet's sharp player (seed 51, its eleventh hand: wanting a middling truco two times
    in three, chanting one with little seldom) and of the player who never folds: the worlds'
    share of 20% is told 28% at most, not lifted to 40% as the reckoning fitted on club players
    (who give hands away) told it. (Against sharp, the envido bluffer and the envido caller,
    refusals told 18% on average won 3% on seed 51, 444 hints.)"""
    from bot.ai.hints import Moment

    sharp = Known(0.02, 0.416, 11, 0.653, 0.099, 0.030, (1, 2, 9, 0, 4, 2, 0), 11, 1,
                  (0.309, 0.939, 0.690, 0.956, 0.305, 0.218, 0.254, 0.890, 0.030))  # fmt: skip
    stayer = Known(0.02, 0.513, 15, 0.970, 0.070, 0.040, (5, 0, 11, 0, 8, 1, 0), 15, 1,
                   (0.969, 0.970, 0.275, 0.951, 0.829, 0.085, 0.084, 0.652, 0.179))  # fmt: skip
    for known, edge, moment in ((sharp, 0.578, Moment("quiero", 0, 0)),
                                (stayer, 0.579, Moment("quiero", 0, 1))):  # fmt: skip
        told = stated("refusal", 0.2, known, edge, moment)[0]
        assert told <= 0.3, (known.wants, told)
