"""The calibration check's yardstick (`bench/ai.py --check`): how far off the worst tenth of a
chance may look by chance alone, with hints that cluster by hand as a match's hints do."""

from __future__ import annotations

import math
import random
from pathlib import Path

import orjson

from bench.ai import load_rows, noise_bound, tenth_bounds, worst_tenth


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


def test_each_tenth_is_held_to_its_own_width() -> None:
    """`tenth_bounds`: with a true chance, every tenth of 100 hints stays within its bound in
    most data sets (all of them at once: the bound is family-wise); a big tenth 3 points off is
    caught, which the worst tenth's bound in points (`noise_bound`, set by the smallest tenth)
    lets pass."""
    within = 0
    for seed in range(20):
        rows = _rows(hands=250, per_hand=4, shift=0.0, seed=seed)
        bounds = tenth_bounds(rows, draws=100, seed=1000 + seed)
        within += all(abs(e) <= bounds[t] for t, e in _errors(rows).items())
    assert within >= 17, within
    # 3,000 hints told 95% that came true 92% of the time, and 100 told 45% that were true
    rng = random.Random(7)
    rows = [{"rival": "r", "seed": 7, "hand": h, "stated": 0.95, "won": int(rng.random() < 0.92)}
            for h in range(3000)]  # fmt: skip
    rows += [{"rival": "r", "seed": 7, "hand": 3000 + h, "stated": 0.45,
              "won": int(rng.random() < 0.45)} for h in range(100)]  # fmt: skip
    bounds = tenth_bounds(rows, draws=100, seed=7)
    errors = _errors(rows)
    assert abs(errors[9]) > bounds[9], (errors, bounds)
    worst, _ = worst_tenth(rows)
    assert abs(worst) <= noise_bound(rows, draws=100, seed=7)  # (what the worst tenth hid)


def _errors(rows: list[dict[str, object]], least: int = 100) -> dict[int, float]:
    """Each tenth of `least` hints or more: happened − stated, points."""
    out = {}
    for t in range(10):
        cell = [r for r in rows if min(int(float(r["stated"]) * 10), 9) == t]  # type: ignore[arg-type]
        if len(cell) >= least:
            out[t] = sum(float(r["won"]) - float(r["stated"]) for r in cell) / len(cell) * 100  # type: ignore[arg-type]
    return out


def test_runs_of_several_seeds_add_up_and_a_match_kept_twice_counts_once(tmp_path: Path) -> None:
    """`--tables a,b` adds runs together: the rows of other seeds all, a match a later file
    holds again (the same seed run twice) once."""
    first = _rows(hands=6, per_hand=2, shift=0.0, seed=1)
    other = _rows(hands=4, per_hand=3, shift=0.0, seed=2)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in first))
    b.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [*other, *first]))
    rows = load_rows([str(a), str(b)])
    assert len(rows) == len(first) + len(other)
    assert sorted(orjson.dumps(r) for r in rows) == sorted(
        orjson.dumps(r) for r in [*first, *other]
    )
