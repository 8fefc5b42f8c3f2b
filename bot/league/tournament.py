"""A group's tournament, as plain values and the rules that move it: sign-ups, seeds, the
bracket of an eliminación directa (byes to the best seeds), the rounds of a liguilla (everyone
against everyone), series of one match or the best of three, standings and their tie-breaks,
and who plays next. No I/O: the core's `Tournaments` service stores it and opens its tables.

Entries are numbered by seed once the tournament starts (entry 0 is seed 1). A fixture is one
tie between two entries (`a` and `b`), played as a series of matches; each match is a table of
its own, found again by its tag (`tag_of`), so that a result is counted once whoever reads it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, NamedTuple

from bot.game import MatchConfig
from bot.game.seats import SEAT_COUNTS, seats
from bot.league.bracket import Fixture as Fixture
from bot.league.bracket import Format as Format
from bot.league.bracket import Game as Game
from bot.league.bracket import Line as Line
from bot.league.formats import FORMATS as FORMATS
from bot.league.formats import KNOCKOUT_MOST as KNOCKOUT_MOST
from bot.league.formats import LEAGUE_MOST as LEAGUE_MOST
from bot.league.formats import RULES, Rules
from bot.league.formats import knockout as knockout
from bot.league.formats import round_robin as round_robin
from bot.league.formats import seed_positions as seed_positions


class Status(StrEnum):
    SIGNUP = "signup"  # the sign-up message is open
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


OPEN_STATUSES = (Status.SIGNUP, Status.RUNNING)


SERIES = (1, 3)  # one match, or the best of three
TIMERS = (60, 120, 300)  # seconds a move (a tournament always has a clock: it must end)
TARGETS = (15, 30)
SIGNUP_SECONDS = 30 * 60  # sign-ups close by themselves (the tournament starts, or is called
# off for want of entries)
START_WINDOW = 5 * 60  # a side none of whose players acted this long after its match started
# loses the tie by walkover


class Refusal(StrEnum):
    """Why a tournament cannot start (the service turns these into the core's refusals)."""

    TOO_FEW = "too_few"
    TOO_MANY = "too_many"
    TEAMS_UNEVEN = "teams_uneven"
    TEAM_MISFIT = "team_misfit"  # a team signed up together is larger than the mode's


@dataclass
class Tournament:
    id: int
    chat_id: int
    thread_id: int
    opener_id: int
    language: str
    created_at: float
    closes_at: float  # when the sign-ups close by themselves
    status: Status = Status.SIGNUP
    number: int = 0  # its number in its group, what its messages say (the first is 1; `id`
    # is what its buttons, links and tables carry)
    format: Format = Format.KNOCKOUT
    config: MatchConfig = field(default_factory=lambda: MatchConfig(target=15))
    series: int = 1
    turn_seconds: int = 60
    bots: bool = False  # a player who leaves may be replaced by a computer player
    signed: list[int] = field(default_factory=list)  # people, in the order they signed up
    teams: list[list[int]] = field(default_factory=list)  # who signed up together (2v2, 3v3):
    # each started by whoever asked for a partner (`invites`), completed by who took the link
    invites: dict[str, int] = field(default_factory=dict)  # a partner's link: token -> inviter
    entries: list[tuple[int, ...]] = field(default_factory=list)  # by seed, once started
    seeded: int = 0  # how many entries got their seed from the league (the rest: drawn)
    fixtures: list[Fixture] = field(default_factory=list)
    planned: int = 0  # the rounds asked for (a Swiss; 0: its own number)
    minutes: int = 0  # an arena's length (0: the shortest)
    paused: list[int] = field(default_factory=list)  # an arena's entries that asked not to be
    # paired for now
    champion: int | None = None  # the winning entry
    replaced: list[int] = field(default_factory=list)  # people who left: a computer player
    # plays in their place from then on (where `bots` allows it)
    broken: str | None = None  # a step of it raised (what): it waits, for its opener or an
    # admin to call it off, and nothing moves it on by itself
    starts_at: float | None = None  # set for later: it starts by itself at this time
    zone: str = ""  # the group's time zone when it was opened (its times are told in it)
    reminded: bool = False  # the people signed up were told it starts soon (once)
    version: int = 0
    updated_at: float = 0.0
    started_at: float | None = None
    ended_at: float | None = None

    # -- what it is --------------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def rules(self) -> Rules:
        """What its format decides (`bot.league.formats`)."""
        return RULES[self.format]

    @property
    def team_size(self) -> int:
        return seats(self.config.players).team_size

    @property
    def rounds(self) -> int:
        return 1 + max((f.round for f in self.fixtures), default=-1)

    def fixture(self, round_: int, slot: int) -> Fixture | None:
        for fixture in self.fixtures:
            if fixture.key == (round_, slot):
                return fixture
        return None

    def entry_of(self, user_id: int) -> int | None:
        for index, entry in enumerate(self.entries):
            if user_id in entry:
                return index
        return None

    def needed(self) -> int:
        """Matches a side must win to take a tie."""
        return self.series // 2 + 1

    # -- options -------------------------------------------------------------------------------
    def cycled(self, option: str) -> Tournament:
        """The tournament after a tap on an option of its sign-up message (its next value)."""
        if option == "format":
            return replace(self, format=_next(FORMATS, self.format))
        if option == "mode":  # the next mode every team signed up together fits in
            after = replace(self, config=self.config.cycled("players"))
            while misfit(after) is not None and after.config.players != self.config.players:
                after = replace(after, config=after.config.cycled("players"))
            return after
        if option == "target":
            target = _next(TARGETS, self.config.target)
            return replace(self, config=replace(self.config, target=target))
        if option == "flor":
            return replace(self, config=self.config.cycled("flor"))
        if option == "series":
            return replace(self, series=_next(SERIES, self.series))
        if option == "timer":
            return replace(self, turn_seconds=_next(TIMERS, self.turn_seconds))
        if option == "bots":
            return replace(self, bots=not self.bots)
        raise ValueError(f"no option {option!r}")

    # -- stored form -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format.value, "config": self.config.options(), "series": self.series,
            "turn_seconds": self.turn_seconds, "bots": self.bots, "signed": self.signed,
            "entries": [list(e) for e in self.entries], "seeded": self.seeded,
            "fixtures": [f.to_json() for f in self.fixtures], "champion": self.champion,
            "closes_at": self.closes_at, "started_at": self.started_at,
            "ended_at": self.ended_at, "replaced": self.replaced, "teams": self.teams,
            "invites": self.invites, "broken": self.broken, "planned": self.planned,
            "minutes": self.minutes, "paused": self.paused, "starts_at": self.starts_at,
            "zone": self.zone, "reminded": self.reminded,
        }  # fmt: skip

    def from_json(self, data: Mapping[str, Any]) -> Tournament:
        """These identity fields with the stored data (`to_json`) over them."""
        self.format = Format(data["format"])
        self.config = MatchConfig.of(data["config"])
        self.series = int(data["series"])
        self.turn_seconds = int(data["turn_seconds"])
        self.bots = bool(data["bots"])
        self.signed = [int(u) for u in data["signed"]]
        self.entries = [tuple(int(u) for u in e) for e in data["entries"]]
        self.seeded = int(data["seeded"])
        self.fixtures = [Fixture.from_json(f) for f in data["fixtures"]]
        self.champion = data["champion"]
        self.closes_at = float(data["closes_at"])
        self.started_at = data["started_at"]
        self.ended_at = data["ended_at"]
        self.replaced = [int(u) for u in data.get("replaced", [])]
        self.teams = [[int(u) for u in team] for team in data.get("teams", [])]
        self.invites = {str(k): int(v) for k, v in data.get("invites", {}).items()}
        self.broken = data.get("broken")
        self.planned = int(data.get("planned", 0))
        self.minutes = int(data.get("minutes", 0))
        self.paused = [int(e) for e in data.get("paused", [])]
        starts = data.get("starts_at")
        self.starts_at = None if starts is None else float(starts)
        self.zone = str(data.get("zone", ""))
        self.reminded = bool(data.get("reminded", False))
        return self

    def team_of(self, user_id: int) -> list[int] | None:
        """The team a person signed up with (None: alone, to be drawn)."""
        return next((team for team in self.teams if user_id in team), None)


