"""The review after the match (bot/ai/review.py): it reads only the person's own observation,
its expected values agree with independent playouts of the same positions, its signs are the
person's side's, and it says what it found in the game's words."""

from __future__ import annotations

import math
import random
from functools import cache

import pytest

from bot.ai import Level, decide
from bot.ai.hints import envido_chance
from bot.ai.review import (
    LOSS_MOMENTS,
    LUCK_WORLDS,
    MAX_MOMENTS,
    MAX_PRAISE,
    WORLDS,
    Review,
    decisions,
    dificils_move,
    habit_of,
    lessons,
    review,
    worth,
)
from bot.ai.search import Sampler, edge_of, facing, playout
from bot.ai.weigh import over_baseline
from bot.game import (
    DECK,
    Action,
    ActionKind,
    AnyAction,
    Card,
    Deal,
    IllegalActionError,
    MatchConfig,
    MatchState,
    Observation,
    Phase,
    new_match,
    observe,
    parse_any,
    random_deal,
    side_of,
)
from bot.game.events import HandEnded
from bot.i18n import translator
from bot.views.review import lesson_text, review_json, review_text

K = ActionKind
CONFIG = MatchConfig(players=2, target=15, flor=False)


@cache
def match(seed: int, config: MatchConfig = CONFIG) -> tuple[AnyAction, ...]:
    """A match between fácil (seat 0) and normal (seat 1): its action log."""
    state = new_match(config)
    log: list[AnyAction] = []
    rng = random.Random(seed)
    levels = (Level.FACIL, Level.NORMAL)
    while not state.is_over:
        if state.needs_deal:
            deal = random_deal(rng, config.players)
            state.apply(deal)
            log.append(deal)
            continue
        seat = state.legal_actions()[0].seat
        action = decide(observe(state, seat), levels[seat % 2], rng.getrandbits(32))
        state.apply(action)
        log.append(action)
    return tuple(log)


def unseen_swapped(
    config: MatchConfig, log: tuple[AnyAction, ...], seat: int, rng: random.Random
) -> tuple[AnyAction, ...] | None:
    """The same match with, in every hand, the other seats' cards that were never played dealt
    anew from the cards `seat` never saw that hand (None if the rules refuse the result)."""
    out: list[AnyAction] = []
    hands: list[list[AnyAction]] = []
    for action in log:
        if isinstance(action, Deal):
            hands.append([action])
        else:
            hands[-1].append(action)
    for hand in hands:
        deal = hand[0]
        assert isinstance(deal, Deal)
        played = {a.card for a in hand[1:] if isinstance(a, Action) and a.card is not None}
        kept = [[c for c in cards if c in played] for cards in deal.hands]
        pool = [c for c in DECK if c not in played and c not in deal.hands[seat]]
        rng.shuffle(pool)
        dealt = []
        for s, cards in enumerate(deal.hands):
            if s == seat:
                dealt.append(cards)
            else:
                fresh = kept[s] + [pool.pop() for _ in range(3 - len(kept[s]))]
                dealt.append(tuple(fresh))
        out.append(Deal(tuple(dealt)))
        out.extend(hand[1:])
    try:
        state = MatchState(config)
        for action in out:
            state.apply(action)
    except IllegalActionError:
        return None
    return tuple(out)


@pytest.mark.slow("many cases: the whole suite runs them")
def test_a_review_reads_only_the_persons_observation() -> None:
    """Deal the other seat's unplayed cards anew in every hand (keeping every observation the
    person had): the review, every number of it, does not change."""
    config = CONFIG
    rng = random.Random(3)
    checked = 0
    for seed in range(1, 30):
        log = match(seed)
        seat = seed % 2
        mine = [obs for obs, _ in decisions(config, log, seat)]
        for _ in range(20):
            other = unseen_swapped(config, log, seat, rng)
            if other is None or other == log:
                continue
            if [obs for obs, _ in decisions(config, other, seat)] != mine:
                continue  # (something the person saw changed: an envido said, a card shown)
            hidden = [a for a in other if isinstance(a, Deal)] != [
                a for a in log if isinstance(a, Deal)
            ]
            assert hidden
            first = review(config, list(log), seat, table_id=seed)
            again = review(config, list(other), seat, table_id=seed)
            assert again == first
            assert first.weighed > 0
            checked += 1
            break
        if checked >= 2:
            break
    assert checked >= 2


