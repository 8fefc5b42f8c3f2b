"""Computer players head to head: matches to 30, con flor, deals mirrored.

    python bench/ai.py [--matches N] [--pairs random:facil,facil:normal,...] [--jobs J]
    python bench/ai.py --gauntlet [--matches N]    # each level against every opponent style
    python bench/ai.py --teams dificil+dificil:normal+normal,...   # 2v2, a team a side
    python bench/ai.py --hand-points 5000     # the hand-size table of bot/ai/estimate.py
    python bench/ai.py --habits normal:normal --matches 150   # the rates of bot/ai/rivals.py
    python bench/ai.py --gauntlet --levels 'normal,dificil,dificil@EDGE=0.5'  # a trial, paired
    python bench/ai.py --gauntlet --levels normal,dificil --seed 7 --save before7.json  # kept,
    python bench/ai.py --paired before7.json+before8.json,after7.json+after8.json  # and two
                                                # runs on the same seeds compared, paired
    python bench/ai.py --characters --levels normal,dificil --matches 240  # each level against
                                                # itself with each character (`dificil~cantor`)
    python bench/ai.py --calibration 120 [--topic envido|hand] --seed 2  # hints' chances vs what
                                                # happened, by tenth (and calibration points)
    python bench/ai.py --calibration 12 --opponents all --rows R --jobs 1  # the table per
                                                # opponent and topic, with chance alone's bound
    python bench/ai.py --tables R1,R2           # that table again, from kept rows (runs of
                                                # several seeds add up; a match kept twice once)
    python bench/ai.py --calibration 30 --topic envido --no-clock --seed 41  # two versions of
                                                # the hints paired: the same matches however busy
    python bench/ai.py --hint-times 20 --jobs 1  # a hint's time and difícil's move's, one core
    python bench/ai.py --memory club,caller --series 30 --length 3   # difícil remembering a
                                                # rival across a series of matches, or not
    python bench/ai.py --tells normal:envido_bluffer --matches 40   # what bot/ai/tells.py
                                                # learns of a player over matches

A player is a level of `bot.ai` (random, facil, normal, dificil) or a style of the gauntlet
(`bench/styles.py`: club, tight, caller, bluffer, runner, stranger1–3, sandbagger, gambler,
sharp, envido_bluffer, envido_caller, truco_bluffer, stayer), written apart from `bot.ai`;
or `adapt`, the normal player betting against its model of the rival (difícil's baseline
without the search: what the search adds is difícil − adapt).

Each deal sequence is played twice, with the seats swapped, so luck of the cards cancels out;
a pair of mirrored matches is the unit of the confidence interval (95%, normal approximation
over pairs). Also printed per level: decisions per second and the p99 time of one decision
(only decisions with a choice; a single legal action is not a decision); and per pairing,
where a match's points went (won and lost by kind: an envido turned down, accepted, a falta
accepted, the truco turned down, the hand played out...) and what each side's envidos and
trucos came with (how often with the worse envido of the table).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.styles import STYLES
from bot.ai import Level, decide, hints, personas, search
from bot.ai import signs as signs_of
from bot.ai.characters import CHARACTERS, Character
from bot.ai.rules import play_normal
from bot.ai.signs import signs_to_show
from bot.game import (
    Action,
    MatchConfig,
    MatchState,
    Observation,
    Pending,
    new_match,
    observe,
    random_deal,
    side_of,
)
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, ActionKind
from bot.game.events import Chanted, EnvidoResolved, HandDealt, Scored, ScoreReason
from bot.game.seats import seats as table_of

CONFIG = MatchConfig(players=2, target=30, flor=True)
TRIALS = ("adapt", "onlytruco", "nottruco")  # players of the bench alone (see `choose`)
TEAMS = MatchConfig(players=4, target=30, flor=True)
TRIOS = MatchConfig(players=6, target=30, flor=True)  # 3v3, pica-pica on
CONFIGS = {2: CONFIG, 4: TEAMS, 6: TRIOS}
DEFAULT_PAIRS = (
    "facil:random,normal:facil,dificil:normal,dificil:random,normal:random,dificil:facil"
)
GAUNTLET_LEVELS = ("facil", "normal", "dificil")
OPPONENTS = (
    "random", "facil", "normal", "club", "tight", "caller", "bluffer", "runner",
    "stranger1", "stranger2", "stranger3", "sandbagger", "gambler",
    "sharp", "envido_bluffer", "envido_caller", "truco_bluffer", "stayer",
)  # fmt: skip


def choose(name: str, obs: Observation, seed: str, signs: tuple[str, ...] = ()) -> Action:
    name = name.split("@")[0]  # a trial's settings are set by run_chunk
    if "~" in name:  # a level with a character: `dificil~mentiroso`
        level, character = name.split("~")
        return decide(obs, level, seed, signs, character=Character(character))
    if name in STYLES:
        return STYLES[name](obs, random.Random(seed))
    if name == "adapt":  # trial: normal reading its rival
        return play_normal(obs, random.Random(seed), signs, search.facing(search.rivals_of(obs)))
    if name in TRIALS[1:]:  # trial: difícil's truco chants alone, or all but them
        base = decide(obs, "normal", seed, signs)
        hard = decide(obs, "dificil", seed, signs)
        chant = base.kind is ActionKind.PLAY and hard.kind in TRUCO_CHANTS
        if name == "onlytruco":
            return hard if chant else base
        return base if chant else hard
    return decide(obs, name, seed, signs)


def answerer(state: MatchState, names: tuple[str, ...], seat: int) -> int:
    """Who of two computer partners answers a chant both may answer (as the bot does:
    `bot.service.ai`, by the señas each showed the other); otherwise the first to act."""
    h = state.hand
    partners = table_of(len(names)).partners(seat)
    if not partners or h is None or h.duel is not None:
        return seat
    partner = partners[0]  # (of three, the first after it answers with it: as `bot_to_move`)
    if names[seat] in STYLES or names[partner] in STYLES:
        return seat
    pending = h.pending()
    if pending not in (Pending.ENVIDO, Pending.TRUCO):
        return seat
    if not any(a.seat == partner for a in state.legal_actions()):
        return seat
    answers_first = getattr(signs_of, "answers_first", None)  # older bots: the first seat
    if answers_first is None:
        return seat
    mine, theirs = signs_to_show(h.dealt[seat]), signs_to_show(h.dealt[partner])
    return seat if answers_first(mine, theirs, pending.value) else partner


# Where a match's points came from (`Tally.points`): the reason they were scored, an accepted
# envido apart when its chain had a falta envido
KINDS = (
    "envido turned down", "envido accepted", "falta accepted", "flor", "truco turned down",
    "hand played out", "mazo",
)  # fmt: skip
_KIND_OF = {
    ScoreReason.ENVIDO_NOT_WANTED: "envido turned down",
    ScoreReason.ENVIDO: "envido accepted",
    ScoreReason.FLOR: "flor",
    ScoreReason.FLOR_CONTEST: "flor",
    ScoreReason.FLOR_ACHICO: "flor",
    ScoreReason.FLOR_NOT_WANTED: "flor",
    ScoreReason.TRUCO_NOT_WANTED: "truco turned down",
    ScoreReason.HAND: "hand played out",
    ScoreReason.MAZO: "mazo",
}
# What each side's envido chants and answers came with (`Tally.envido`), as counts:
# chants of a plain envido and of a real envido or falta, and how many with the worse envido
# of the table; a plain envido turned down and accepted (with the better envido, won); a falta
# accepted (won)
ENVIDO_COUNTS = (
    "envido", "envido worse", "raise", "raise worse", "turned down", "turned down better",
    "accepted", "accepted won", "falta accepted", "falta won", "truco", "truco poor",
)  # fmt: skip
POOR_TRUCO = 10  # a truco chanted holding no card of this strength (a 3) or better is poor


@dataclass
class Tally:
    """What a match (or a sum of them) showed, by side: points by kind and envido counts."""

    points: Counter[tuple[str, int]] = field(default_factory=Counter)
    envido: Counter[tuple[str, int]] = field(default_factory=Counter)

    def add(self, other: Tally, swap: bool = False) -> None:
        for mine, theirs in ((self.points, other.points), (self.envido, other.envido)):
            for (kind, side), n in theirs.items():
                mine[kind, 1 - side if swap else side] += n

    def heard(
        self, state: MatchState, events: Sequence[object], chain: list[tuple[int, ActionKind]]
    ) -> None:
        """Count one action's `events` (`chain`: the hand's envido chants so far, kept here)."""
        for event in events:
            if isinstance(event, HandDealt):
                chain.clear()
            elif isinstance(event, Chanted) and event.kind in ENVIDO_CHANTS:
                side = side_of(event.seat)
                name = "envido" if event.kind is ActionKind.ENVIDO else "raise"
                self.envido[name, side] += 1
                self.envido[f"{name} worse", side] += not hints.envido_won(state, side)
                chain.append((event.seat, event.kind))
            elif isinstance(event, Chanted) and event.kind in TRUCO_CHANTS and state.hand:
                side = side_of(event.seat)
                held = state.hand.held[event.seat]
                self.envido["truco", side] += 1
                poor = bool(held) and all(c.strength < POOR_TRUCO for c in held)
                self.envido["truco poor", side] += poor
            elif isinstance(event, EnvidoResolved) and chain:
                answering = 1 - side_of(chain[-1][0])
                kinds = [k for _, k in chain]
                if not event.wanted and kinds == [ActionKind.ENVIDO]:
                    self.envido["turned down", answering] += 1
                    better = hints.envido_won(state, answering)
                    self.envido["turned down better", answering] += better
                elif event.wanted and kinds == [ActionKind.ENVIDO]:
                    self.envido["accepted", answering] += 1
                    self.envido["accepted won", answering] += event.winner == answering
                elif event.wanted and ActionKind.FALTA_ENVIDO in kinds:
                    self.envido["falta accepted", answering] += 1
                    self.envido["falta won", answering] += event.winner == answering
            elif isinstance(event, Scored):
                kind = _KIND_OF[event.reason]
                falta_in = any(k is ActionKind.FALTA_ENVIDO for _, k in chain)
                if kind == "envido accepted" and falta_in:
                    kind = "falta accepted"
                self.points[kind, event.side] += event.points


def play(names: tuple[str, ...], seed: int) -> tuple[int, dict[str, list[float]], Tally]:
    """One match; `names[s]` plays seat s (two seats: 1v1, four: 2v2; in 2v2 a computer
    player is shown its partner's señas when the partner is one too, as at the bot's tables).
    Returns the winning side, decision times by player and what the match showed by side."""
    config = CONFIGS[len(names)]
    state = new_match(config)
    times: dict[str, list[float]] = {name: [] for name in names}
    tally = Tally()
    chain: list[tuple[int, ActionKind]] = []
    while not state.is_over:
        if state.needs_deal:
            deal = random_deal(random.Random(f"{seed}:{state.hand_number + 1}"), len(names))
            tally.heard(state, state.apply(deal), chain)
            continue
        seat = state.legal_actions()[0].seat
        seat = answerer(state, names, seat)
        obs = observe(state, seat)
        name = names[seat]
        signs: tuple[str, ...] = ()
        h = state.hand
        if h is not None and h.duel is None:  # (as the bot does; no señas in a duel)
            for partner in table_of(len(names)).partners(seat):
                if names[partner] not in STYLES:
                    signs += tuple(signs_to_show(h.dealt[partner]))
        started = time.perf_counter()
        action = choose(name, obs, f"{seed}:{state.step}:{seat}", signs)
        if len(obs.actions) > 1:
            times[name].append(time.perf_counter() - started)
        tally.heard(state, state.apply(action), chain)
    assert state.winner is not None
    return side_of(state.winner), times, tally


def seats(a: str, b: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The seats of A against B, and with the sides swapped: `x+y` is a team (2v2), `x+y+z`
    a side of three (3v3)."""
    if "+" not in a:
        return (a, b), (b, a)
    ours, theirs = a.split("+"), b.split("+")
    first = tuple(name for pair in zip(ours, theirs, strict=True) for name in pair)
    second = tuple(name for pair in zip(theirs, ours, strict=True) for name in pair)
    return first, second


