"""Computer players with a character: each one plays its level (normal or difícil) with a habit
of its own pushed a little, the way people at a table differ.

A character is a bend of the level's own choice (`bot.ai.rivals.Rival.stray`, the model difícil
keeps of a rival who strays from the sound player): the prudente refuses and keeps quiet more
often, the mentiroso chants with less, the cantor sings every envido and wants them, the guapo
wants every truco. Only where its level had a choice, and only among the seat's legal actions.
How much each costs or gains is measured by the gauntlet (`bench/ai.py --characters`): a bend
is kept small enough that a character costs its level a few points at most.
"""

from __future__ import annotations

import random
from enum import StrEnum

from bot.ai.rivals import Rival
from bot.game.actions import Action
from bot.game.observation import Observation


class Character(StrEnum):
    PRUDENTE = "prudente"
    MENTIROSO = "mentiroso"
    CANTOR = "cantor"
    GUAPO = "guapo"


CHARACTERS: tuple[Character, ...] = tuple(Character)

BENDS: dict[Character, Rival] = {
    # refuses an eighth of the chants its level would want, keeps a fifth of its chants quiet
    Character.PRUDENTE: Rival(fold_truco=0.12, fold_envido=0.12, quiet_truco=0.2, quiet_envido=0.2),
    # chants a truco with less at one decision in eight, an envido at one in five
    Character.MENTIROSO: Rival(bluff_truco=0.12, bluff_envido=0.2),
    # sings an envido at one hand in five it would not, wants a fifth of those it would refuse
    Character.CANTOR: Rival(bluff_envido=0.2, call_envido=0.2),
    # wants a quarter of the trucos its level would refuse, and now and then chants one
    Character.GUAPO: Rival(call_truco=0.25, bluff_truco=0.05),
}


def character_of(table_id: int, seat: int) -> Character:
    """The character of the computer player at `seat` of table `table_id`: drawn from the
    two, so it stays the same for the whole match, after a restart too."""
    return random.Random(f"character:{table_id}:{seat}").choice(CHARACTERS)


def bend(
    character: Character | str, chosen: Action, obs: Observation, rng: random.Random
) -> Action:
    """What a player of `character` does where its level chose `chosen`."""
    return BENDS[Character(character)].stray(chosen, obs.actions, obs.pending, obs.cards, rng)
