"""Chance: deals drawn from an injected random source."""

from __future__ import annotations

import random

from bot.game.actions import Deal
from bot.game.cards import DECK


def random_deal(rng: random.Random, players: int) -> Deal:
    """R3: three cards each from a freshly shuffled deck."""
    drawn = rng.sample(DECK, 3 * players)
    return Deal(tuple(tuple(drawn[i * 3 : i * 3 + 3]) for i in range(players)))
