"""The rules engine: pure truco argentino, no I/O, no Telegram, no text."""

from bot.game.actions import Action, ActionKind, AnyAction, Deal, act, parse_any
from bot.game.cards import DECK, Card, Suit, card, cards, envido_value, flor_value, has_flor
from bot.game.dealing import random_deal
from bot.game.errors import IllegalActionError, Reason, TrucoError
from bot.game.events import Event
from bot.game.observation import Observation, observe
from bot.game.state import MatchConfig, MatchState, Pending, Phase, new_match, replay, side_of

__all__ = [
    "DECK",
    "Action",
    "ActionKind",
    "AnyAction",
    "Card",
    "Deal",
    "Event",
    "IllegalActionError",
    "MatchConfig",
    "MatchState",
    "Observation",
    "Pending",
    "Phase",
    "Reason",
    "Suit",
    "TrucoError",
    "act",
    "card",
    "cards",
    "envido_value",
    "flor_value",
    "has_flor",
    "new_match",
    "observe",
    "parse_any",
    "random_deal",
    "replay",
    "side_of",
]