@pytest.mark.slow("many cases: the whole suite runs them")
def test_a_position_weighed_from_re_dealt_hidden_cards_is_the_same() -> None:
    """Position by position: the state at a decision, the rival's unplayed cards of that hand
    dealt anew (the person's observation kept): difícil's move and both values are the same to
    the last digit."""
    config = CONFIG
    rng = random.Random(8)
    checked = 0
    for seed in range(1, 8):
        log = match(seed)
        for obs, made in decisions(config, log, 0)[::7]:
            other = _at(config, log, obs, rng)
            if other is None:
                continue
            seen = observe(other, 0)
            assert seen == obs
            best = dificils_move(obs, "x")
            assert dificils_move(seen, "x") == best
            assert worth(seen, (made, best), "y", 16) == worth(obs, (made, best), "y", 16)
            checked += 1
    assert checked >= 10


def _at(
    config: MatchConfig, log: tuple[AnyAction, ...], obs: Observation, rng: random.Random
) -> MatchState | None:
    """The state at the decision `obs` of seat 0, the other seat's cards not yet played in that
    hand dealt anew from the ones seat 0 has not seen (None: not found in a few tries)."""
    state = MatchState(config)
    prefix: list[AnyAction] = []
    for action in log:
        if state.step == obs.step and observe(state, 0) == obs:
            break
        state.apply(action)
        prefix.append(action)
    else:
        return None
    start = max(i for i, a in enumerate(prefix) if isinstance(a, Deal))
    deal = prefix[start]
    assert isinstance(deal, Deal)
    played = {a.card for a in prefix[start:] if isinstance(a, Action) and a.card is not None}
    for _ in range(10):
        pool = [c for c in DECK if c not in played and c not in deal.hands[0]]
        rng.shuffle(pool)
        kept = tuple(c for c in deal.hands[1] if c in played)
        hands = (deal.hands[0], kept + tuple(pool[: 3 - len(kept)]))
        if hands == deal.hands:
            continue
        try:
            other = MatchState(config)
            for action in [*prefix[:start], Deal(hands), *prefix[start + 1 :]]:
                other.apply(action)
        except IllegalActionError:
            continue
        if observe(other, 0) == obs:
            return other
    return None