def mirrored(a: str, b: str, seed: int) -> tuple[float, dict[str, list[float]], Tally]:
    """A's score over a deal sequence played twice (A on side 0, then on side 1), and what
    the two matches showed (side 0: A's)."""
    there, back = seats(a, b)
    first, t1, shown1 = play(there, seed)
    second, t2, shown2 = play(back, seed)
    score = (first == 0) * 0.5 + (second == 1) * 0.5
    times = {k: t1.get(k, []) + t2.get(k, []) for k in {*t1, *t2}}
    shown = Tally()
    shown.add(shown1)
    shown.add(shown2, swap=True)
    return score, times, shown


def apply_tune(tune: str) -> dict[str, float]:
    """Set constants of bot.ai for a trial: `SIGNIFICANCE=1.5,READ_RIVALS=0,rivals.PRIOR=3`
    (a bare name is one of bot.ai.search; `;` also separates settings). Returns the old
    values, as a tune that puts them back."""
    old: dict[str, float] = {}
    for setting in filter(None, tune.replace(";", ",").split(",")):
        key, value = setting.split("=")
        module, name = search, key
        if "." in key:
            where, name = key.split(".")
            module = importlib.import_module(f"bot.ai.{where}")
        assert hasattr(module, name), name
        old[key] = getattr(module, name)
        setattr(module, name, type(getattr(module, name))(float(value)))
    return old


def habits(a: str, b: str, matches: int) -> None:
    """What the table keeps of B's play (bot/game/habits.py) over matches against A: the
    rates bot/ai/rivals.py takes as the normal player's when B is normal."""
    from dataclasses import fields

    from bot.game.habits import Habits

    total = [0] * len(fields(Habits))
    hands = 0
    for seed in range(matches):
        state = new_match(CONFIG)
        names = (a, b)
        while not state.is_over:
            if state.needs_deal:
                state.apply(random_deal(random.Random(f"{seed}:{state.hand_number}"), 2))
                continue
            seat = state.legal_actions()[0].seat
            state.apply(choose(names[seat], observe(state, seat), f"{seed}:{state.step}"))
        hands += state.hand_number
        total = [x + y for x, y in zip(total, state.habits[1], strict=True)]
    h = Habits(*total)

    def rate(x: int, y: int) -> str:
        return f"{x / max(y, 1):.2f}"

    print(f"{b} against {a}, {hands} hands: trucos chanted a hand {rate(h.truco_chants, hands)}, "
          f"wanted {rate(h.truco_wanted, h.truco_wanted + h.truco_refused)}; envidos chanted a "
          f"hand {rate(h.envido_chants, hands)}, wanted "
          f"{rate(h.envido_wanted, h.envido_wanted + h.envido_refused)}; mazos a hand "
          f"{rate(h.mazos, hands)}; trucos shown bluffs {rate(h.truco_bluffs, h.truco_shown)}, "
          f"envidos {rate(h.envido_bluffs, h.envido_shown)}")  # fmt: skip


def tells_of(a: str, b: str, matches: int, players: int = 2) -> None:
    """What `bot.ai.tells` learns of B over matches against A (every hand of B's seats, from
    the public record; the priors of bot/ai/tells.py are normal's against normal)."""
    from bot.ai.tells import PRIOR, Rate, Tells, learned

    names = seats(a, b)[0] if players == 4 else (a, b)
    config = CONFIGS[len(names)]
    found = Tells()
    hands = 0
    for seed in range(matches):
        state = new_match(config)
        while not state.is_over:
            if state.needs_deal:
                deal = random.Random(f"{seed}:{state.hand_number + 1}")
                state.apply(random_deal(deal, len(names)))
                continue
            seat = state.legal_actions()[0].seat
            state.apply(choose(names[seat], observe(state, seat), f"{seed}:{state.step}:{seat}"))
        for hand in observe(state, None).past:
            hands += 1
            for seat in range(1, len(names), 2):
                pendings: personas.Pendings = []
                personas.past_moves(hand, config, seat, random.Random(hands), pendings)
                found = learned(found, hand, seat, pendings)
    print(f"{b} against {a}, {matches} matches, {hands} hands:")
    for r in Rate:
        print(f"  {r.name.lower()}: {found.rate(r):.3f} over {found.seen(r):.0f} showings "
              f"(prior {PRIOR[r]:.3f})")  # fmt: skip


