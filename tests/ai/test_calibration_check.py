"""The calibration check's yardstick (`bench/ai.py --check`): how far off the worst tenth of a
chance may look by chance alone, with hints that cluster by hand as a match's hints do."""

from __future__ import annotations

import math
import random

from bench.ai import noise_bound, worst_tenth


def _rows(hands: int, per_hand: int, shift: float, seed: int) -> list[dict[str, object]]:
    """Hints of `hands` hands, `per_hand` each (a hand's hints close together, one end for all
    of them), stated chances spread over the tenths; what happened drawn from the stated chance
    moved by `shift` in logit (0: the chance is true)."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for hand in range(hands):
        end = rng.random()  # the hand's one end: a hint of it came true below its chance
        base = rng.uniform(0.05, 0.95)
        for _ in range(per_hand):
            said = min(0.99, max(0.01, base + rng.uniform(-0.04, 0.04)))
            true = 1 / (1 + math.exp(-(math.log(said / (1 - said)) + shift)))
            rows.append({"rival": "r", "seed": seed, "hand": hand, "stated": said,
                         "won": int(end < true)})  # fmt: skip
    return rows


def test_a_true_chance_stays_within_the_bound_and_one_off_does_not() -> None:
    within = 0
    trials = 20
    for seed in range(trials):
        rows = _rows(hands=250, per_hand=4, shift=0.0, seed=seed)
        worst, _ = worst_tenth(rows)
        within += abs(worst) <= noise_bound(rows, draws=100, seed=1000 + seed)
    assert within >= trials - 3, within  # (95% bounds: about one in twenty outside)
    # A chance off by 0.6 in logit (a stated 50% that is 65%), over a thousand hands
    flagged = 0
    for seed in range(5):
        rows = _rows(hands=1000, per_hand=2, shift=0.6, seed=seed)
        worst, _ = worst_tenth(rows)
        flagged += abs(worst) > noise_bound(rows, draws=100, seed=seed)
    assert flagged == 5


def test_hints_of_one_hand_are_not_independent_trials() -> None:
    """The same number of hints spread over fewer hands tells less: the bound is wider."""
    one_each = _rows(hands=800, per_hand=1, shift=0.0, seed=3)
    five_each = _rows(hands=160, per_hand=5, shift=0.0, seed=3)
    assert len(one_each) == len(five_each)
    narrow = noise_bound(one_each, draws=100)
    wide = noise_bound(five_each, draws=100)
    assert wide > 1.5 * narrow, (narrow, wide)


def test_tenths_of_few_hints_are_left_out() -> None:
    rows = _rows(hands=30, per_hand=1, shift=2.0, seed=4)  # far off, but a few hints a tenth
    assert worst_tenth(rows) == (0.0, -1)
    assert noise_bound(rows) == 0.0
    assert worst_tenth(rows, least=1)[1] >= 0
