"""The core's model: how a match ends (`Outcome`, every termination), and every refusal the
core can give has its words in every language."""

from __future__ import annotations

import pytest

from bot.game import Reason
from bot.i18n import translator
from bot.model.outcome import Outcome, Termination
from bot.model.refusals import Refusal, Refused
from bot.views.common import refusal_text


def test_a_match_won_on_the_score() -> None:
    outcome = Outcome.reached(1, (22, 30))
    assert outcome.termination is Termination.TARGET
    assert (outcome.winner, outcome.loser, outcome.scores, outcome.seat) == (1, 0, (22, 30), None)
    assert not outcome.conceded


@pytest.mark.parametrize("seat", [0, 1, 2, 3, 4, 5])
def test_a_concession_goes_to_the_other_side(seat: int) -> None:
    outcome = Outcome.left(seat, (4, 9))
    assert outcome.termination is Termination.CONCESSION and outcome.conceded
    assert outcome.winner == 1 - seat % 2 and outcome.loser == seat % 2
    assert outcome.seat == seat and outcome.scores == (4, 9)


def test_three_timeouts_in_a_row() -> None:
    outcome = Outcome.left(2, (0, 0), timed_out=True)
    assert outcome.termination is Termination.TIMEOUTS and outcome.conceded
    assert outcome.winner == 1


def test_a_cancelled_match_has_no_winner() -> None:
    outcome = Outcome.cancelled((3, 5))
    assert outcome.termination is Termination.CANCELLED
    assert outcome.winner is None and outcome.loser is None and not outcome.conceded


@pytest.mark.parametrize(
    "outcome",
    [
        Outcome.reached(0, (30, 2)),
        Outcome.left(3, (1, 2)),
        Outcome.left(0, (5, 5), timed_out=True),
        Outcome.cancelled((0, 0)),
    ],
)
def test_saved_and_read_back(outcome: Outcome) -> None:
    assert Outcome.from_json(outcome.to_json()) == outcome


@pytest.mark.parametrize(
    ("termination", "winner", "seat"),
    [
        (Termination.CANCELLED, 0, None),  # a cancelled match won by someone
        (Termination.TARGET, None, None),  # a match reached by nobody
        (Termination.CONCESSION, 1, None),  # a concession by no seat
        (Termination.CONCESSION, 1, 3),  # the side that conceded wins
        (Termination.TARGET, 2, None),  # no such side
    ],
)
def test_an_outcome_that_cannot_be(
    termination: Termination, winner: int | None, seat: int | None
) -> None:
    with pytest.raises(ValueError):
        Outcome(termination, winner, (0, 0), seat)


@pytest.mark.parametrize("language", ["es", "en"])
def test_every_refusal_and_reason_has_words(language: str) -> None:
    t = translator(language)
    for code in Refused:
        if code is Refused.ILLEGAL:
            continue
        text = refusal_text(t, Refusal(code))
        assert text and text != code.key, code
    for reason in Reason:
        text = refusal_text(t, Refusal(Refused.ILLEGAL, reason=reason))
        assert text and not text.startswith("reason."), reason