def run_chunk(
    a: str, b: str, seeds: list[int], clock: bool = True, tune: str = ""
) -> tuple[dict[int, float], dict[str, list[float]], dict[int, Tally]]:
    if not clock:  # every decision imagines all its worlds, however busy the machine is
        search.CAP = math.inf
    apply_tune(tune)
    # `dificil@EDGE_PRIOR=20;SIGNIFICANCE=2`: a level with its own settings, for this pairing
    # (both sides play under them: give them to one side only)
    trial = ";".join(n.split("@", 1)[1] for n in (a, b) if "@" in n)
    old = apply_tune(trial)
    scores: dict[int, float] = {}
    times: dict[str, list[float]] = {}
    shown: dict[int, Tally] = {}
    try:
        for seed in seeds:
            score, t, shown[seed] = mirrored(a, b, seed)
            scores[seed] = score
            for k, v in t.items():
                times.setdefault(k, []).extend(v)
    finally:
        apply_tune(",".join(f"{k}={float(v)}" for k, v in old.items()))
    return scores, times, shown


def interval(scores: list[float]) -> tuple[float, float]:
    """The mean and the half width of its 95% interval (normal approximation)."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(n - 1, 1)
    return mean, 1.96 * math.sqrt(var / n)


class Runner:
    def __init__(
        self,
        pool: ProcessPoolExecutor,
        jobs: int,
        matches: int,
        seed: int,
        clock: bool = True,
        tune: str = "",
    ) -> None:
        self.pool = pool
        self.clock = clock
        self.tune = tune
        self.jobs = jobs
        self.seeds = [seed * 1_000_000 + i for i in range(matches // 2)]
        self.times: dict[str, list[float]] = {}
        self.shown: dict[tuple[str, str], dict[int, Tally]] = {}  # by pairing, by deal sequence

    def pair(self, a: str, b: str) -> dict[int, float]:
        """A's score against B by deal sequence (each played twice, mirrored)."""
        for name in (*a.split("+"), *b.split("+")):
            name = name.split("@")[0]
            if name not in STYLES and name not in TRIALS:
                Level(name.split("~")[0])
        k = self.jobs * 4
        chunks = [self.seeds[i::k] for i in range(k)]
        started = time.perf_counter()
        scores: dict[int, float] = {}
        shown = self.shown.setdefault((a, b), {})
        clocks, tunes = [self.clock] * k, [self.tune] * k
        for chunk_scores, times, chunk_shown in self.pool.map(
            run_chunk, [a] * k, [b] * k, chunks, clocks, tunes
        ):
            scores.update(chunk_scores)
            shown.update(chunk_shown)
            for name, v in times.items():
                self.times.setdefault(name, []).extend(v)
        mean, half = interval(list(scores.values()))
        print(f"{a} vs {b}: {2 * len(scores)} matches, {mean:.1%} ± {half:.1%} "
              f"in {time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        return scores

    def print_points(self) -> None:
        """For each pairing, where the points of a match went (A's won and lost by kind, the
        net with its 95% interval over the mirrored pairs), and what each side's envidos came
        with."""
        for (a, b), shown in self.shown.items():
            seeds = list(shown)
            if not seeds:
                continue
            print(f"\n{a} vs {b}, points a match ({2 * len(seeds)} matches):\n")
            print(f"| kind | {a} won | {a} lost | net (95%) |")
            print("|---|---|---|---|")
            for kind in (*KINDS, "all"):
                kinds = KINDS if kind == "all" else (kind,)
                won = [sum(shown[s].points[k, 0] for k in kinds) / 2 for s in seeds]
                lost = [sum(shown[s].points[k, 1] for k in kinds) / 2 for s in seeds]
                net, half = interval([w - x for w, x in zip(won, lost, strict=True)])
                print(f"| {kind} | {sum(won) / len(seeds):.2f} | {sum(lost) / len(seeds):.2f} | "
                      f"{net:+.2f} ± {half:.2f} |")  # fmt: skip
            total = Tally()
            for s in seeds:
                total.add(shown[s])
            matches = 2 * len(seeds)
            for side, name in ((0, a), (1, b)):
                e = {k: total.envido[k, side] for k in ENVIDO_COUNTS}

                def share(part: str, whole: str, e: dict[str, int] = e) -> str:
                    return f"{e[part] / e[whole]:.0%}" if e[whole] else "–"

                print(f"\n{name}: plain envidos {e['envido'] / matches:.1f} a match "
                      f"({share('envido worse', 'envido')} with the worse envido), real envidos "
                      f"and faltas {e['raise'] / matches:.1f} ({share('raise worse', 'raise')} "
                      f"worse); a plain envido turned down {e['turned down'] / matches:.1f} a "
                      f"match (holding the better {share('turned down better', 'turned down')}), "
                      f"accepted {e['accepted'] / matches:.1f} (won "
                      f"{share('accepted won', 'accepted')}); a falta accepted "
                      f"{e['falta accepted'] / matches:.2f} (won "
                      f"{share('falta won', 'falta accepted')}); trucos and raises "
                      f"{e['truco'] / matches:.1f} a match ({share('truco poor', 'truco')} "
                      "holding no card of a 3 or better)")  # fmt: skip

    def print_times(self) -> None:
        print()
        print("| player | decisions | decisions/s (one core) | p50 | p99 | max |")
        print("|---|---|---|---|---|---|")
        for name, t in sorted(self.times.items()):
            t = sorted(t)
            if not t:
                continue
            rate = len(t) / sum(t)
            p50, p99 = t[len(t) // 2], t[min(len(t) - 1, int(len(t) * 0.99))]
            print(f"| {name} | {len(t)} | {rate:,.0f} | {p50 * 1000:.2f} ms | "
                  f"{p99 * 1000:.1f} ms | {t[-1] * 1000:.1f} ms |")  # fmt: skip


def gauntlet(run: Runner, levels: list[str], opponents: list[str], save: str = "") -> None:
    """Each level against every opponent on the same deal sequences; the last columns are
    each level's score minus normal's and minus the level before it (fácil aside), paired by
    deal sequence. `save`: a JSON file of the scores and points by deal sequence, for
    `--paired`."""
    results: dict[tuple[str, str], dict[int, float]] = {}
    for opponent in opponents:
        for level in levels:
            results[(level, opponent)] = run.pair(level, opponent)
    if save:
        save_gauntlet(save, results, run.shown)
    print()
    # each stronger level's score minus normal's, and minus the one before it in `levels`,
    # paired by deal sequence
    ranked = [lv for lv in levels if lv != "facil"]
    paired = [(lv, "normal") for lv in ranked if lv != "normal" and "normal" in ranked]
    paired += [
        (ranked[i], ranked[i - 1]) for i in range(1, len(ranked))
        if (ranked[i], ranked[i - 1]) not in paired
    ]  # fmt: skip
    heads = [f"{a} − {b}" for a, b in paired]
    print("| opponent | " + " | ".join([*levels, *heads]) + " |")
    print("|---|" + "---|" * (len(levels) + len(paired)))
    for opponent in opponents:
        cells = []
        for level in levels:
            mean, half = interval(list(results[(level, opponent)].values()))
            cells.append(f"{mean:.1%} ± {half:.1%}")
        for a, b in paired:
            d, n = results[(a, opponent)], results[(b, opponent)]
            mean, half = interval([d[s] - n[s] for s in d])
            cells.append(f"{mean * 100:+.1f} ± {half * 100:.1f}")
        print(f"| {opponent} | " + " | ".join(cells) + " |")


def save_gauntlet(
    path: str,
    results: dict[tuple[str, str], dict[int, float]],
    shown: dict[tuple[str, str], dict[int, Tally]],
) -> None:
    """Each cell's score and A's points won and lost by kind, by deal sequence."""
    cells = {
        f"{a}|{b}": {
            str(seed): {
                "score": score,
                "points": {k: [shown[a, b][seed].points[k, side] / 2 for side in (0, 1)]
                           for k in KINDS},
            }
            for seed, score in scores.items()
        }
        for (a, b), scores in results.items()
    }  # fmt: skip
    Path(path).write_text(json.dumps(cells))


def load_gauntlet(paths: str) -> dict[str, dict[str, Any]]:
    """Saved gauntlet runs (`a+b+c`: files of other seeds joined)."""
    cells: dict[str, dict[str, Any]] = {}
    for path in paths.split("+"):
        for cell, seeds in json.loads(Path(path).read_text()).items():
            cells.setdefault(cell, {}).update(seeds)
    return cells


def paired(before: str, after: str) -> None:
    """Two saved gauntlet runs on the same deal sequences: each cell's score before and after
    and the difference paired by deal sequence (95%), then the net points a match by kind."""
    old, new = load_gauntlet(before), load_gauntlet(after)
    print("| level | opponent | sequences | before | after | after − before (95%) |")
    print("|---|---|---|---|---|---|")
    common = [c for c in old if c in new]
    for cell in common:
        seeds = [s for s in old[cell] if s in new[cell]]
        if not seeds:
            continue
        a = [old[cell][s]["score"] for s in seeds]
        b = [new[cell][s]["score"] for s in seeds]
        d, half = interval([y - x for x, y in zip(a, b, strict=True)])
        level, opponent = cell.split("|")
        print(f"| {level} | {opponent} | {len(seeds)} | {sum(a) / len(a):.1%} | "
              f"{sum(b) / len(b):.1%} | {d * 100:+.1f} ± {half * 100:.1f} |")  # fmt: skip
    print("\nnet points a match by kind, before → after (after − before paired, 95%)\n")
    print("| level | opponent | " + " | ".join(KINDS) + " |")
    print("|---|---|" + "---|" * len(KINDS))
    for cell in common:
        seeds = [s for s in old[cell] if s in new[cell]]
        if not seeds:
            continue
        row = []
        for kind in KINDS:
            x = [old[cell][s]["points"][kind][0] - old[cell][s]["points"][kind][1] for s in seeds]
            y = [new[cell][s]["points"][kind][0] - new[cell][s]["points"][kind][1] for s in seeds]
            d, half = interval([q - p for p, q in zip(x, y, strict=True)])
            row.append(f"{sum(x) / len(x):+.2f} → {sum(y) / len(y):+.2f} ({d:+.2f} ± {half:.2f})")
        level, opponent = cell.split("|")
        print(f"| {level} | {opponent} | " + " | ".join(row) + " |")


# -- hints: are their chances true? ------------------------------------------------------------
RIVAL_LEVELS = ("normal", "dificil")  # rivals who play to win (a random one gives hands away)


def envido_open(obs: Observation) -> bool:
    """A position where a hint may be about the envido: one waits for an answer, or may be
    chanted."""
    chants = (ActionKind.ENVIDO, ActionKind.REAL_ENVIDO, ActionKind.FALTA_ENVIDO)
    return obs.pending is Pending.ENVIDO or any(a.kind in chants for a in obs.actions)


TOPICS = ("hand", "refusal", "envido")
Row = dict[str, object]  # one hint with a chance, and what happened (see calibration_match)


def calibration_match(seed: int, topic: str = "", rival: str = "", clock: bool = True) -> list[Row]:
    """One match whose side 0 follows every hint (so plays difícil), its rivals `rival` (any
    player of `choose`: a level, a style, `normal~cantor`; by default normal or difícil by the
    seed), 1v1 on even seeds and 2v2 on odd ones (a style: 1v1 always). Each hint with a chance
    gives a row: its topic (`envido`; `hand`; `refusal`, a truco refused or the mazo, whose
    chance is the move turned down), the raw share, the chance stated, what the match had
    shown of the rivals (`hints.Known`), the hand (rows of a hand are not independent: the
    intervals cluster by it), and what happened (1 won, 0 lost). The envido's truth is the
    deal's (who held the best envido); the hand's, how the hand played on ended; a refusal's
    move is played out on a copy of the table by the same players, to the hand's end. Without
    the `clock`, every decision and every hint imagines all its worlds, however busy the
    machine: the same seed plays the same match, so two versions of the hints are paired."""
    if not clock:
        search.CAP = math.inf
    players = 2 if seed % 2 == 0 or rival in STYLES else 4
    rival = rival or RIVAL_LEVELS[(seed // 2) % len(RIVAL_LEVELS)]
    config = CONFIGS[players]
    state = new_match(config)
    found: list[Row] = []
    waiting: list[tuple[int, Row]] = []  # (hand, row without its outcome)

    def move(st: MatchState, seat: int, tag: str) -> Action:
        obs = observe(st, seat)
        if side_of(seat) == 0:
            return decide(obs, "dificil", tag)
        return choose(rival, obs, tag)

    def settle(events: list[object], st: MatchState) -> None:
        for event in events:
            if type(event).__name__ == "HandEnded":
                number, winner = event.hand_number, event.winner  # type: ignore[attr-defined]
                for w in [w for w in waiting if w[0] == number]:
                    found.append({**w[1], "won": int(winner == 0)})
                    waiting.remove(w)
        if st.is_over:
            for w in waiting:
                found.append({**w[1], "won": int(st.winner == 0)})
            waiting.clear()

    names = ("dificil",) * players if rival not in STYLES else ("dificil", rival)
    # our own computer players (a level, or a level~character) are known to the hint as such
    level, _, character = rival.partition("~")
    machines = {
        s: search.Machine(level, character or None) for s in range(players) if side_of(s) != 0
    } if level in ("facil", "normal", "dificil") else None  # fmt: skip
    while not state.is_over:
        if state.needs_deal:
            state.apply(random_deal(random.Random(f"cal{seed}:{state.hand_number + 1}"), players))
            continue
        seat = state.legal_actions()[0].seat
        seat = answerer(state, names, seat)
        tag = f"{seed}:{state.step}:{seat}"
        if side_of(seat) != 0:
            settle(state.apply(move(state, seat, tag)), state)
            continue
        obs = observe(state, seat)
        if topic == "envido" and not envido_open(obs):  # (only the envido's hints measured)
            settle(state.apply(decide(obs, "dificil", tag)), state)
            continue
        hint = hints.advise(obs, tag, machines=machines, budget=None if clock else math.inf)
        if (topic and hint.topic.value != topic) or hint.topic is hints.Topic.FLOR:
            settle(state.apply(hint.action), state)  # (a flor's chance: not measured here)
            continue
        if hint.raw is not None and hint.chance is not None:
            known = hint.known
            kind = hint.topic.value if hint.probe == hint.action else "refusal"
            row: Row = {
                "rival": rival, "players": players, "seed": seed, "hand": state.hand_number,
                "topic": kind, "raw": hint.raw, "stated": hint.chance,
                "sound": known.sound if known else None,
                "settled": known.settled if known else None,
                "hands": known.hands if known else None, "edge": search.edge_of(obs),
                "wants": known.wants if known else None,
                "chants": known.chants if known else None,
                "runs": known.runs if known else None,
                "counts": list(known.counts) if known else None,
                "seat_hands": known.seat_hands if known else None,
                "act": hint.probe.kind.value, "pending": obs.pending.value if obs.pending else "",
                "scores": list(obs.start_scores),
                "low": hint.low, "high": hint.high,
                "more": list(known.more) if known else None,
                "every": list(known.every) if known else None,
                "envido": hint.envido, "level": obs.truco_level,
                "round": len(obs.rounds), "cards": len(obs.cards),
                "mano": int(side_of(obs.mano) == 0),
                "calls": [k.value for _, k in obs.calls],
                "chant": obs.pending_chant.value if obs.pending_chant else "",
                "worlds": hint.worlds, "machines": machines is not None,
            }  # fmt: skip
            if hint.topic is hints.Topic.ENVIDO:
                found.append({**row, "won": int(hints.envido_won(state, 0))})
            elif hint.probe != hint.action:  # played out on a copy, to the hand's end
                branch = state.copy()
                number = branch.hand_number
                events = branch.apply(hint.probe)
                won = None
                while won is None:
                    ended = [e for e in events if type(e).__name__ == "HandEnded"]
                    if ended:
                        won = ended[0].winner == 0  # type: ignore[attr-defined]
                    elif branch.is_over or branch.hand_number != number:
                        won = branch.winner == 0
                    else:
                        who = branch.legal_actions()[0].seat
                        events = branch.apply(move(branch, who, f"b{tag}:{branch.step}"))
                found.append({**row, "won": int(won)})
            else:
                waiting.append((state.hand_number, row))
        settle(state.apply(hint.action), state)
    return found


def clustered(rows: list[Row], key: str = "won") -> tuple[float, float]:
    """The mean of `key` over rows and the half width of its 95% interval, clustered by hand
    (the hints of one hand share its cards and its end: they are not independent draws)."""
    n = len(rows)
    mean = sum(float(r[key]) for r in rows) / n  # type: ignore[arg-type]
    by: dict[tuple[object, ...], float] = {}
    for r in rows:
        cluster = (r["rival"], r["seed"], r["hand"])
        by[cluster] = by.get(cluster, 0.0) + float(r[key]) - mean  # type: ignore[arg-type]
    g = len(by)
    var = sum(v * v for v in by.values()) / (n * n) * (g / max(g - 1, 1))
    return mean, 1.96 * math.sqrt(var)


def calibration_table(rows: list[Row], stated: str = "stated", least: int = 100) -> float:
    """The table of stated chance against what happened, by tenth; returns the largest error
    (points) in a tenth of `least` hints or more."""
    print("| stated | hints | mean stated | happened | error | 95% CI (by hand) |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for tenth in range(10):
        cell = [r for r in rows if min(int(float(r[stated]) * 10), 9) == tenth]  # type: ignore[arg-type]
        if not cell:
            continue
        said = sum(float(r[stated]) for r in cell) / len(cell)  # type: ignore[arg-type]
        mean, half = clustered(cell)
        error = (mean - said) * 100
        worst = max(worst, abs(error)) if len(cell) >= least else worst
        mark = "" if len(cell) >= least else " (few)"
        print(f"| {tenth * 10}–{tenth * 10 + 10}% | {len(cell)}{mark} | {said:.1%} | "
              f"{mean:.1%} | {error:+.1f} | {mean - half:.1%} – {mean + half:.1%} |")  # fmt: skip
    return worst


def calibration(
    matches: int, jobs: int, seed: int, topic: str = "", rivals: list[str] | None = None,
    out: str = "", clock: bool = True,
) -> None:  # fmt: skip
    """The chances hints state against what happened, by tenth of the stated chance, for
    each rival apart (`rivals`; by default normal and difícil together), and each topic; rows
    kept in `out` (JSON lines) for `calibration_check`."""
    import orjson

    seeds = [seed * 100_000 + i for i in range(matches)]
    started = time.perf_counter()
    rows: list[Row] = []
    # (seed by seed, every rival at each: a long run stopped early has each rival's rows)
    jobs_ = [(s, r) for s in seeds for r in (rivals or [""])]
    with ProcessPoolExecutor(jobs) as pool:
        for found in pool.map(calibration_match, [s for s, _ in jobs_], [topic] * len(jobs_),
                              [r for _, r in jobs_], [clock] * len(jobs_)):  # fmt: skip
            rows.extend(found)
            if out:
                with open(out, "ab") as f:
                    f.write(b"".join(orjson.dumps(r) + b"\n" for r in found))
    print(f"{matches} matches a rival, {len(rows)} hints with a chance, "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    report(rows)
    bound_tables(rows)


def report(rows: list[Row], stated: str = "stated") -> None:
    """Per rival and topic, the calibration table; and the worst cell of them all."""
    worst: list[tuple[float, str, str]] = []
    for rival in [*dict.fromkeys(str(r["rival"]) for r in rows), "all"]:
        for topic in ("envido", "hand", "refusal"):
            chosen = [r for r in rows if rival in ("all", r["rival"]) and r["topic"] == topic]
            if not chosen:
                continue
            print(f"\n{rival}, {topic}: {len(chosen)} hints")
            cell = calibration_table(chosen, stated)
            if rival != "all":  # (each rival apart: the target is per opponent)
                worst.append((cell, rival, topic))
    if worst:
        w, rival, topic = max(worst)
        print(f"\nworst tenth of 100 hints or more: {w:.1f} points ({rival}, {topic})")


Kept = dict[str, Any]  # a row read back from a file


def load_rows(paths: list[str]) -> list[Kept]:
    """The rows of several runs (of other seeds: `--seed` numbers the matches apart), each
    match once: one a later file holds again (the same seed run twice) is left out."""
    import orjson

    out: list[Kept] = []
    seen: set[tuple[object, object]] = set()
    for p in paths:
        rows = [orjson.loads(line) for line in Path(p).read_bytes().splitlines() if line.strip()]
        here = {(r["rival"], r["seed"]) for r in rows}
        again = here & seen
        if again:
            print(f"{p}: {len(again)} matches already read from an earlier file, left out")
        out += [r for r in rows if (r["rival"], r["seed"]) not in again]
        seen |= here
    return out


def known_of_row(r: Kept) -> hints.Known:
    """What the hint knew of the rivals when the row's chance was stated (rows kept before
    the table's counts, or the belief's further habits, were: those of a stranger)."""
    counts = tuple(r.get("counts") or (0,) * len(hints.COUNTED))
    return hints.Known(
        r["sound"], r["settled"], r["hands"],
        *(float(r[k]) if r.get(k) is not None else d
          for k, d in (("wants", 0.5), ("chants", 0.22), ("runs", 0.38))),
        counts, int(r.get("seat_hands") or 0), max(1, int(r["players"]) // 2),
        tuple(r.get("more") or ()), tuple(r.get("every") or ()),
    )  # fmt: skip


def moment_of_row(r: Kept) -> hints.Moment:
    """Where in the hand the row's chance was told (rows kept before that was: a card led)."""
    return hints.Moment(str(r["act"]), int(r.get("level") or 0), int(r.get("round") or 0))


def calibration_check(paths: list[str], held: set[str] | None = None) -> None:
    """The tables of rows kept by `calibration`: before (the chance each row stated when it
    was kept) and with the chance as hints.py states it now (`hints.stated` of each row's raw
    share, what was known of the rival and the score's edge). Rivals in `held` are marked
    (held out of the fit)."""
    rows = load_rows(paths)
    for r in rows:
        r["was"] = r["stated"]
        if r.get("machines") and r["topic"] != "envido":  # (as `hints.advise` tells it)
            r["stated"], r["low"], r["high"] = float(r["raw"]), None, None
            continue
        r["stated"], r["low"], r["high"] = hints.stated(
            str(r["topic"]), float(r["raw"]), known_of_row(r), float(r["edge"]), moment_of_row(r)
        )
        if held is not None and r["rival"] in held:
            r["rival"] = f"{r['rival']}*"
    print("before (as stated when the rows were kept):")
    report(rows, "was")
    print("\nnow:")
    report(rows)
    ranged(rows)
    summary(rows)


def worst_tenth(rows: list[Kept], key: str = "stated", least: int = 100) -> tuple[float, int]:
    """The largest error (points, signed: happened − stated) in a tenth of `least` hints or
    more, and that tenth (-1: no tenth has that many)."""
    worst, where = 0.0, -1
    for tenth in range(10):
        cell = [r for r in rows if min(int(float(r[key]) * 10), 9) == tenth]
        if len(cell) < least:
            continue
        err = sum(float(r["won"]) - float(r[key]) for r in cell) / len(cell) * 100
        if where < 0 or abs(err) > abs(worst):
            worst, where = err, tenth
    return worst, where


def noise_bound(
    rows: list[Kept], key: str = "stated", least: int = 100, draws: int = 200, seed: int = 0
) -> float:
    """How far off the worst tenth may look by chance alone: the 95th percentile of the worst
    tenth's |error| when what happened is drawn from the stated chances themselves (a chance
    that is exactly true), over `draws` draws. The hints of one hand share its end, so each
    hand draws one number and a hint of it came true when that number is under its chance:
    a hundred hints of a few dozen hands are far fewer than a hundred independent trials.
    A worst tenth beyond this bound is the chance being off; one within it may be luck."""
    said = [float(r[key]) for r in rows]
    tenth = [min(int(p * 10), 9) for p in said]
    hands: dict[tuple[object, ...], int] = {}
    hand = [hands.setdefault((r["rival"], r["seed"], r["hand"]), len(hands)) for r in rows]
    count = Counter(tenth)
    cells = [t for t in range(10) if count[t] >= least]
    if not cells:
        return 0.0
    expected = [0.0] * 10
    for t, p in zip(tenth, said, strict=True):
        expected[t] += p
    rng = random.Random(seed)
    worst: list[float] = []
    for _ in range(draws):
        u = [rng.random() for _ in range(len(hands))]
        won = [0] * 10
        for t, p, h in zip(tenth, said, hand, strict=True):
            won[t] += u[h] < p
        worst.append(max(abs(won[t] - expected[t]) / count[t] * 100 for t in cells))
    worst.sort()
    return worst[min(draws - 1, int(0.95 * draws))]


def tenth_bounds(
    rows: list[Kept], key: str = "stated", least: int = 100, draws: int = 400, seed: int = 0
) -> dict[int, float]:
    """For each tenth of the stated chance, how far off it may look by chance alone (points,
    95%), what happened drawn from the stated chances themselves, one draw per hand (as
    `noise_bound`). The tenths of `least` hints or more share one family-wise bound, each at
    its own width: a tenth is beyond chance when its error passes c times its spread, c the
    95th percentile over the draws of the largest error of them all in units of each tenth's
    spread (so a tenth of 4,000 hints is held to its ±1 point and one of 100 to its ±10, and
    all of them together are passed by luck one time in twenty). A tenth of fewer hints gets
    its own 95% bound alone. (`noise_bound` is the bound of the worst tenth in points: the
    widest, smallest tenth sets it.)"""
    said = [float(r[key]) for r in rows]
    tenth = [min(int(p * 10), 9) for p in said]
    hands: dict[tuple[object, ...], int] = {}
    hand = [hands.setdefault((r["rival"], r["seed"], r["hand"]), len(hands)) for r in rows]
    count = Counter(tenth)
    expected = [0.0] * 10
    for t, p in zip(tenth, said, strict=True):
        expected[t] += p
    rng = random.Random(seed)
    errors: dict[int, list[float]] = {t: [] for t in count}
    for _ in range(draws):
        u = [rng.random() for _ in range(len(hands))]
        won = [0] * 10
        for t, p, h in zip(tenth, said, hand, strict=True):
            won[t] += u[h] < p
        for t in count:
            errors[t].append(abs(won[t] - expected[t]) / count[t] * 100)
    at = min(draws - 1, int(0.95 * draws))
    out = {t: sorted(e)[at] for t, e in errors.items()}
    family = [t for t in count if count[t] >= least]
    spread = {t: max(math.sqrt(sum(e * e for e in errors[t]) / draws), 1e-9) for t in family}
    if family:
        c = sorted(max(errors[t][d] / spread[t] for t in family) for d in range(draws))[at]
        out.update({t: c * spread[t] for t in family})
    return out


def bound_tables(rows: list[Kept], least: int = 100, key: str = "stated") -> list[str]:
    """The calibration table per opponent and topic, by tenth: each tenth as `predicted →
    observed (n hints, ± what chance alone gives it at 95%, `tenth_bounds`)`, points; bold
    where it has `least` hints or more, and **off** where such a tenth is beyond its bound (a
    tenth of fewer hints beyond its own is marked `!`: a lead, not a verdict); then its worst
    tenth of `least` hints and `noise_bound` (the issue's yardstick: how far the worst such
    tenth of a true chance reaches); and all opponents together. Returned as markdown lines
    (also printed)."""
    out: list[str] = []
    opponents = [*dict.fromkeys(str(r["rival"]) for r in rows)]
    head = " | ".join(f"{t * 10}–{t * 10 + 10}%" for t in range(10))
    for topic in TOPICS:
        out += ["", f"{topic}: predicted → observed % (hints, ± chance alone at 95%)", "",
                f"| opponent | hints | {head} | worst (≥{least}) | chance alone (95%) |",
                "|---|---|" + "---|" * 12]  # fmt: skip
        for opponent in [*opponents, *(["all"] if len(opponents) > 1 else [])]:
            chosen = [r for r in rows
                      if opponent in ("all", r["rival"]) and r["topic"] == topic]  # fmt: skip
            if not chosen:
                continue
            bounds = tenth_bounds(chosen, key, least)
            family = noise_bound(chosen, key, least)
            worst, where = worst_tenth(chosen, key, least)
            cells = []
            for t in range(10):
                cell = [r for r in chosen if min(int(float(r[key]) * 10), 9) == t]
                if not cell:
                    cells.append("–")
                    continue
                said = sum(float(r[key]) for r in cell) / len(cell) * 100
                seen = sum(float(r["won"]) for r in cell) / len(cell) * 100
                text = f"{said:.0f} → {seen:.0f} ({len(cell)}, ±{bounds[t]:.0f})"
                if len(cell) >= least:
                    text = f"**{text}**"
                    if abs(seen - said) > bounds[t]:
                        text += " **off**"
                elif abs(seen - said) > bounds[t]:
                    text += " !"
                cells.append(text)
            told = f"{worst:+.1f} ({where * 10}–{where * 10 + 10}%)" if where >= 0 else "–"
            mark = " **off**" if where >= 0 and abs(worst) > bounds[where] else ""
            out.append(f"| {opponent} | {len(chosen)} | {' | '.join(cells)} | {told}{mark} | "
                       f"{family:.1f} |" if where >= 0 else
                       f"| {opponent} | {len(chosen)} | {' | '.join(cells)} | – | – |")  # fmt: skip
    print("\n".join(out))
    return out


def summary(rows: list[Kept], least: int = 100) -> None:
    """One line a rival and topic: the worst tenth of `least` hints or more, before and now,
    and how far the worst tenth of a chance that is exactly true would reach with the same
    hints (`noise_bound`): only a worst tenth beyond it says the chance is off."""
    print(f"\n| rival | topic | worst before | worst now | cells (≥{least}) | chance alone (95%) |")
    print("|---|---|---|---|---|---|")
    beyond = []
    for rival in [*dict.fromkeys(str(r["rival"]) for r in rows)]:
        for topic in ("hand", "refusal", "envido"):
            chosen = [r for r in rows if r["rival"] == rival and r["topic"] == topic]
            (wb, tb), (wn, tn) = (worst_tenth(chosen, key, least) for key in ("was", "stated"))
            cells = sum(
                1 for t in range(10)
                if sum(1 for r in chosen if min(int(float(r["stated"]) * 10), 9) == t) >= least
            )  # fmt: skip
            if not cells:  # (no tenth of `least` hints: nothing to tell, either way)
                continue
            bound = noise_bound(chosen, "stated", least)
            off = abs(wn) > bound
            if off:
                beyond.append(f"{rival} ({topic})")

            def where(t: int) -> str:
                return f"{t * 10}–{t * 10 + 10}%" if t >= 0 else "-"

            print(f"| {rival} | {topic} | {wb:+.1f} ({where(tb)}) | {wn:+.1f} ({where(tn)})"
                  f"{' **off**' if off else ''} | {cells} | {bound:.1f} |")  # fmt: skip
    print(f"\nbeyond what chance alone gives: {', '.join(beyond) or 'none'}")


def _newton(xs: list[tuple[float, ...]], ys: list[float], l2: float) -> list[float]:
    """Logistic regression by Newton's method, an L2 penalty on all but the intercept."""
    k = len(xs[0])
    w = [0.0] * k
    w[1] = 1.0
    for _ in range(40):
        grad = [l2 * w[j] if j else 0.0 for j in range(k)]
        hess = [[(l2 if i == j and i else 0.0) for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys, strict=True):
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-min(max(z, -30.0), 30.0)))
            g, h = p - y, p * (1 - p)
            for i in range(k):
                grad[i] += g * x[i]
                hi = h * x[i]
                row = hess[i]
                for j in range(i, k):
                    row[j] += hi * x[j]
        for i in range(k):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(v) for v in step) < 1e-7:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[pivot] = m[pivot], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    return [m[i][n] / m[i][i] if abs(m[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def fit(
    paths: list[str], on: list[str], l2: float = 5.0, topics: tuple[str, ...] = TOPICS
) -> dict[str, tuple[float, ...]]:
    """Fit `hints.RECKONING` on the kept rows of the rivals `on` (rows that carry the table's
    counts and the belief's further habits), and the strangers' range from them; print the
    constants to paste into hints.py (of `topics`; the strangers' shifts are fitted with the
    hand's model as hints.py has it). Check them with `--check FILES --held RIVALS` on the
    rivals not fitted on."""
    rows = [r for r in load_rows(paths) if r.get("more") is not None and r["rival"] in on]
    print(f"fitted on {len(rows)} hints of {', '.join(on)}")
    print("RECKONING: dict[str, tuple[float, ...]] = {")
    out: dict[str, tuple[float, ...]] = {}
    for topic in topics:
        chosen = [r for r in rows if r["topic"] == topic]
        xs = [hints.reads(topic, float(r["raw"]), hints.rates_of(known_of_row(r)),
                          float(r["edge"]), moment_of_row(r)) for r in chosen]  # fmt: skip
        w = _newton(xs, [float(r["won"]) for r in chosen], l2)
        out[topic] = tuple(w)
        print(f'    "{topic}": ({", ".join(f"{v:.3f}" for v in w)}),  # {len(chosen)} hints')
    print("}")
    # The strangers' range: each rival's shift (logit) of the hand's chance in its first hands
    saved = dict(hints.RECKONING)
    hints.RECKONING.update(out)
    shifts = []
    for rival in on:
        early = [r for r in rows if r["rival"] == rival and r["topic"] != "envido"
                 and int(r["hands"]) < hints.KNOWN_HANDS
                 and float(r["settled"]) < hints.KNOWN_SETTLED]  # fmt: skip
        if not early:
            continue
        zs = [hints.reckoned(str(r["topic"]), float(r["raw"]), hints.rates_of(known_of_row(r)),
                             float(r["edge"]), moment_of_row(r)) for r in early]  # fmt: skip
        shift, error = _shift(zs, [float(r["won"]) for r in early])
        shifts.append((shift - error, shift + error))
        print(f"    {rival}: shift {shift:+.3f} ± {error:.3f} over {len(early)} hints of its first "
              "hands")  # fmt: skip
    hints.RECKONING.update(saved)
    print("STRANGERS: tuple[tuple[float, float], ...] = (")
    for (low, high), rival in zip(shifts, on, strict=False):
        print(f"    ({low:.3f}, {high:.3f}),  # {rival}")
    print(")")
    return out


def _shift(zs: list[float], ys: list[float]) -> tuple[float, float]:
    """The logit shift d that best fits ys ~ sigmoid(z + d), by Newton's method, and its
    standard error (a rival's few first hands are noisy: the range covers that too)."""
    d, hess = 0.0, 1.0
    for _ in range(30):
        ps = [1 / (1 + math.exp(-min(max(z + d, -30.0), 30.0))) for z in zs]
        grad = sum(p - y for p, y in zip(ps, ys, strict=True))
        hess = max(sum(p * (1 - p) for p in ps), 1e-9)
        d -= grad / hess
        if abs(grad / hess) < 1e-9:
            break
    return d, 1 / math.sqrt(hess)


def ranged(rows: list[Row]) -> None:
    """The hints told as a range (rivals not known yet), by rival: the range on average, and
    what happened; and how often what happened was inside the range, tenth by tenth of it."""
    told = [r for r in rows if r.get("low") is not None and r["topic"] != "envido"]
    if not told:
        return
    print("\n| rival | hints told as a range | mean low | mean chance | mean high | happened |")
    print("|---|---|---|---|---|---|")
    for rival in dict.fromkeys(str(r["rival"]) for r in told):
        cell = [r for r in told if r["rival"] == rival]
        low, high = (sum(float(r[k]) for r in cell) / len(cell) for k in ("low", "high"))  # type: ignore[arg-type]
        said = sum(float(r["stated"]) for r in cell) / len(cell)  # type: ignore[arg-type]
        mean, half = clustered(cell)
        print(f"| {rival} | {len(cell)} | {low:.1%} | {said:.1%} | {high:.1%} | "
              f"{mean:.1%} ± {half:.1%} |")  # fmt: skip


def side0_decisions(
    tables: Sequence[int], deal_tag: str, tag: str
) -> Iterator[tuple[MatchState, Observation, str]]:
    """Matches of difícil (side 0) against normal, one a number of players in `tables`, dealt
    from `deal_tag`: each decision of side 0 with a choice, as (the state, its observation,
    its seed), the others played here. The caller applies side 0's move before asking the
    next one."""
    for index, players in enumerate(tables):
        state = new_match(CONFIGS[players])
        while not state.is_over:
            if state.needs_deal:
                deal = random.Random(f"{deal_tag}:{index}:{state.hand_number + 1}")
                state.apply(random_deal(deal, players))
                continue
            seat = state.legal_actions()[0].seat
            obs = observe(state, seat)
            seed = f"{tag}:{index}:{state.step}"
            if side_of(seat) != 0 or len(obs.actions) == 1:
                state.apply(decide(obs, "normal" if side_of(seat) else "dificil", seed))
                continue
            yield state, obs, seed


def hint_times(matches: int, seed: int) -> None:
    """On one core, with the clock: at every decision of side 0 (difícil) the time of its
    move alone and of the whole hint (the move and its chance), 1v1 and 2v2 against normal;
    wall time, and the CPU time of this process (what the decision costs, however busy the
    machine: other processes' turns on the core are not counted)."""
    moves: list[float] = []
    whole: list[float] = []
    moves_cpu: list[float] = []
    whole_cpu: list[float] = []
    tables = [2 if index % 2 == 0 else 4 for index in range(matches)]
    for state, obs, tag in side0_decisions(tables, f"ht{seed}", str(seed)):
        started, cpu = time.perf_counter(), time.process_time()
        action = decide(obs, "dificil", tag)
        moves.append(time.perf_counter() - started)
        moves_cpu.append(time.process_time() - cpu)
        started, cpu = time.perf_counter(), time.process_time()
        hints.advise(obs, tag)
        whole.append(time.perf_counter() - started)
        whole_cpu.append(time.process_time() - cpu)
        state.apply(action)
    for name, t in (
        ("difícil's move (wall)", moves), ("difícil's move (CPU)", moves_cpu),
        ("a whole hint (wall)", whole), ("a whole hint (CPU)", whole_cpu),
    ):  # fmt: skip
        t = sorted(t)
        p50, p99 = t[len(t) // 2], t[min(len(t) - 1, int(len(t) * 0.99))]
        print(f"{name}: {len(t)} decisions, p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
              f"max {t[-1] * 1000:.1f} ms")  # fmt: skip


# -- memory: does remembering a rival across matches pay? --------------------------------------
def memory_series(args: tuple[str, int, int, bool]) -> list[tuple[int, int]]:
    """A series of matches of difícil against one scripted style, on the series' deals: with
    `remember`, each match starts from what the last one taught (as the bot keeps it per person
    and group); otherwise each starts from nothing. Returns (won, points for − against) a match."""
    style, seed, length, remember = args
    prior: personas.Belief | None = None
    out = []
    for index in range(length):
        names = ("dificil", style) if index % 2 == 0 else (style, "dificil")
        me = names.index("dificil")
        state = new_match(CONFIG)
        while not state.is_over:
            if state.needs_deal:
                deal = random.Random(f"mem{seed}:{index}:{state.hand_number + 1}")
                state.apply(random_deal(deal, 2))
                continue
            seat = state.legal_actions()[0].seat
            obs = observe(state, seat)
            tag = f"{seed}:{index}:{state.step}"
            if seat == me:
                priors = {1 - me: prior} if prior is not None else None
                state.apply(decide(obs, "dificil", tag, priors=priors))
            else:
                state.apply(STYLES[style](obs, random.Random(tag)))
        if remember:  # what the table saw of the rival: the public record of every hand
            learned = personas.learn(CONFIG, 1 - me, observe(state, None).past, prior)
            prior = personas.remembered(learned)
        out.append((int(state.winner == me), state.scores[me] - state.scores[1 - me]))
    return out


def memory(styles: list[str], series: int, length: int, jobs: int, seed: int) -> None:
    """For each style, `series` series of `length` matches with and without memory, on the
    same deals; the gain of memory (matches won, points a match) over the matches after the
    first of each series (the first is the same for both), paired by series."""
    print("| style | matches | won, no memory | won, memory | gain (won) | gain (points a match) |")
    print("|---|---|---|---|---|---|")
    with ProcessPoolExecutor(jobs) as pool:
        for style in styles:
            jobs_ = [(style, seed * 10_000 + i, length, r) for r in (False, True)
                     for i in range(series)]  # fmt: skip
            results = list(pool.map(memory_series, jobs_))
            cold, warm = results[:series], results[series:]
            won_gain = [sum(w[0] for w in b[1:]) / (length - 1) - sum(w[0] for w in a[1:])
                        / (length - 1) for a, b in zip(cold, warm, strict=True)]  # fmt: skip
            pts_gain = [sum(w[1] for w in b[1:]) / (length - 1) - sum(w[1] for w in a[1:])
                        / (length - 1) for a, b in zip(cold, warm, strict=True)]  # fmt: skip
            c = sum(w[0] for a in cold for w in a[1:]) / (series * (length - 1))
            w_ = sum(w[0] for a in warm for w in a[1:]) / (series * (length - 1))
            gm, gh = interval(won_gain)
            pm, ph = interval(pts_gain)
            print(f"| {style} | {series * (length - 1)} + {series * (length - 1)} | {c:.1%} | "
                  f"{w_:.1%} | {gm * 100:+.1f} ± {gh * 100:.1f} | {pm:+.2f} ± {ph:.2f} |",
                  flush=True)  # fmt: skip


def characters(run: Runner, levels: list[str], round_robin: bool) -> None:
    """Each level (plain) against itself with each character, on the same deal sequences:
    what a character costs or gains its level; with `round_robin`, each character of a level
    against each other one."""
    rows = []
    for level in levels:
        for character in CHARACTERS:
            mean, half = interval(list(run.pair(level, f"{level}~{character}").values()))
            rows.append((level, f"{level}~{character}", mean, half))
        if round_robin:
            for a, b in itertools.combinations(CHARACTERS, 2):
                mean, half = interval(list(run.pair(f"{level}~{a}", f"{level}~{b}").values()))
                rows.append((f"{level}~{a}", f"{level}~{b}", mean, half))
    print()
    print("| player | against | matches | player wins | 95% CI |")
    print("|---|---|---|---|---|")
    for a, b, mean, half in rows:
        print(f"| {a} | {b} | {run.seeds and len(run.seeds) * 2} | {mean:.1%} | "
              f"{mean - half:.1%} – {mean + half:.1%} |")  # fmt: skip


def hand_points(hands: int) -> None:
    """Normal vs normal: how many points each hand gives each side, as a frequency table."""
    counts: Counter[tuple[int, int]] = Counter()
    seed = 0
    done = 0
    while done < hands:
        seed += 1
        state = new_match(CONFIG)
        while not state.is_over and done < hands:
            if state.needs_deal:
                start = tuple(state.scores)
                state.apply(random_deal(random.Random(f"hp{seed}:{state.hand_number}"), 2))
                mano = state.hand.mano if state.hand else 0
                while state.phase.value == "play":
                    seat = state.legal_actions()[0].seat
                    state.apply(decide(observe(state, seat), Level.NORMAL, f"{seed}:{state.step}"))
                got = (state.scores[mano] - start[mano], state.scores[1 - mano] - start[1 - mano])
                if not state.is_over:
                    counts[(max(got), min(got))] += 1
                    done += 1
    total = sum(counts.values())
    print("HAND_POINTS = (  # (more, fewer, frequency)")
    for (more, fewer), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        if n / total >= 0.002:
            print(f"    ({more}, {fewer}, {n / total:.3f}),")
    print(")")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2000, help="matches per pairing")
    parser.add_argument("--pairs", default=DEFAULT_PAIRS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hand-points", type=int, default=0)
    parser.add_argument(
        "--habits", default="", help="a:b,... the habits the table keeps of b against a (--matches)"
    )
    parser.add_argument(
        "--tells", default="", help="a:b,... what bot/ai/tells.py learns of b against a (--matches)"
    )
    parser.add_argument("--gauntlet", action="store_true", help="levels against every style")
    parser.add_argument("--levels", default=",".join(GAUNTLET_LEVELS))
    parser.add_argument(
        "--opponents",
        default="",
        help="--gauntlet's opponents; --calibration's rivals (all: "
        "every style of the gauntlet, normal and difícil)",
    )
    parser.add_argument(
        "--no-clock",
        action="store_true",
        help="difícil imagines all its worlds, and --calibration's hints all theirs (results "
        "that do not depend on how busy the machine is; decision times are then not the bot's)",
    )
    parser.add_argument(
        "--tune", default="", help="set constants of bot.ai.search for a trial: NAME=VALUE,..."
    )
    parser.add_argument(
        "--teams", default="", help="2v2 or 3v3 pairings, as a+b:c+d or a+b+c:d+e+f,..."
    )
    parser.add_argument("--calibration", type=int, default=0, help="matches of hints followed")
    parser.add_argument("--topic", default="", help="calibration of one topic: envido or hand")
    parser.add_argument("--rivals", default="", help="calibration: each rival apart, a,b,...")
    parser.add_argument("--rows", default="", help="calibration: keep its rows (JSON lines)")
    parser.add_argument("--check", default="", help="calibration rows files to report: a,b")
    parser.add_argument(
        "--tables",
        default="",
        help="calibration rows files: the table per opponent and topic, "
        "by tenth, with what chance alone gives beside each",
    )
    parser.add_argument("--held", default="", help="--check: rivals held out of the fit, a,b")
    parser.add_argument("--fit", default="", help="calibration rows files to fit RECKONING on")
    parser.add_argument("--fit-on", default="", help="--fit: the rivals to fit on, a,b,...")
    parser.add_argument("--fit-topics", default=",".join(TOPICS), help="--fit: hand,refusal,envido")
    parser.add_argument(
        "--memory", default="", help="styles: series with and without memory (--series, --length)"
    )
    parser.add_argument("--hint-times", type=int, default=0, help="matches: hint and move times")
    parser.add_argument("--save", default="", help="--gauntlet: keep its scores (JSON)")
    parser.add_argument(
        "--paired",
        default="",
        help="two --save files, before,after (a+b: several seeds): the paired differences",
    )
    parser.add_argument("--series", type=int, default=40)
    parser.add_argument("--length", type=int, default=4)
    parser.add_argument(
        "--characters", action="store_true", help="each level against itself with a character"
    )
    parser.add_argument(
        "--round-robin",
        action="store_true",
        help="with --characters: the characters of a level against each other too",
    )
    args = parser.parse_args()
    if args.paired:
        paired(*args.paired.split(","))
        return
    if args.fit:
        fit(args.fit.split(","), args.fit_on.split(","), topics=tuple(args.fit_topics.split(",")))
        return
    if args.tables:
        bound_tables(load_rows(args.tables.split(",")))
        return
    if args.check:
        held = set(args.held.split(",")) if args.held else None
        calibration_check(args.check.split(","), held)
        return
    if args.calibration:
        named = args.rivals or args.opponents
        rivals = [*STYLES, *RIVAL_LEVELS] if named == "all" else named.split(",") if named else None
        calibration(args.calibration, args.jobs, args.seed, args.topic, rivals, args.rows,
                    not args.no_clock)  # fmt: skip
        return
    if args.hint_times:
        hint_times(args.hint_times, args.seed)
        return
    if args.memory:
        memory(args.memory.split(","), args.series, args.length, args.jobs, args.seed)
        return
    if args.characters:
        with ProcessPoolExecutor(args.jobs) as pool:
            run = Runner(pool, args.jobs, args.matches, args.seed, not args.no_clock, args.tune)
            characters(run, args.levels.split(","), args.round_robin)
            run.print_times()
            run.print_points()
        return
    if args.hand_points:
        hand_points(args.hand_points)
        return
    if args.tells:
        for pair in args.tells.split(","):
            tells_of(*pair.split(":"), args.matches)
        return
    if args.habits:
        for pair in args.habits.split(","):
            habits(*pair.split(":"), args.matches)
        return
    with ProcessPoolExecutor(args.jobs) as pool:
        run = Runner(pool, args.jobs, args.matches, args.seed, not args.no_clock, args.tune)
        if args.gauntlet:
            gauntlet(
                run,
                args.levels.split(","),
                (args.opponents or ",".join(OPPONENTS)).split(","),
                args.save,
            )
        else:
            pairs = args.teams or args.pairs
            rows = []
            for pair in pairs.split(","):
                a, b = pair.split(":")
                mean, half = interval(list(run.pair(a, b).values()))
                rows.append((a, b, args.matches // 2 * 2, mean, half))
            print()
            print("| pairing | matches | first side wins | 95% CI |")
            print("|---|---|---|---|")
            for a, b, n, mean, half in rows:
                print(f"| {a} vs {b} | {n:,} | {mean:.1%} | {mean - half:.1%} – "
                      f"{mean + half:.1%} |")  # fmt: skip
        run.print_times()
        run.print_points()


if __name__ == "__main__":
    main()