def _next(choices: Sequence[Any], value: Any) -> Any:
    index = list(choices).index(value) if value in choices else -1
    return choices[(index + 1) % len(choices)]


class Tag(NamedTuple):
    """Which tie a tournament's table plays, and which match of its series: kept with the
    table as the text `tag_of` writes ("<tournament>:<round>:<slot>:<game>")."""

    tournament: int
    round: int
    slot: int
    game: int


def tag_of(tournament_id: int, round_: int, slot: int, game: int) -> str:
    """The tag of a tournament's table: which tie and which match of its series it plays."""
    return f"{tournament_id}:{round_}:{slot}:{game}"


def parse_tag(tag: str) -> Tag:
    tournament, round_, slot, game = (int(x) for x in tag.split(":"))
    return Tag(tournament, round_, slot, game)


# -- the start ---------------------------------------------------------------------------------
def misfit(t: Tournament) -> int | None:
    """The size of the largest team signed up together that `t`'s mode cannot seat (more
    people than a side has), or None: every team fits."""
    sizes = [len(team) for team in t.teams if len(team) > t.team_size]
    return max(sizes) if sizes else None


def fits(t: Tournament) -> bool:
    """Every entry drawn has a side's number of people, and everyone signed up is in exactly
    one entry."""
    drawn = [u for entry in t.entries for u in entry]
    return all(len(e) == t.team_size for e in t.entries) and sorted(drawn) == sorted(t.signed)


