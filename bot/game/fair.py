"""Provably fair deals: every deal of a match is drawn from one secret seed, committed to.

When a match starts the bot draws a secret seed (32 random bytes, as 64 hex digits) and shows its
SHA-256, the commitment. The deal of hand `n` is then fixed by the seed alone:

1. for every card of the 40-card deck, take `SHA-256("<seed>:<n>:<card>")`, where `<card>` is the
   card's code (`1e` ancho de espadas, `7o`, `12c`, `4b`: number, then suit o/c/e/b);
2. sort the deck by those digests (as bytes, smallest first);
3. seat 0 gets the first three cards, seat 1 the next three, and so on.

Sorting by a keyed hash is a uniform shuffle for anyone who does not know the seed, and anyone
who knows it can repeat it in a few lines. The seed is revealed when the match ends: its hash
must equal the commitment shown at the start, and every deal in the match's log must come out
of it, so the bot cannot have changed a deal after showing the commitment.
"""

from __future__ import annotations

import hashlib
import secrets

from bot.game.actions import Deal
from bot.game.cards import DECK, Card


def new_seed() -> str:
    return secrets.token_hex(32)


def seed_for_tests(base: int | str, table_id: int) -> str:
    """`TRUCO_SEED` (tests, demos): a seed anyone can predict, one per table."""
    return hashlib.sha256(f"truco-seed:{base}:{table_id}".encode()).hexdigest()


def commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def shuffled(seed: str, hand: int) -> list[Card]:
    return sorted(DECK, key=lambda c: hashlib.sha256(f"{seed}:{hand}:{c.code}".encode()).digest())


def fair_deal(seed: str, hand: int, players: int) -> Deal:
    order = shuffled(seed, hand)
    return Deal(tuple(tuple(order[3 * i : 3 * i + 3]) for i in range(players)))
