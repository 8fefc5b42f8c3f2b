"""La mano del día's puzzle (bot/ai/daily.py) and its words (bot/views/daily.py): built from the
seat's observation alone (re-deal the cards it never saw: the same numbers, the same post), the
bank's positions all replay and ask, and the tallies' streaks and the hour's day."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from bot.ai.daily import Outcome, bank, position
from bot.ai.puzzle import Puzzle, askable, pose
from bot.ai.review import Review, decisions, review
from bot.game import observe, parse_any
from bot.i18n import translator
from bot.model.daily import Answer, Closing, DailyHand, streaks
from bot.service.daily import Daily
from bot.service.review import spaced
from bot.views.daily import close_text, post_keys, post_text
from tests.ai.test_review import CONFIG, _at, match

WORLDS = 8  # (the numbers' sameness needs no more; the bot weighs 48)


def hand_of(puzzle: Puzzle, outcome: Outcome, closed: bool = False) -> DailyHand:
    data = {"puzzle": puzzle.to_json(), "outcome": outcome.to_json()}
    return DailyHand(7, -100, "2026-01-01", "b:0", None, None, data, "es", 0.0, 3600.0,
                     3600.0 if closed else None, 2)  # fmt: skip


def test_a_puzzle_reads_only_what_its_seat_saw() -> None:
    """Decision by decision: the other seat's cards not yet played dealt anew (everything the
    seat saw kept): every number of the puzzle and every letter of the post are the same."""
    t = translator("es")
    rng = random.Random(5)
    checked = 0
    for seed in range(1, 6):
        log = match(seed)
        for obs, made in decisions(CONFIG, log, 0)[::5]:
            if not askable(obs):
                continue
            other = _at(CONFIG, log, obs, rng)
            if other is None:
                continue
            seen = observe(other, 0)
            assert seen == obs
            first = pose(obs, "daily:x", WORLDS)
            again = pose(seen, "daily:x", WORLDS)
            assert again == first
            outcome = Outcome(made.code, 0)
            assert post_text(t, hand_of(again, outcome), UTC) == post_text(
                t, hand_of(first, outcome), UTC
            )
            assert post_keys(t, hand_of(again, outcome)) == post_keys(t, hand_of(first, outcome))
            assert Puzzle.from_json(first.to_json()) == Puzzle.from_json(
                Puzzle.from_json(first.to_json()).to_json()
            )
            checked += 1
    assert checked >= 6


def test_the_post_never_says_what_happened_nor_whose_it_was() -> None:
    """The question and its buttons are the same whatever was really done and whoever did it;
    the close tells it."""
    t = translator("es")
    log = match(2)
    obs, made = next((o, m) for o, m in decisions(CONFIG, log, 0) if askable(o))
    puzzle = pose(obs, "daily:y", WORLDS)
    other = next(c.code for c in puzzle.choices if c.code != made.code)
    a, b = hand_of(puzzle, Outcome(made.code, 3)), hand_of(puzzle, Outcome(other, -2))
    assert post_text(t, a, UTC) == post_text(t, b, UTC)
    closing = Closing((Answer(5, puzzle.best, True),), ((5, 1),), (), named=False)
    told = close_text(t, hand_of(puzzle, Outcome(other, -2), closed=True), closing, {5: "Eva"})
    assert "−2" in told and "Eva" in told


def test_every_bank_position_replays_to_a_question() -> None:
    positions = bank()
    assert len(positions) >= 30
    for p in positions:
        found = position(p.config, [parse_any(c) for c in p.log], p.seat, p.step)
        assert found is not None
        obs, outcome = found
        assert askable(obs) and obs.seat == p.seat
        assert outcome.made in {a.code for a in obs.actions}
    kinds = {p.config.players for p in positions} | {p.config.flor for p in positions}
    assert {2, 4, True, False} <= kinds


def test_a_streak_is_the_run_of_right_answers_up_to_the_last_hand() -> None:
    hands = [9, 8, 7, 6, 5, 4, 3]  # newest first
    assert streaks(hands, {}) == (0, 0)
    assert streaks(hands, {9: True, 8: True, 7: False, 6: True, 5: True, 4: True}) == (2, 3)
    assert streaks(hands, {8: True, 7: True}) == (0, 2)  # (the last one not answered: over)
    assert streaks(hands, dict.fromkeys(hands, True)) == (7, 7)


def test_a_hand_is_due_at_its_hour_if_chosen_before_it_and_not_too_late() -> None:
    zone = ZoneInfo("America/Argentina/Buenos_Aires")

    def at(day: int, hour: int, minute: int = 0) -> float:
        return datetime(2026, 3, day, hour, minute, tzinfo=zone).timestamp()

    chosen = at(1, 8)
    assert Daily.day_due(at(1, 8, 59), 9, zone, chosen) is None
    assert Daily.day_due(at(1, 9), 9, zone, chosen) == "2026-03-01"
    assert Daily.day_due(at(1, 11, 59), 9, zone, chosen) == "2026-03-01"
    assert Daily.day_due(at(1, 12, 1), 9, zone, chosen) is None  # (more than 3 hours late)
    assert Daily.day_due(at(1, 10), 9, zone, at(1, 9, 30)) is None  # (chosen after its hour)
    assert Daily.day_due(at(2, 9, 30), 9, zone, at(1, 9, 30)) == "2026-03-02"
    assert Daily.day_due(at(2, 0, 30), 22, zone, chosen) == "2026-03-01"  # (past midnight)


def test_a_reviews_questions_agree_with_its_moments() -> None:
    """A costly moment told is asked with every choice that was open, weighed over the very
    worlds the review weighed it on: the move made and difícil's have the moment's values."""
    found = 0
    for seed in (3, 4):
        got = review(CONFIG, list(match(seed)), 1, table_id=seed)
        for m in got.slips:
            assert m.puzzle is not None
            worths = {c.code: c.worth for c in m.puzzle.choices}
            assert worths[m.made] == m.made_worth and worths[m.best] == m.best_worth
            found += 1
        kept = Review.from_json(got.to_json())  # (as stored: to the third decimal)
        assert Review.from_json(kept.to_json()) == kept
        assert all(m.puzzle is not None for m in kept.slips)
    assert found >= 2


def test_a_missed_moment_comes_back_spaced() -> None:
    day = 86400.0
    assert spaced(None, True, 0.0) == (0, None)  # right the first time: learned
    assert spaced(None, False, 0.0) == (1, day)
    assert spaced((1, day), True, day / 2) is None  # (asked again before it was due)
    assert spaced((1, day), True, day) == (2, 4 * day)
    assert spaced((2, 4 * day), False, 5 * day) == (1, 6 * day)
    assert spaced((4, 10 * day), True, 10 * day) == (5, None)  # right in the last box: learned
    assert spaced((0, None), False, 3 * day) is None