def can_start(t: Tournament) -> tuple[Refusal, int] | None:
    """Why `t` cannot start with the people signed up now (and the number that goes with it:
    how many more are needed, the most allowed, or the size of a team that does not fit);
    None when it can."""
    size = t.team_size
    too_big = misfit(t)
    if too_big is not None:
        return Refusal.TEAM_MISFIT, too_big
    if len(t.signed) % size:
        return Refusal.TEAMS_UNEVEN, size - len(t.signed) % size
    entries = len(t.signed) // size
    least, most = t.rules.least, t.rules.most
    if entries < least:
        return Refusal.TOO_FEW, (least - entries) * size
    if entries > most:
        return Refusal.TOO_MANY, most
    return None


def draw_entries(
    signed: Sequence[int], team_size: int, ratings: Mapping[int, float], rng: random.Random,
    teams: Sequence[Sequence[int]] = (),
) -> tuple[list[tuple[int, ...]], int]:  # fmt: skip
    """The entries in seed order, and how many of them were seeded by rating. 1v1: each person
    is an entry. Teams that signed up whole stay together; everyone else is drawn at random
    into teams (a team that came short is completed from the draw). Entries with a rating in
    the group's league (a team's: its members' mean, over those rated) come first, best first;
    the others after them, in an order drawn at random."""
    entries: list[tuple[int, ...]]
    if team_size == 1:
        entries = [(u,) for u in signed]
    else:
        kept = [list(team) for team in teams if team and all(u in signed for u in team)]
        taken = {u for team in kept for u in team}
        rest = [u for u in signed if u not in taken]
        rng.shuffle(rest)
        kept.sort(key=len, reverse=True)
        for team in kept:  # short teams are completed from the draw first
            while len(team) < team_size and rest:
                team.append(rest.pop())
        full = [tuple(team) for team in kept if len(team) == team_size]
        rest += [u for team in kept if len(team) < team_size for u in team]
        entries = full + [tuple(rest[i : i + team_size]) for i in range(0, len(rest), team_size)]
    rated = []
    unrated = []
    for index, entry in enumerate(entries):
        known = [ratings[u] for u in entry if u in ratings]
        if known:
            rated.append((-sum(known) / len(known), index, entry))
        else:
            unrated.append(entry)
    rated.sort()
    rng.shuffle(unrated)
    return [e for _, _, e in rated] + unrated, len(rated)


