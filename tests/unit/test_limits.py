"""Token buckets (`bot.model.limits`): a refusal told once a filling, a clock set back."""

from __future__ import annotations

from bot.model.limits import Admit, Buckets


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_refusal_is_told_once_until_the_bucket_is_full_again() -> None:
    clock = Clock()
    buckets = Buckets(rate=1 / 10, burst=2, clock=clock)
    said = [buckets.admit("ana") for _ in range(4)]
    assert said == [Admit.YES, Admit.YES, Admit.PAUSE, Admit.QUIET]
    assert buckets.admit("beto") is Admit.YES  # each key its own
    clock.now += 10  # one token: answered, and still told already
    assert [buckets.admit("ana") for _ in range(2)] == [Admit.YES, Admit.QUIET]
    clock.now += 20  # full again: a new flood is told again
    said = [buckets.admit("ana") for _ in range(4)]
    assert said == [Admit.YES, Admit.YES, Admit.PAUSE, Admit.QUIET]


def test_a_clock_set_back_neither_gives_nor_takes_tokens() -> None:
    clock = Clock()
    buckets = Buckets(rate=1, burst=2, clock=clock)
    assert buckets.take("ana") and buckets.take("ana")
    clock.now -= 3600
    assert not buckets.take("ana")
    clock.now += 1
    assert buckets.take("ana")
