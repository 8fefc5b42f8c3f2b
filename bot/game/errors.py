"""Typed refusals: the engine never speaks, it gives a reason code the views translate."""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    MATCH_OVER = "match_over"
    DEAL_PENDING = "deal_pending"
    NOT_DEALING_NOW = "not_dealing_now"
    BAD_DEAL = "bad_deal"
    NO_SUCH_SEAT = "no_such_seat"
    NOT_YOUR_TURN = "not_your_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    ANSWER_PENDING = "answer_pending"
    WAIT_FOR_ANSWER = "wait_for_answer"
    NOTHING_TO_ANSWER = "nothing_to_answer"
    MUST_DECLARE_FLOR = "must_declare_flor"
    FLOR_FIRST = "flor_first"
    NO_FLOR = "no_flor"
    FLOR_OFF = "flor_off"
    FLOR_CLOSED = "flor_closed"
    ENVIDO_CLOSED = "envido_closed"
    ENVIDO_ALREADY_PLAYED = "envido_already_played"
    CANNOT_RAISE_ENVIDO = "cannot_raise_envido"
    TRUCO_NOT_YOURS = "truco_not_yours"
    TRUCO_MAX = "truco_max"
    NOT_ALLOWED = "not_allowed"


class TrucoError(Exception):
    """Base of the engine's errors."""


class IllegalActionError(TrucoError):
    """A well-formed action that the rules do not allow now."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason.value}{': ' + detail if detail else ''}")
        self.reason = reason