def start(t: Tournament, ratings: Mapping[int, float], rng: random.Random, now: float) -> None:
    """Seed the entries and lay out the fixtures (`can_start` said yes)."""
    t.entries, t.seeded = draw_entries(t.signed, t.team_size, ratings, rng, t.teams)
    t.invites = {}
    t.started_at = now
    t.fixtures = t.rules.lay_out(t)
    t.status = Status.RUNNING


# -- playing it --------------------------------------------------------------------------------
def sides_of(t: Tournament, fixture: Fixture, game: int) -> tuple[int, int]:
    """The entries at table sides 0 and 1 in match `game` of a tie: they swap each match."""
    assert fixture.a is not None and fixture.b is not None
    return (fixture.a, fixture.b) if game % 2 == 0 else (fixture.b, fixture.a)


def seats_for(t: Tournament, fixture: Fixture, game: int) -> list[int | None]:
    """Who sits where at match `game` of a tie: each side's members on its seats in order."""
    geometry = seats(t.config.players)
    seated: list[int | None] = [None] * t.config.players
    for side, entry in enumerate(sides_of(t, fixture, game)):
        for seat, user in zip(geometry.of_side(side), t.entries[entry], strict=True):
            seated[seat] = user
    return seated


def record(
    t: Tournament, fixture: Fixture, table: int, winner_side: int, scores: tuple[int, int],
    walkover: bool = False, nobody: bool = False, now: float | None = None,
) -> bool:  # fmt: skip
    """A match of the tie ended (at table `table`, side `winner_side` of that table winning
    with `scores`, at `now`): counted once (False if this table was counted already). A
    walkover (a side that never came; `nobody`: neither did) gives that match only: the tie is
    decided by the series' rule, as with any match."""
    if fixture.decided or any(g.table == table for g in fixture.games):
        return False
    game = len(fixture.games)
    first, _ = sides_of(t, fixture, game)
    swap = first != fixture.a  # the table's side 0 was `b`
    winner = winner_side ^ swap
    points = (scores[1], scores[0]) if swap else scores
    fixture.games.append(Game(table, winner, points, walkover, nobody))
    won = fixture.wins()
    if max(won) >= t.needed():
        fixture.winner = fixture.entry_of(winner)
        fixture.walkover = walkover  # (the match that decided it)
        fixture.ended_at = now
        t.rules.advance(t)
        _finish(t)
    return True


def tick(t: Tournament, now: float) -> bool:
    """The clock says `now`: a format that runs on time pairs whoever is free, or ends once its
    time is up and its last match has; True if `t` changed."""
    if t.status is not Status.RUNNING:
        return False
    moved = t.rules.tick(t, now)
    _finish(t, now)
    return moved or t.champion is not None


def _finish(t: Tournament, now: float | None = None) -> None:
    if not t.rules.over(t, now):
        return
    t.champion = t.rules.champion(t)
    t.status = Status.FINISHED


def playable(t: Tournament, busy: Iterable[int]) -> list[Fixture]:
    """The ties to open now: both entries known, not decided, and neither entry playing
    elsewhere (`busy`: entries in a match now), earliest rounds first."""
    taken = set(busy)
    out = []
    for fixture in sorted(t.fixtures, key=lambda f: f.key):
        if not fixture.ready:
            continue
        assert fixture.a is not None and fixture.b is not None
        if fixture.a in taken or fixture.b in taken:
            continue
        taken |= {fixture.a, fixture.b}
        out.append(fixture)
    return out


def standings(t: Tournament) -> list[Line]:
    """The format's table of standings, best first (none for a knockout)."""
    return t.rules.standings(t) or []


def path_of(t: Tournament, entry: int) -> list[Fixture]:
    """The ties `entry` played (not its byes), in order."""
    return [
        f
        for f in sorted(t.fixtures, key=lambda f: f.key)
        if entry in (f.a, f.b) and not f.bye and f.decided
    ]


def round_key(t: Tournament, round_: int) -> str:
    """The locale key that names round `round_`: the final, the semifinals, ... (eliminación),
    a liguilla's round, a Swiss's."""
    return t.rules.round_key(t, round_)


MODES = SEAT_COUNTS  # 1v1, 2v2, 3v3
