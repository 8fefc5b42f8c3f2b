"""The scoring tables of RULES.md, as small pure functions."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.actions import ActionKind


def truco_wanted_value(level: int) -> int:
    """R9: none 1, truco 2, retruco 3, vale cuatro 4."""
    return level + 1


def truco_not_wanted_value(level: int) -> int:
    """R9: truco 1, retruco 2, vale cuatro 3."""
    return level


def falta(scores: Sequence[int], target: int) -> int:
    """R18: what the side that is ahead lacks to reach the target."""
    return target - max(scores)


def falta_a_las_malas(scores: Sequence[int], target: int) -> int:
    """R46: in a match to 30, while the side ahead is in the malas (under 15) the falta is what
    it lacks to reach 15; from the buenas on (and in a match to 15) R18's."""
    half = target // 2
    ahead = max(scores)
    if target == 30 and ahead < half:
        return half - ahead
    return falta(scores, target)


def _chain_sum(chain: Sequence[ActionKind]) -> int:
    return sum(2 if kind is ActionKind.ENVIDO else 3 for kind in chain)


def envido_wanted_value(chain: Sequence[ActionKind], falta_points: int) -> int:
    """R16: E 2, R 3, EE 4, ER 5, EER 7; any chain ending in falta envido is worth the falta."""
    if chain[-1] is ActionKind.FALTA_ENVIDO:
        return falta_points
    return _chain_sum(chain)


def envido_not_wanted_value(chain: Sequence[ActionKind]) -> int:
    """R16: the wanted value of the chain without its last raise, or 1 for a single chant."""
    if len(chain) == 1:
        return 1
    return _chain_sum(chain[:-1])


def envido_raises(chain: Sequence[ActionKind]) -> tuple[ActionKind, ...]:
    """R16: E -> E (once), R, F; R -> F; F ends the chain."""
    if ActionKind.FALTA_ENVIDO in chain:
        return ()
    raises: list[ActionKind] = []
    if list(chain) == [ActionKind.ENVIDO]:
        raises.append(ActionKind.ENVIDO)
    if ActionKind.REAL_ENVIDO not in chain:
        raises.append(ActionKind.REAL_ENVIDO)
    raises.append(ActionKind.FALTA_ENVIDO)
    return tuple(raises)


FLOR_ALONE = 3  # R22: only one side has flor, for each flor declared
FLOR_CONTESTED = 6  # R22: both flores compared; contraflor wanted
FLOR_ACHICO = 4  # R22: con flor me achico


def contraflor_al_resto_not_wanted_value(chain: Sequence[ActionKind]) -> int:
    """R22: 4 straight over a flor, 6 over a contraflor."""
    return FLOR_CONTESTED if ActionKind.CONTRAFLOR in chain else FLOR_ACHICO


def fosforos(points: int) -> tuple[int, int]:
    """R27: (full squares of five, loose matches)."""
    return divmod(max(points, 0), 5)


def malas_buenas(points: int, target: int) -> tuple[int, int] | None:
    """R26: points in las malas and in las buenas; None for a match to 15 (no halves)."""
    if target != 30:
        return None
    half = target // 2
    return min(points, half), max(points - half, 0)
