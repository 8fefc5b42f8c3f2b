"""difícil: it imagines the hidden cards and plays each option out.

1. **Worlds.** It deals the cards it has not seen to the other seats, many times, keeping only
   deals consistent with everything public: the cards played, the flores declared (and the
   ones that were not, by F6), the envido and flor values announced, and its partner's señas.
   Each deal is replayed through this hand's public action log on the real engine, so a deal
   the rules could not have produced is thrown away. Chants are evidence too: a rival who
   chanted envido or wanted a truco more likely holds the cards for it, so each world is
   weighted by how likely the rivals' chants and answers were with its cards.
2. **Playouts.** In every world it tries each of its legal actions and plays the hand out
   (each seat seeing only its own cards), the same worlds and the same random numbers for every
   option: each rival as the normal player bent by what the table has seen of that rival
   (`bot.ai.rivals`), its own side as the normal player betting against that model (it wants,
   bluffs and believes as this rival answers, not as a stranger would).
3. **Choice.** That same player's choice, unless another option has a better weighted average
   chance of winning the match (from the score at the end of the hand) by more than the noise.
   Only two questions are searched (`_questions`): whether to chant where that player would
   play a card, and how to answer a truco; its cards and its other answers are that player's.
   What a score is worth depends on who is the better player: difícil takes itself for the
   favourite (a hand goes its way 60% of the time) until the points of the match say
   otherwise (`edge_of`), so it does not stake a match it should win on one envido.

It only reads its `Observation`: hidden cards are never looked at, they are imagined.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.ai import personas
from bot.ai.characters import bend
from bot.ai.estimate import equity, unseen
from bot.ai.personas import Belief, Persona
from bot.ai.rivals import NORMAL_ENVIDO_WANTED, Rival
from bot.ai.rules import envido_chant_gains, play_facil, play_normal
from bot.ai.signs import all_consistent
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind, Deal
from bot.game.cards import Card, envido_value, flor_value
from bot.game.errors import IllegalActionError
from bot.game.events import HandEnded
from bot.game.habits import Habits
from bot.game.observation import Observation, observe
from bot.game.scoring import falta
from bot.game.seats import seats
from bot.game.state import MatchState, Pending, Phase, side_of

K = ActionKind

WORLDS = 40  # deals imagined per decision: its budget is this work, whatever the machine
# seconds: a safety only (no world is started that would end after this, by the average so
# far): the worlds take about 25 ms of CPU at the median, 85 ms at p99 (docs/performance.md),
# so a machine must be several times slower than this one before a move depends on it
CAP = 0.5
MAX_TRIES = 30  # draws per world before the sampler gives up
RIVAL_NOISE = 0.15  # how often a rival's move in a playout is any legal move
PERSONA_NOISE = 0.0  # the same for a rival played as a persona (who trembles on its own)
SIGNIFICANCE = 3.0  # standard errors an option must beat its baseline's choice by
ALL_IN_POINTS = 6  # a falta worth more than this is an all-in (see _all_in_options)
NORMAL = Rival()  # a rival the table knows nothing of: the normal player
READ_RIVALS = True  # fit a model to each rival (False: every rival is the normal player)
ADAPT = True  # its own side plays the normal player that bets as the rivals answer
EDGE = 0.6  # the chance it gives a hand to go its way before the match has said anything
EDGE_PRIOR = 20.0  # how many points of play that is worth (0: EDGE throughout)
EDGE_CAP = 0.7  # the most it reads of it
FOCUSED = True  # the search weighs only the decisions it was measured to help (`_questions`)
CALLED = 0.35  # how often a rival who would fold wants a falta envido or a contraflor al resto
CHANT_CHOICE = True  # at its turn, where the baseline would chant, the search weighs every option
PERSONAS = True  # rivals as the kind of player the match showed (`bot.ai.personas`)


def _all_in(state: MatchState) -> bool:
    """A chant that can decide the match waits for an answer (falta, contraflor al resto)."""
    h = state.hand
    if h is None:
        return False
    if h.flor_pending:
        return h.flor_chain[-1] is K.CONTRAFLOR_AL_RESTO
    return h.envido_pending and h.envido_chain[-1] is K.FALTA_ENVIDO


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def _strength(cards: Sequence[Card]) -> int:
    best = sorted((c.strength for c in cards), reverse=True)
    return best[0] + best[1] if len(best) > 1 else best[0]


@dataclass(frozen=True, slots=True)
class Machine:
    """A rival seat that is one of our own computer players, and which: its level (`Level`'s
    value) and its character, if any. A chance reckoned against it plays it in the playouts
    as it plays (no stray move, no persona): its moves are known, only its cards are not."""

    level: str
    character: str | None = None

    def play(self, obs: Observation, rng: random.Random) -> Action:
        """Its move at `obs` (difícil's search is too dear inside a playout: the sound player
        it is built on plays for it)."""
        chosen = play_facil(obs, rng) if self.level == "facil" else play_normal(obs, rng)
        return bend(self.character, chosen, obs, rng) if self.character else chosen


class Sampler:
    """Deals of the hidden cards consistent with one observation, with their weights."""

    def __init__(
        self,
        obs: Observation,
        signs: Collection[str],
        rng: random.Random,
        rivals: dict[int, Rival] | None = None,
        priors: dict[int, Belief] | None = None,
        machines: Mapping[int, Machine] | None = None,
    ) -> None:
        assert obs.seat is not None
        self.obs = obs
        self.rng = rng
        self.players = obs.config.players
        # What each rival move of the history said, by its place, the mover's cards and what
        # every seat could do then (a partner's flor, hidden from the mover, changes what the
        # mover may do): a world that deals a rival cards another world dealt it replays the
        # same view of the rival
        self.said: dict[tuple[object, ...], personas.Seen | None] = {}
        self.pool = unseen(obs)
        played: list[list[Card]] = [[] for _ in range(self.players)]
        for round_cards in obs.rounds:
            for seat, played_card in round_cards:
                played[seat].append(played_card)
        self.played = played
        self.others = [s for s in range(self.players) if s != obs.seat]
        self.rivals = rivals_of(obs, priors) if rivals is None else rivals
        side = side_of(obs.seat)
        self.beliefs: dict[int, Belief] = (
            {
                s: personas.belief_of(obs, s, (priors or {}).get(s))
                for s in self.others
                if side_of(s) != side and s not in (machines or {})
            }
            if PERSONAS
            else {}
        )
        self.personas: dict[int, Persona] = {}  # the last world's rivals
        announced = dict(obs.announced)
        below = {seat: (value, ties) for seat, value, ties in obs.son_buenas}
        partners = seats(self.players).partners(obs.seat)
        self.options: dict[int, Sequence[tuple[Card, ...]]] = {}
        for seat in self.others:
            wanted_signs = list(signs) if seat in partners else []
            if seat in announced or seat in below or obs.flor_declared[seat] or wanted_signs:
                self.options[seat] = self._enumerate(
                    seat, announced.get(seat), obs.flor_declared[seat], wanted_signs,
                    below.get(seat),
                )  # fmt: skip

    def _enumerate(
        self,
        seat: int,
        value: int | None,
        flor: bool,
        signs: list[str],
        below: tuple[int, bool] | None = None,
    ) -> Sequence[tuple[Card, ...]]:
        return _hands(
            tuple(self.pool), tuple(self.played[seat]), self.obs.cards_left[seat], value, flor,
            tuple(signs), below,
        )  # fmt: skip

    def draw(self) -> tuple[tuple[Card, ...], ...] | None:
        """One deal (seat 0 first) of the whole hand, or None if the draw clashed."""
        obs = self.obs
        assert obs.seat is not None
        hands: list[tuple[Card, ...] | None] = [None] * self.players
        hands[obs.seat] = obs.dealt
        used: set[Card] = set()
        for seat, options in self.options.items():
            if not options:
                return None
            hidden = self.rng.choice(options)
            if used.intersection(hidden):
                return None
            used.update(hidden)
            hands[seat] = (*self.played[seat], *hidden)
        rest = [c for c in self.pool if c not in used]
        self.rng.shuffle(rest)
        for seat in self.others:
            if hands[seat] is None:
                count = obs.cards_left[seat]
                hands[seat] = (*self.played[seat], *rest[:count])
                rest = rest[count:]
        return tuple(h for h in hands if h is not None)

    def world(self) -> tuple[MatchState, float] | None:
        """A state of the whole table consistent with the observation, and its weight."""
        for _ in range(MAX_TRIES):
            hands = self.draw()
            if hands is None:
                continue
            built = self._replay(hands)
            if built is not None:
                return built
        return None

    def _replay(self, hands: tuple[tuple[Card, ...], ...]) -> tuple[MatchState, float] | None:
        obs = self.obs
        state = MatchState(obs.config)
        state.scores = list(obs.start_scores)
        state.hand_number = obs.hand_number - 1
        state.dealer = (obs.dealer - 1) % self.players if obs.hand_number > 1 else obs.dealer
        weight = 1.0
        taken: dict[int, list[personas.Seen]] = {s: [] for s in self.beliefs}
        try:
            state.deal_as(Deal(hands), obs.duel)  # (a pica-pica duel is dealt as that duel)
            for place, action in enumerate(obs.history):
                h = state.hand
                assert h is not None
                if action.seat in taken:
                    key = (place, hands[action.seat], tuple(state.legal_actions()))
                    if key in self.said:
                        said = self.said[key]
                    else:
                        said = self.said[key] = _seen(observe(state, action.seat), action)
                    if said is not None:
                        taken[action.seat].append(said)
                elif side_of(action.seat) != side_of(obs.seat or 0):
                    rival = self.rivals.get(action.seat, NORMAL)
                    weight *= _likelihood(action, h.pending(), hands[action.seat], rival)
                state.apply(action)
        except IllegalActionError:
            return None
        h = state.hand
        if (
            h is None
            or tuple(h.announced) != obs.announced
            or tuple(h.son_buenas) != obs.son_buenas
            or state.step < 0
        ):
            return None
        if (state.scores[0], state.scores[1]) != obs.scores or state.phase is not obs.phase:
            return None
        seat = obs.seat
        if tuple(a for a in state.legal_actions() if a.seat == seat) != obs.actions:
            return None  # e.g. a flor someone must declare first: the seat could tell
        state.habits = obs.habits  # what the table has seen over the match, as it is now
        state.past = obs.past
        self.personas = {}
        for seat, moves in taken.items():
            fit, persona = personas.draw_given(self.beliefs[seat], moves, self.rng)
            weight *= fit
            if persona is not None:  # else the sound player, bent by its habits
                self.personas[seat] = persona
        return state, weight


@functools.lru_cache(maxsize=32)  # (a few thousand hands each at most)
def _hands(
    pool: tuple[Card, ...],
    known: tuple[Card, ...],
    count: int,
    value: int | None,
    flor: bool,
    signs: tuple[str, ...],
    below: tuple[int, bool] | None,
) -> tuple[tuple[Card, ...], ...]:
    """The hidden cards a seat may hold (`count` of `pool`, beside the `known` it played):
    its flor, its envido or flor `value` said, "son buenas" over `below`, its `signs` (a
    partner's señas). Kept: every decision of a hand in 2v2 asks it again for the partner's
    señas, over thousands of hands, and a hand's worlds draw from the same answer."""
    keep = []
    for hidden in itertools.combinations(pool, count):
        dealt = (*known, *hidden)
        if flor and not (dealt[0].suit == dealt[1].suit == dealt[2].suit):
            continue
        if value is not None or below is not None:
            worth = flor_value(dealt) if flor else envido_value(dealt)
            if value is not None and worth != value:
                continue
            if below is not None and not (
                worth < below[0] or (worth == below[0] and below[1])
            ):  # R19: "son buenas" said over below[0]
                continue
        if signs and not all_consistent(signs, dealt):
            continue
        keep.append(hidden)
    return tuple(keep)


# What a rival's move said of them (`personas.seen`, a pure function of the rival's view and
# the move), kept for the worlds that follow: the worlds of a decision, and of the decisions
# after it in the hand, deal a rival the same cards again and again, and each call plays the
# sound player's move (how often it repeats: docs/performance.md).
_seen = functools.lru_cache(maxsize=4096)(personas.seen)


def _likelihood(
    action: Action, pending: Pending | None, dealt: Sequence[Card], rival: Rival = NORMAL
) -> float:
    """How likely a rival's chant or answer was with these cards: a mild, bluff-tolerant
    model of how people play, flattened for a rival whose chants have said little (one who
    chants or wants more often than normal, or whose chants of that kind were shown weak more
    often: `Rival.says`)."""
    kind = action.kind
    if kind in ENVIDO_CHANTS or kind in TRUCO_CHANTS or kind in (K.QUIERO, K.NO_QUIERO):
        answering = pending if kind in (K.QUIERO, K.NO_QUIERO) else None
        says = rival.says(action, answering)
        if says < 1:
            return 1 - says + says * _evidence(action, pending, dealt)
    return _evidence(action, pending, dealt)


def _evidence(action: Action, pending: Pending | None, dealt: Sequence[Card]) -> float:
    kind = action.kind
    if kind in ENVIDO_CHANTS or (kind is K.QUIERO and pending is Pending.ENVIDO):
        return 0.15 + 0.85 * _sigmoid((envido_value(dealt) - 25) / 2.5)
    if kind is K.NO_QUIERO and pending is Pending.ENVIDO:
        return 0.15 + 0.85 * _sigmoid((25 - envido_value(dealt)) / 2.5)
    if kind in TRUCO_CHANTS or (kind is K.QUIERO and pending is Pending.TRUCO):
        return 0.2 + 0.8 * _sigmoid((_strength(dealt) - 19) / 3)
    if kind is K.NO_QUIERO and pending is Pending.TRUCO:
        return 0.2 + 0.8 * _sigmoid((19 - _strength(dealt)) / 3)
    return 1.0


def _unique(actions: Sequence[Action]) -> list[Action]:
    seen: set[Action] = set()
    out = []
    for a in actions:
        if a not in seen:
            seen.add(a)
            out.append(a)
    return out


def rivals_of(obs: Observation, priors: Mapping[int, Belief] | None = None) -> dict[int, Rival]:
    """The model of each rival of this seat, from what the table has seen of them (this
    match's counts and the chants its hands showed), and from what was remembered of them
    (`priors`, by seat)."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    if not READ_RIVALS:
        return {}
    hands = max(obs.hand_number - 1, 0)  # hands played to their end before this one
    found = {}
    for s in range(obs.config.players):
        if side_of(s) == side:
            continue
        prior = (priors or {}).get(s)
        tells = personas.belief_of(obs, s, prior).tells if obs.past or prior else None
        memory = prior.tells if prior is not None else None
        habits = obs.habits[s] if obs.habits else Habits()
        found[s] = Rival.read(habits, hands, tells, memory) if obs.habits or tells else NORMAL
    return found


def edge_of(obs: Observation) -> float:
    """The chance a hand goes this seat's side's way, as the points of the hands played so
    far say, starting from EDGE worth EDGE_PRIOR points: a side that outplays its rival
    should not gamble (a falta envido at 0–0 is a coin toss for a match it would win), one
    that is outplayed should (`bot.ai.estimate.equity`)."""
    if EDGE_PRIOR <= 0:
        return EDGE
    assert obs.seat is not None
    side = side_of(obs.seat)
    mine, theirs = obs.start_scores[side], obs.start_scores[1 - side]
    edge = (mine + EDGE_PRIOR * EDGE) / (mine + theirs + EDGE_PRIOR)
    return min(max(edge, 1 - EDGE_CAP), EDGE_CAP)


def facing(rivals: dict[int, Rival]) -> Rival | None:
    """One model of the side a seat plays against (for `play_normal`), or None."""
    if not ADAPT or not rivals:
        return None
    return Rival.merge(list(rivals.values()))


def playout(
    state: MatchState,
    seat: int,
    rng: random.Random,
    rivals: dict[int, Rival] | None = None,
    against: Rival | None = None,
    edge: float = 0.5,
    who_is: dict[int, Persona] | None = None,
    ended: list[int | None] | None = None,
    machines: Mapping[int, Machine] | None = None,
) -> float:
    """Play the hand out; `seat`'s chance to win the match then (and, into `ended`, the side
    that won the hand: a hint's chance). Its side plays like the
    normal player betting against `against` (the rivals' side, `facing`); each rival like the
    normal player bent by its model (`rivals`), and now and then any legal move
    (RIVAL_NOISE): people do, and a plan that only works against a rival who always answers
    well (a falta envido bluffed at 0-0) is a bad plan; a rival that is one of our own
    computer players (`machines`) as it plays. The score
    at the end is worth what it is to a side whose hands go its way with chance `edge`."""
    side = side_of(seat)
    hand = state.hand_number
    rivals = rivals or {}
    while state.phase is Phase.PLAY and state.hand_number == hand:
        acting = state.legal_actions()
        who = acting[0].seat
        rival = side_of(who) != side
        machine = machines.get(who) if machines and rival else None
        persona = who_is.get(who) if who_is else None
        noise = PERSONA_NOISE if persona is not None else RIVAL_NOISE
        if machine is not None:  # (one of ours: as it plays, and nothing else)
            chosen = machine.play(observe(state, who), rng)
        elif rival and rng.random() < noise:
            chosen = rng.choice([a for a in acting if a.seat == who])
        else:
            obs = observe(state, who)
            if persona is not None:
                chosen = personas.act(persona, obs, rng)
            elif not rival:  # its side bets against the rivals as the favourite it may be
                chosen = play_normal(obs, rng, (), against, edge)
            else:  # the rivals play as equals
                chosen = play_normal(obs, rng)
                model = rivals.get(who)
                if model is not None:
                    chosen = model.stray(chosen, obs.actions, obs.pending, obs.cards, rng)
                if chosen.kind is not K.QUIERO and _all_in(state) and rng.random() < CALLED:
                    chosen = next((a for a in acting if a.seat == who and a.kind is K.QUIERO),
                                  chosen)  # fmt: skip
        events = state.apply(chosen)
        if ended is not None and not ended:
            ended.extend(e.winner for e in events if isinstance(e, HandEnded))
    if state.phase is Phase.OVER:
        return 1.0 if state.winner == side else 0.0
    return equity(state.scores[side], state.scores[1 - side], state.config.target, edge)


def play_dificil(
    obs: Observation,
    rng: random.Random,
    signs: Collection[str] = (),
    worlds: int = WORLDS,
    budget: float | None = None,
    priors: dict[int, Belief] | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Action:
    """difícil's move: `worlds` deals imagined, the same on any machine (the same seed plays
    the same move); `budget` (seconds, CAP by default) is only a safety that stops starting
    new worlds on a machine far slower than it was measured on (`clock` tells the time);
    `priors`, what it remembers of the rivals' seats from earlier matches."""
    budget = CAP if budget is None else budget
    options = _unique(obs.actions)
    if len(options) == 1:
        return options[0]
    if obs.seat is None:
        return play_normal(obs, rng, signs)
    started = clock()
    rivals = rivals_of(obs, priors)
    against = facing(rivals)
    edge = edge_of(obs)
    baseline = play_normal(obs, rng, signs, against, edge)
    if len(obs.history) == 0 and (obs.rounds or obs.calls):
        return baseline  # a hand saved before logs existed: by rules
    options = _questions(obs, options, baseline)
    options = _no_gifts(obs, signs, options, baseline, against, edge)
    # an all-in the baseline would not make is never taken (`_choose`): not played out either
    risky = _all_in_options(obs, options)
    options = [a for i, a in enumerate(options) if a == baseline or i not in risky]
    if len(options) == 1:
        return baseline
    sampler = Sampler(obs, signs, rng, rivals, priors)
    values: list[list[float]] = [[] for _ in options]
    weights: list[float] = []
    base = rng.getrandbits(32)
    for index in range(worlds):
        found = sampler.world()
        if found is None:
            break
        world, weight = found
        for i, option in enumerate(options):
            state = world.copy()
            state.apply(option)
            seed = random.Random(base + index)
            values[i].append(
                playout(state, obs.seat, seed, sampler.rivals, against, edge, sampler.personas)
            )
        weights.append(weight)
        spent = clock() - started
        if spent + 2 * spent / (index + 1) > budget:  # one more world might overrun it
            break
    if not weights:
        return baseline
    risky = _all_in_options(obs, options)
    return options[_choose(options, values, weights, options.index(baseline), risky)]


def _questions(obs: Observation, options: list[Action], baseline: Action) -> list[Action]:
    """The options the playouts weigh against the baseline's choice: only where leaving the
    baseline was measured to win matches against players unlike normal. Whether to chant (a
    truco or an envido) where the baseline would play a card; what to do at its turn where the
    baseline would chant (another chant, or a card); and how to answer a truco. Elsewhere
    (which card, the answers to an envido) the search's departures won against normal and lost
    against everyone else: what a few dozen imagined worlds say there is mostly noise."""
    if not FOCUSED or obs.pending is Pending.TRUCO:
        return options
    if baseline.kind is not K.PLAY:
        return options if CHANT_CHOICE and obs.pending is None else [baseline]
    return [baseline, *(a for a in options if a.kind in TRUCO_CHANTS or a.kind in ENVIDO_CHANTS)]


def _no_gifts(
    obs: Observation,
    signs: Collection[str],
    options: list[Action],
    baseline: Action,
    against: Rival | None,
    edge: float,
) -> list[Action]:
    """Without the envido chants the baseline would not make that its reckoning against this
    rival calls a loss, when the rival wants (or raises) our envidos more often than a
    stranger. The playouts' rivals answer an envido as a persona or the sound player does,
    who want it less often than such a rival has been seen to: a bluff the playouts like is
    a gift to a caller (issue 74: difícil bluffed a caller its envidos, normal did not)."""
    if against is None or baseline.kind in ENVIDO_CHANTS:
        return options
    if not any(a.kind in ENVIDO_CHANTS for a in options):
        return options
    tells = against.tells
    if against.envido_wanted <= NORMAL_ENVIDO_WANTED and tells.raises_beyond() <= 0:
        return options
    gains = envido_chant_gains(obs, signs, against, edge)
    return [a for a in options if a.kind not in ENVIDO_CHANTS or gains.get(a.kind, 0.0) >= 0]


def _all_in_options(obs: Observation, options: list[Action]) -> set[int]:
    """Options that stake the match on one envido or flor comparison (chanting or wanting a
    falta envido or a contraflor al resto worth more than ALL_IN_POINTS). The playouts'
    rivals answer such chants like the normal player, who rarely wants them: real rivals do
    more often, so difícil takes these only when its baseline would."""
    resto = falta(obs.scores, obs.config.target)
    # (R46's falta a las malas may be small where R18's would be the match)
    envido = (
        obs.config.envido_falta(obs.scores, obs.duel is not None)
        if obs.config.falta_malas
        else resto
    )
    big = {K.FALTA_ENVIDO: envido > ALL_IN_POINTS, K.CONTRAFLOR_AL_RESTO: resto > ALL_IN_POINTS}
    answering = big.get(obs.pending_chant, False) if obs.pending_chant is not None else False
    return {
        i
        for i, a in enumerate(options)
        if big.get(a.kind, False) or (answering and a.kind is K.QUIERO)
    }


def _choose(
    options: list[Action],
    values: list[list[float]],
    weights: list[float],
    baseline: int,
    risky: set[int],
) -> int:
    """The option with the best weighted mean, if it beats the baseline's choice by more
    than the noise of the playouts (a paired difference over the same worlds, SIGNIFICANCE
    standard errors); otherwise the baseline's choice. A few worlds can make a wild
    option (a falta envido bluffed at 0-0) look best by luck: this keeps such luck out."""
    total = sum(weights)
    effective = total * total / sum(w * w for w in weights)
    best, best_gain = baseline, 0.0
    for i in range(len(options)):
        if i == baseline or i in risky:
            continue
        diffs = [a - b for a, b in zip(values[i], values[baseline], strict=True)]
        mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
        var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
        error = math.sqrt(var / max(effective - 1, 1))
        if mean > SIGNIFICANCE * error and mean > best_gain:
            best, best_gain = i, mean
    return best