def independent(obs: Observation, option: Action, seed: int, worlds: int) -> tuple[float, float]:
    """An option's mean points (its side's minus the other's, to the hand's end) over worlds of
    its own, written apart from the review: (mean, standard deviation of one world)."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    rng = random.Random(seed)
    sampler = Sampler(obs, (), rng)
    against, edge = facing(sampler.rivals), edge_of(obs)
    values: list[tuple[float, float]] = []
    for index in range(worlds):
        found = sampler.world()
        if found is None:
            break
        world, weight = found
        state = world.copy()
        events = state.apply(option)
        if state.phase is Phase.PLAY and not any(isinstance(e, HandEnded) for e in events):
            playout(state, obs.seat, random.Random(seed * 1000 + index), sampler.rivals,
                    against, edge, sampler.personas)  # fmt: skip
        gained = (state.scores[side] - obs.scores[side]) - (
            state.scores[1 - side] - obs.scores[1 - side]
        )
        values.append((weight, float(gained)))
    total = sum(w for w, _ in values)
    mean = sum(w * v for w, v in values) / total
    var = sum(w * (v - mean) ** 2 for w, v in values) / total
    return mean, math.sqrt(var)


def test_the_values_agree_with_independent_playouts_of_the_same_positions() -> None:
    """Each value the review states, against 5 times the worlds drawn apart (another seed):
    within 3.5 standard errors of the two estimates together (the tolerance), and on average
    within a third of a point."""
    config = CONFIG
    gaps = []
    for seed in (2, 5):
        log = match(seed)
        found = [(o, m) for o, m in decisions(config, log, 1) if o.pending is not None]
        for obs, made in found[:4]:
            best = dificils_move(obs, "b")
            (made_w, best_w), _, count = worth(obs, (made, best), "w")
            assert count == WORLDS
            for option, stated in ((made, made_w.points), (best, best_w.points)):
                mean, sd = independent(obs, option, seed + 17, 5 * WORLDS)
                error = math.sqrt(sd * sd / WORLDS + sd * sd / (5 * WORLDS))
                assert abs(stated - mean) <= 3.5 * error + 1e-9, (obs, option, stated, mean)
                gaps.append(abs(stated - mean))
    assert len(gaps) >= 12
    assert sum(gaps) / len(gaps) < 0.33


def _first_hand(mine: str, theirs: str) -> MatchState:
    """A first hand with `mine` dealt to seat 0, `theirs` to seat 1."""
    cards = tuple(Card.parse(c) for c in mine.split()), tuple(Card.parse(c) for c in theirs.split())
    state = new_match(CONFIG)
    state.apply(Deal(cards))
    return state


def test_the_signs_are_the_persons_side() -> None:
    """Facing a truco with the three best cards: wanting it is worth more than refusing, and a
    refusal is worth exactly the truco given away (−1 point), never more, never less."""
    state = _first_hand("1e 1b 7e", "4c 5o 6c")
    mano = state.acting_seats()[0]
    truco = next(a for a in state.legal_actions() if a.kind is K.TRUCO)
    state.apply(truco)
    seat = state.acting_seats()[0]
    assert seat != mano
    obs = observe(state, seat)
    quiero = next(a for a in obs.actions if a.kind is K.QUIERO)
    no = next(a for a in obs.actions if a.kind is K.NO_QUIERO)
    (q, n), _, count = worth(obs, (quiero, no), "signs")
    assert count > 0
    assert n.points == -1.0 and n.won == 0.0
    holder = obs.dealt
    if {c.code for c in holder} == {"1e", "1b", "7e"}:  # the seat with the best cards answers
        assert q.points > 1.0 and q.won > 0.9
        assert habit_of(obs, no, quiero) == "refuse_truco"
    else:  # the seat with nothing answers: refusing is the better of the two
        assert q.points < -1.0
        assert habit_of(obs, quiero, no) == "want_truco_weak"


@pytest.mark.slow("many cases: the whole suite runs them")
def test_a_review_is_bounded_and_said_in_both_languages() -> None:
    config = MatchConfig(players=2, target=30, flor=False)
    log = match(11, config)
    got = review(config, list(log), 0, table_id=11)
    assert got.decisions > 40  # a match to 30: dozens of decisions, a few weighed
    assert 0 < got.weighed <= MAX_MOMENTS + LOSS_MOMENTS + MAX_PRAISE
    assert len(got.slips) <= 3 and len(got.praise) <= 2
    assert all(m.cost > 0 for m in got.slips) and all(m.cost < 0 for m in got.praise)
    assert [m.step for m in got.slips] == sorted(m.step for m in got.slips)
    assert Review.from_json(got.to_json()).to_json() == got.to_json()
    for language in ("es", "en"):
        t = translator(language)
        text = review_text(t, got, "11")
        assert "review." not in text and "{" not in text
        for m in got.slips:  # each moment with its hand and score as the person saw it
            assert f" {m.hand}, " in text and f"{m.scores[0]} " in text
        shown = review_json(t, got, "11")
        assert len(shown["moments"]) == len(got.slips) + len(got.praise)  # type: ignore[arg-type]
    es = review_text(translator("es"), got, "11")
    assert "Tu revisión de la partida 11" in es and "🤖 difícil" in es


def test_the_list_weighs_where_the_split_lost_points_too() -> None:
    """A player's reading (2026-12-07): "tus decisiones te costaron 20" and a list adding to 3,
    the list having weighed 15 of 68 decisions, the chants and answers first. Now, beyond
    those, the decisions where difícil differs that the split found costliest are weighed too:
    with room for one by the chants-first order, the decision whose move lost most against
    the baseline's (the split's own gain, its own seed) is weighed as well, and here told."""
    seed = 3
    log = list(match(seed))
    lost = []
    for obs, made in decisions(CONFIG, log, 0):
        gain = over_baseline(obs, made, f"review:{seed}:0:{obs.step}:luck", LUCK_WORLDS)
        if gain.count and dificils_move(obs, f"review:{seed}:0:{obs.step}") != made:
            lost.append((gain.points, obs.step))
    points, step = min(lost)
    assert points < -1  # (a decision that cost the split points)
    got = review(CONFIG, log, 0, table_id=seed, max_moments=1, max_praise=0)
    assert 1 < got.weighed <= 1 + LOSS_MOMENTS
    assert step in [m.step for m in got.slips], (lost, got.slips)


def test_lessons_count_what_costs_most_often() -> None:
    base = Review(1, 0, 30, (), (), (), 10, 3)
    reviews = [
        Review(1, 0, 30, (), (), (("want_truco_weak", 0.5), ("card", 0.4)), 10, 3),
        Review(2, 0, 30, (), (), (("want_truco_weak", 0.7), ("card", 1.4)), 10, 3),
        Review(3, 0, 30, (), (), (("want_truco_weak", 0.6),), 10, 3),
        base,
    ]
    found = lessons(reviews)
    assert found is not None and found[0] == "want_truco_weak" and found[2] == 3
    assert found[1] == pytest.approx(0.6)  # (three slips of it; "card" has two)
    assert lessons([base]) is None
    assert lessons(reviews[2:]) is None  # once is not a habit
    line = lesson_text(translator("es"), "want_truco_weak", 0.6, 3, 3)
    assert line == (
        "📝 Lo que más puntos te cuesta: querés el truco con menos de dos cartas buenas,"
        " −0,6 por vez (lo vi 3 veces en tus 3 partidas revisadas)."
    )
    en = lesson_text(translator("en"), "want_truco_weak", 0.6, 3, 3)
    assert "fewer than two good cards, −0.6 a time" in en


def test_a_review_does_not_praise_the_obvious() -> None:
    """Refusing a falta envido at 0-0 with an envido of 5 is worth 27 points more than wanting
    it, and any player would refuse it: no praise (praise is for what the plain rules, fácil's
    and normal's, would not have found)."""
    log = [parse_any(c) for c in ("deal:4c 6o 12b|12c 11o 5b", "0:fe", "1:nq")]
    found = review(MatchConfig(flor=False), log, 1)
    assert found.decisions == 1
    assert found.praise == (), [(m.made, m.cost) for m in found.praise]


def test_an_envido_moment_tells_the_hints_chance_of_the_envido() -> None:
    """An envido refused with 33: the moment told carries how often the envido was theirs, the
    💡 hint's own chance from the same observation (a player's reading, 2026-12-07: an envido
    choice carried no odds, a hand's did); a moment with no envido open carries none."""
    config = MatchConfig(flor=False)
    log = [parse_any(c) for c in ("deal:4c 6o 12b|7e 6e 5b", "0:e", "1:nq")]
    found = review(config, log, 1, table_id=5)
    assert [m.made for m in found.slips] == ["1:nq"], found
    moment = found.slips[0]
    obs = decisions(config, log, 1)[0][0]
    assert moment.envido_won == envido_chance(obs, f"review:5:1:{obs.step}:envido")
    assert moment.envido_won is not None and moment.envido_won > 0.8
    said = review_text(translator("es"), found, "5")
    assert "si lo querías, ganabas el envido" in said, said
    kept = Review.from_json(found.to_json()).slips[0]  # (as stored: to three decimals)
    assert kept.envido_won == round(moment.envido_won, 3)


def test_the_moments_told_come_in_the_matchs_order() -> None:
    """Read after a practice (2026-12-07): question 1 was a truco answered late in hand 3 (the
    rival's cards and a refused falta envido on the table) and question 2 that hand's first
    decision, which the first had already answered. The costliest moments are told, and so
    asked, in the order they came: a question never shows what a later one's position knew."""
    got = review(CONFIG, list(match(1)), 0, table_id=1)
    steps = [m.step for m in got.slips]
    assert len(steps) == 3 and len({m.hand for m in got.slips}) < 3  # (two of one hand)
    assert steps == sorted(steps)
    costliest = sorted((cost for _, cost in got.lessons), reverse=True)[:3]
    assert sorted(m.cost for m in got.slips) == sorted(costliest)
