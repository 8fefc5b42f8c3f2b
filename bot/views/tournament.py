"""A tournament as the group reads it on a phone: the sign-up message (options, who signed up),
the bracket or the liguilla's table (one message, edited as results come), each result, the
champion with their path, and a player's private notice of their next match."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from html import escape
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.callbacks import TOURNEY_CUT, TOURNEY_KEEP, PageData, PageView, TourneyData, pack
from bot.callbacks import TourneyOp as Op
from bot.game.seats import mode_of
from bot.i18n import Translator
from bot.league.tournament import (
    Fixture,
    Line,
    Status,
    Tournament,
    path_of,
    round_key,
)
from bot.model.names import BOT_MARK
from bot.views.common import Button, Keys, both, phone_lines, short_name
from bot.views.pages import PAGE_LINES, pager, paginate

TOURNEY_OPTIONS = ("format", "mode", "target", "flor", "series", "timer", "bots")
STANDINGS_NAME = 12  # a name's width in a liguilla's table


def entry_name(t: Translator, tour: Tournament, entry: int | None, names: Mapping[int, str]) -> str:
    """An entry by its players' names, bold: "<b>Ana</b>", "<b>Ana</b> y <b>Beto</b>"; "?"
    for a place not decided yet; a player a computer player replaced is marked 🤖."""
    if entry is None or entry >= len(tour.entries):
        return "?"
    people = [
        f"<b>{short_name(names.get(u, '?'))}</b>" + (f" {BOT_MARK}" if u in tour.replaced else "")
        for u in tour.entries[entry]
    ]
    return both(t, people)


def rules_text(t: Translator, tour: Tournament) -> str:
    config = tour.config
    named = t(f"tourney.format.{tour.format.value}")
    rounds = tour.rules.rounds_told(tour)
    if rounds is not None:
        named += " " + t("tourney.rounds", count=rounds)
    minutes = tour.rules.minutes_told(tour)
    if minutes is not None:
        named += " " + t("tourney.minutes", minutes=minutes)
    parts = [
        named,
        mode_of(config.players),
        t("tourney.target", points=config.target),
        t("rules.con_flor") if config.flor else t("rules.sin_flor"),
        t(f"tourney.series.{tour.series}"),
        t("tourney.timer", seconds=tour.turn_seconds),
    ]
    if tour.bots:
        parts.append(t("tourney.bots_on"))
    return " · ".join(parts)


def option_text(t: Translator, tour: Tournament, option: str) -> str:
    config = tour.config
    value = {
        "format": t(f"tourney.format.{tour.format.value}"),
        "mode": mode_of(config.players),
        "target": t("option.target_value", points=config.target),
        "flor": t("option.flor_on") if config.flor else t("option.flor_off"),
        "series": t(f"tourney.series.{tour.series}"),
        "timer": f"{tour.turn_seconds} s",
        "bots": t("tourney.yes") if tour.bots else t("tourney.no"),
    }[option]
    return t("button.option", name=t(f"tourney.option.{option}"), value=value)


def signup_text(t: Translator, tour: Tournament, names: Mapping[int, str], zone: tzinfo) -> str:
    lines = [t("tourney.title", number=tour.number), rules_text(t, tour), ""]
    if tour.broken is not None:
        lines[-1:] = [t("tourney.broken"), ""]
    listed = []
    for user in tour.signed:
        team = tour.team_of(user)
        if team is not None and team[0] != user:
            continue  # named with whoever invited them
        people = [f"<b>{short_name(names.get(u, '?'))}</b>" for u in (team or [user])]
        together = both(t, people)
        if team is not None and len(team) < tour.team_size:
            together += " " + t("tourney.waiting_partner")
        listed.append(together)
    after = [t("tourney.teams_drawn", size=tour.team_size)] if tour.team_size > 1 else []
    zone = zone_of(tour, zone)
    opener = f"<b>{short_name(names.get(tour.opener_id, '?'))}</b>"
    if tour.starts_at is not None:  # set for later
        when = when_text(t, tour.starts_at, zone, tour.updated_at or tour.created_at)
        after.append(t("tourney.starts", when=when, opener=opener))
    else:
        after.append(t("tourney.closes", time=clock_time(tour.closes_at, zone), opener=opener))
    # The first names that a phone shows whole with the rest (the group's one message of the
    # sign-ups is edited at each, never paged), the others said as a count
    shown = len(listed)
    while True:
        said = ", ".join(listed[:shown]) or "—"
        if shown < len(listed):
            said = t("tourney.signed_more", names=said, count=len(listed) - shown)
        text = "\n".join([*lines, t("tourney.signed", count=len(tour.signed), names=said), *after])
        if shown == 0 or phone_lines(text) <= PAGE_LINES:
            return text
        shown -= 1


def zone_of(tour: Tournament, fallback: tzinfo) -> tzinfo:
    """The time zone its times are told in: the group's when it was opened, or `fallback`."""
    if tour.zone:
        try:
            return ZoneInfo(tour.zone)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return fallback


def clock_time(at: float, zone: tzinfo) -> str:
    """An hour as the group's zone says it ("21:30"), marked as a moment (Bot API 9.5's
    date_time entity, format "t"): a client that knows it shows each reader the hour in their
    own time; one that does not shows the group's."""
    hour = datetime.fromtimestamp(at, zone).strftime("%H:%M")
    return f'<tg-time unix="{int(at)}" format="t">{hour}</tg-time>'


def time_left_text(t: Translator, end: float, now: float, zone: tzinfo) -> str:
    """A tournament on time: the hour it ends and the whole minutes left ("⏱️ Termina a las
    21:30 · quedan 12 min"); once it is up, that the matches in play finish."""
    if now >= end:
        return t("tourney.time_up")
    minutes = int((end - now) // 60)
    if minutes < 1:
        return t("tourney.ends_soon", time=clock_time(end, zone))
    return t("tourney.ends", time=clock_time(end, zone), minutes=minutes)


def when_text(t: Translator, at: float, zone: tzinfo, now: float) -> str:
    """A time to come as a group says it: "hoy a las 21:30", "mañana a las 22:00", "el
    viernes a las 21:30" (a week at most ahead)."""
    day = datetime.fromtimestamp(at, zone)
    today = datetime.fromtimestamp(now, zone).date()
    time_ = clock_time(at, zone)
    ahead = (day.date() - today).days
    if ahead <= 0:
        return t("tourney.when.today", time=time_)
    if ahead == 1:
        return t("tourney.when.tomorrow", time=time_)
    return t("tourney.when.day", day=t(f"tourney.weekday.{day.weekday()}"), time=time_)


def reminder_text(t: Translator, tour: Tournament, zone: tzinfo) -> str:
    """Ten minutes before a tournament set for later, to each person signed up."""
    at = tour.starts_at if tour.starts_at is not None else tour.closes_at
    time_ = clock_time(at, zone_of(tour, zone))
    return t("tourney.reminder", number=tour.number, time=time_, rules=rules_text(t, tour))


def called_off_text(t: Translator, tour: Tournament, zone: tzinfo) -> str:
    """Its sign-ups closed with too few: told in the group and to each person signed up."""
    time_ = datetime.fromtimestamp(tour.closes_at, zone_of(tour, zone)).strftime("%H:%M")
    least = tour.rules.least * tour.team_size
    if len(tour.signed) >= least:  # enough people, but not to be made into its entries
        return t("tourney.called_off_unfit", number=tour.number, time=time_, count=len(tour.signed))
    return t("tourney.called_off", number=tour.number, time=time_, count=len(tour.signed),
             least=least)  # fmt: skip


def signup_keys(t: Translator, tour: Tournament) -> Keys:
    first = [
        Button(t("tourney.button.sign"), pack(TourneyData(tour.id, Op.SIGN))),
        Button(t("tourney.button.unsign"), pack(TourneyData(tour.id, Op.UNSIGN))),
    ]
    if tour.team_size > 1:
        first.insert(1, Button(t("tourney.button.partner"), pack(TourneyData(tour.id, Op.PARTNER))))
    toggles = [
        Button(option_text(t, tour, o), pack(TourneyData(tour.id, Op.OPTION, o)))
        for o in TOURNEY_OPTIONS
    ]
    pairs = [toggles[i : i + 2] for i in range(0, len(toggles), 2)]
    last = [
        Button(t("tourney.button.start"), pack(TourneyData(tour.id, Op.START))),
        Button(t("button.cancel"), pack(TourneyData(tour.id, Op.CANCEL))),
    ]
    return Keys.of([first, *pairs, last])


def running_keys(t: Translator, tour: Tournament) -> Keys:
    """Under a running tournament's bracket: calling it off (whoever opened it, or an admin),
    its matches in play cut short or left to finish; an arena's players pause and come back."""
    stop = [
        Button(t("tourney.button.stop_cut"), pack(TourneyData(tour.id, Op.CANCEL, TOURNEY_CUT))),
        Button(t("tourney.button.stop_keep"), pack(TourneyData(tour.id, Op.CANCEL, TOURNEY_KEEP))),
    ]
    if tour.rules.runs_on_time:
        pause = Button(t("tourney.button.pause"), pack(TourneyData(tour.id, Op.PAUSE)))
        return Keys.of([[pause], stop])
    return Keys.of([stop])


def bracket_keys(t: Translator, tour: Tournament, page: int, pages: int) -> Keys | None:
    """A bracket's buttons: its pager (◀️ n/m ▶️, when it has pages), then a running one's."""
    at = functools.partial(PageData, PageView.TOURNEY, tour.id)
    rows = [pager(at, page, pages)] if pages > 1 else []
    if tour.status is Status.RUNNING:
        rows += [list(row) for row in running_keys(t, tour)]
    return Keys.of(rows) if rows else None


# The matches in play: fixture key -> the live score of its game, entry a's first (None: not
# known, the match only said to be on)
Live = Mapping[tuple[int, int], tuple[int, int] | None]


def _tie_line(
    t: Translator, tour: Tournament, fixture: Fixture, names: Mapping[int, str], live: Live
) -> str:
    a = entry_name(t, tour, fixture.a, names)
    b = entry_name(t, tour, fixture.b, names)
    if fixture.bye:
        key = "tourney.bye_scores" if tour.rules.bye_scores else "tourney.bye"
        return t(key, name=a if fixture.a is not None else b, count=tour.team_size)
    if fixture.decided:
        if tour.series > 1:
            won = fixture.wins()
            score = f"{won[0]}–{won[1]}"
        else:
            points = fixture.points()
            score = f"{points[0]}–{points[1]}"
        mark = "🚫" if fixture.walkover else "✅"
        a_bold, b_bold = (a, _plain(b)) if fixture.winner == fixture.a else (_plain(a), b)
        return f"{mark} {a_bold} {score} {b_bold}"
    if fixture.key in live:
        now = live[fixture.key]
        if tour.series > 1 and fixture.games:
            won = fixture.wins()
            if now is not None:
                return t("tourney.live_series_score", a=a, b=b, x=won[0], y=won[1],
                         p=now[0], q=now[1])  # fmt: skip
            return t("tourney.live_series", a=a, b=b, x=won[0], y=won[1])
        if now is not None:
            return t("tourney.live_score", a=a, b=b, x=now[0], y=now[1])
        return t("tourney.live", a=a, b=b)
    return f"• {a} vs {b}"


def _plain(name: str) -> str:
    return name.replace("<b>", "").replace("</b>", "")


def bracket_text(
    t: Translator, tour: Tournament, names: Mapping[int, str], live: Live,
    now: float | None = None, zone: tzinfo = UTC,
) -> str:  # fmt: skip
    """The tournament as it stands, whole (`bracket_pages` is what the group's message shows):
    each round's ties (results, who plays now), or a liguilla's table and its rounds; the
    champion once there is one. `now`: the clock, for a tournament on time (when it ends, and
    the minutes left), told in `zone`."""
    shown = _bracket(t, tour, names, live, now, zone)
    return "\n\n".join([shown.head, *shown.blocks])


class Bracket(NamedTuple):
    head: str  # what it is and where it stands: on every page
    blocks: list[str]  # the table, each round (its title and ties), what is in play
    now: int | None  # the block of what is being played now (None: nothing is)


def bracket_pages(
    t: Translator, tour: Tournament, names: Mapping[int, str], live: Live,
    now: float | None = None, zone: tzinfo = UTC,
) -> tuple[list[str], int]:  # fmt: skip
    """`bracket_text` in pages a phone shows whole (a round never cut when it fits one), its
    head on each; and the page of what is being played now (the page to show unless someone
    turned to another)."""
    shown = _bracket(t, tour, names, live, now, zone)
    pages = paginate(shown.blocks, head=shown.head)
    if shown.now is None:
        return pages, 0
    first = shown.blocks[shown.now].split("\n")[0]  # (a round's title: one in the bracket)
    return pages, next((n for n, page in enumerate(pages) if first in page), 0)


def _bracket(
    t: Translator, tour: Tournament, names: Mapping[int, str], live: Live, now: float | None,
    zone: tzinfo,
) -> Bracket:  # fmt: skip
    lines = [t("tourney.title", number=tour.number), rules_text(t, tour)]
    end = tour.rules.ends_at(tour)
    if end is not None and now is not None and tour.status is Status.RUNNING:
        lines.append(time_left_text(t, end, now, zone_of(tour, zone)))
    if tour.status is Status.CANCELLED:
        lines.append(t("tourney.cancelled"))
    elif tour.broken is not None:
        lines.append(t("tourney.broken"))
    if tour.champion is not None:
        lines.append(t("tourney.champion_line", name=entry_name(t, tour, tour.champion, names),
                       count=len(tour.entries[tour.champion])))  # fmt: skip
    head = "\n".join(lines)
    blocks: list[str] = []
    current: int | None = None
    table = tour.rules.standings(tour)
    if table is not None:
        blocks.append(_standings_block(t, tour, table, names))
    if tour.rules.runs_on_time:  # a leaderboard, and the matches in play now
        arena = _arena_blocks(t, tour, names, live)
        if arena and tour.is_open:
            current = len(blocks)
        return Bracket(head, blocks + arena, current)
    if table is not None and not tour.is_open:  # its rounds, one line each, under the table
        blocks.append("\n".join(_round_line(t, tour, round_, names)
                                for round_ in range(tour.rounds)))  # fmt: skip
        return Bracket(head, blocks, None)
    for round_ in range(tour.rounds):
        ties = [f for f in tour.fixtures if f.round == round_]
        if table is not None and all(f.decided for f in ties) and tour.is_open:
            continue  # (a finished round is in the table)
        if current is None and tour.is_open and not all(f.decided for f in ties):
            current = len(blocks)
        said = [_tie_line(t, tour, f, names, live) for f in ties]
        blocks.append("\n".join([f"<b>{round_title(t, tour, round_)}</b>", *said]))
    return Bracket(head, blocks, current)


def _round_line(t: Translator, tour: Tournament, round_: int, names: Mapping[int, str]) -> str:
    """A round of a tournament over, in one line: "<b>Ronda 1</b>: <b>Caro</b> 15–4 Beto ·
    ... · ☕ Ana" (the winner of each tie bold; 🚫 a walkover; ☕ who rested)."""
    said = []
    for fixture in (f for f in tour.fixtures if f.round == round_):
        a = entry_name(t, tour, fixture.a, names)
        b = entry_name(t, tour, fixture.b, names)
        if fixture.bye:
            said.append("☕ " + _plain(a if fixture.a is not None else b))
            continue
        if not fixture.decided:  # (called off in the middle)
            said.append(f"{_plain(a)} vs {_plain(b)}")
            continue
        won = fixture.wins() if tour.series > 1 else fixture.points()
        a, b = (a, _plain(b)) if fixture.winner == fixture.a else (_plain(a), b)
        said.append(("🚫 " if fixture.walkover else "") + f"{a} {won[0]}–{won[1]} {b}")
    # (a Swiss's title without its "of 3": the rounds are all there)
    title = (t("tourney.round_short", number=round_ + 1) if tour.rules.pairs_as_it_goes
             else round_title(t, tour, round_))  # fmt: skip
    return f"<b>{title}</b>: " + " · ".join(said)


def _arena_blocks(
    t: Translator, tour: Tournament, names: Mapping[int, str], live: Live
) -> list[str]:
    """An arena's matches in play now, and who paused (a block each)."""
    blocks = []
    playing = [f for f in tour.fixtures if not f.decided]
    if playing and tour.is_open:
        ties = [_tie_line(t, tour, f, names, live) for f in playing]
        blocks.append("\n".join([f"<b>{t('tourney.in_play')}</b>", *ties]))
    if tour.paused and tour.is_open:
        people = sum(len(tour.entries[e]) for e in tour.paused)
        listed = ", ".join(entry_name(t, tour, e, names) for e in tour.paused)
        blocks.append(t("tourney.paused_list", names=listed, count=people))
    return blocks


def _standings_block(
    t: Translator, tour: Tournament, table: Sequence[Line], names: Mapping[int, str]
) -> str:
    """The table as a fixed-width block: place, name, played, won, the difference (a Swiss:
    place, name, score, its tie-break, the difference), and under a Swiss's the tie-break said
    in one line of plain words (an arena's: how its points are scored)."""
    swiss = any(line.buchholz is not None for line in table)
    arena = tour.rules.runs_on_time
    head = "tourney.table_head" if tour.team_size > 1 else "tourney.table_head_solo"
    rows = [t(head + ("_swiss" if swiss else "_arena" if arena else ""))]
    for place, line in enumerate(table, start=1):
        people = [names.get(u, "?") for u in tour.entries[line.entry]]
        name = "+".join(n.split()[0] if n.split() else "?" for n in people)
        name = name if len(name) <= STANDINGS_NAME else name[: STANDINGS_NAME - 1] + "…"
        if swiss:
            numbers = f"{line.score:>3} {line.buchholz or 0:>3}"
        elif arena:
            numbers = f"{line.score:>3} {line.played:>2}"
        else:
            numbers = f"{line.played:>2} {line.won:>2}"
        fire = " 🔥" if line.fire else ""
        rows.append(f"{place:>2} {name:<{STANDINGS_NAME}} {numbers} {line.diff:+4d}{fire}")
    block = "<pre>" + escape("\n".join(rows)) + "</pre>"
    told = "tourney.swiss_breaks" if swiss else "tourney.arena_points" if arena else None
    return block + ("\n" + t(told) if told is not None else "")


def round_title(t: Translator, tour: Tournament, round_: int) -> str:
    key = round_key(tour, round_)
    return t(f"tourney.{key}", number=round_ + 1, total=tour.rules.total_rounds(tour))


def result_text(
    t: Translator, tour: Tournament, results: Sequence[tuple[int, int, int]],
    names: Mapping[int, str],
) -> str:  # fmt: skip
    """Each match just counted, with what it decided."""
    lines = []
    for round_, slot, game in results:
        fixture = tour.fixture(round_, slot)
        if fixture is None or game >= len(fixture.games):
            continue
        played = fixture.games[game]
        a = entry_name(t, tour, fixture.a, names)
        b = entry_name(t, tour, fixture.b, names)
        title = round_title(t, tour, round_)
        if played.nobody:  # neither came: the better seed was given it (the rule, told)
            line = t("tourney.walkover_nobody", round=title, a=a, b=b,
                     winner=a if played.winner == 0 else b)  # fmt: skip
        elif played.walkover:
            loser = b if played.winner == 0 else a
            lost = fixture.entry_of(1 - played.winner)
            size = len(tour.entries[lost]) if lost is not None else 1
            line = t("tourney.walkover", round=title, loser=loser, count=size,
                     winner=a if played.winner == 0 else b)  # fmt: skip
        else:
            key = "tourney.result"
            if fixture.decided and tour.rules.doubled(tour, fixture):  # (a streak's win)
                key = "tourney.result_double"
            line = t(key, round=title, a=a, b=b, x=played.points[0],
                     y=played.points[1])  # fmt: skip
        moves_on = tour.rules.next_round(tour, fixture)
        if moves_on is not None:
            after = t(f"tourney.to.{round_key(tour, moves_on)[len('round.'):]}",
                      number=moves_on + 1)  # fmt: skip
            winner = fixture.winner
            size = len(tour.entries[winner]) if winner is not None else 1
            line += " " + t("tourney.advances", name=entry_name(t, tour, winner, names),
                            round=after, count=size)  # fmt: skip
        elif not fixture.decided and tour.series > 1:
            won = fixture.wins()
            line += " " + t("tourney.series_stands", x=won[0], y=won[1])
        on_time = tour.rules.runs_on_time and tour.champion is None  # (over: no next win)
        if fixture.decided and fixture.winner is not None and on_time:
            hot = {x.entry for x in tour.rules.standings(tour) or [] if x.fire}
            streak = [f for f in tour.fixtures if fixture.winner in (f.a, f.b) and f.decided]
            last = max(streak, key=lambda f: f.key)
            if fixture.winner in hot and last is fixture:
                size = len(tour.entries[fixture.winner])
                line += " " + t("tourney.on_fire", name=entry_name(t, tour, fixture.winner, names),
                                count=size)  # fmt: skip
        lines.append(line)
    if lines:
        for round_ in paired_now(tour, results):
            lines.append(t("tourney.round_paired", round=round_title(t, tour, round_)))
    return "\n".join(lines)


def paired_now(tour: Tournament, results: Sequence[tuple[int, int, int]]) -> list[int]:
    """The rounds these results paired (a format that pairs round by round: the round after
    each one they closed)."""
    if not tour.rules.pairs_as_it_goes or tour.champion is not None:
        return []
    closed = sorted({round_ for round_, _, _ in results})
    return [r + 1 for r in closed if r + 1 < tour.rounds and _round_over(tour, r)]


def _round_over(tour: Tournament, round_: int) -> bool:
    return all(f.decided for f in tour.fixtures if f.round == round_)


def rest_notice(t: Translator, tour: Tournament, fixture: Fixture) -> str | None:
    """Who rests in a round (a bye), told in private: a Swiss's point without playing, or an
    eliminación's pass to the next round (None: `fixture` is no bye)."""
    if not fixture.bye:
        return None
    if tour.rules.bye_scores:
        last = fixture.round + 1 >= tour.rules.total_rounds(tour)
        return t("tourney.rest_last" if last else "tourney.rest", number=tour.number,
                 round=round_title(t, tour, fixture.round))  # fmt: skip
    after = tour.rules.next_round(tour, fixture)
    if after is None:
        return None
    to = t(f"tourney.to.{round_key(tour, after)[len('round.'):]}", number=after + 1)
    return t("tourney.through", number=tour.number, round=to)


def champion_text(t: Translator, tour: Tournament, names: Mapping[int, str]) -> str:
    """The champion and the whole path that took them there."""
    assert tour.champion is not None
    champion = tour.champion
    lines = [t("tourney.champion", name=entry_name(t, tour, champion, names),
               count=len(tour.entries[champion]))]  # fmt: skip
    if tour.rules.runs_on_time:  # the podium, with its points
        for medal, line in zip(("🥇", "🥈", "🥉"), tour.rules.standings(tour) or [], strict=False):
            lines.append(t("tourney.podium", medal=medal, points=line.score,
                           name=entry_name(t, tour, line.entry, names)))  # fmt: skip
        return "\n".join(lines)
    for fixture in path_of(tour, champion):
        rival = fixture.b if fixture.a == champion else fixture.a
        mine, theirs = fixture.points() if fixture.a == champion else fixture.points()[::-1]
        if tour.series > 1:
            won = fixture.wins() if fixture.a == champion else fixture.wins()[::-1]
            mine, theirs = won
        lines.append(
            t("tourney.path", round=round_title(t, tour, fixture.round),
              rival=entry_name(t, tour, rival, names), x=mine, y=theirs)
        )  # fmt: skip
    return "\n".join(lines)


def final_started_text(
    t: Translator, tour: Tournament, fixture: Fixture, names: Mapping[int, str]
) -> str:
    """The group told that a knockout's final is on (its live score is in the bracket)."""
    return t("tourney.final_on", a=entry_name(t, tour, fixture.a, names),
             b=entry_name(t, tour, fixture.b, names))  # fmt: skip


def knockout_of(tour: Tournament) -> bool:
    """A bracket whose rounds are eliminations (the final, the semifinals...)."""
    return tour.rules.round_key(tour, 0) not in ("round.league", "round.swiss", "round.arena")


def next_step(t: Translator, tour: Tournament, fixture: Fixture, won: bool) -> str | None:
    """A knockout player's next step after the match of `fixture` that decided it (None where
    a tournament has no such step: a liguilla, a Swiss, a game of a longer series; and for
    the final's winner, whom the champion's own notice tells, right after)."""
    if not knockout_of(tour):
        return None
    final = fixture.round + 1 >= tour.rounds
    if won:
        if final:
            return None
        after = round_key(tour, fixture.round + 1)[len("round.") :]
        return t("tourney.step.advance", round=t(f"tourney.to.{after}", number=fixture.round + 2))
    if final:
        return t("tourney.step.runner_up")
    here = round_key(tour, fixture.round)[len("round.") :]
    return t("tourney.step.out", round=t(f"tourney.to.{here}", number=fixture.round + 1))


def match_notice(
    t: Translator, tour: Tournament, fixture: Fixture, game: int, names: Mapping[int, str],
    user_id: int,
) -> str:  # fmt: skip
    """`user_id`'s private notice that their match starts, said to them: against whom (and
    with whom, in a team), in which round."""
    mine = tour.entry_of(user_id)
    rival = fixture.b if mine == fixture.a else fixture.a
    team = tour.entries[mine] if mine is not None else ()
    partners = [f"<b>{short_name(names.get(u, '?'))}</b>" for u in team if u != user_id]
    said = {
        "rival": entry_name(t, tour, rival, names),
        "round": round_title(t, tour, fixture.round),
    }
    if partners:
        text = t("tourney.your_match_with", partners=both(t, partners), **said)
    else:
        text = t("tourney.your_match", **said)
    if tour.series > 1:
        text += " " + t("tourney.game_of", number=game + 1, series=tour.series)
    return text


def past_text(t: Translator, past: Sequence[Tournament], names: Mapping[int, str]) -> str:
    """/torneos: the group's finished tournaments and their champions, newest first."""
    if not past:
        return t("tourney.none_past")
    lines = [t("tourney.past_title")]
    for tour in past:
        day = datetime.fromtimestamp(tour.ended_at or tour.created_at).strftime("%d/%m")
        champion = entry_name(t, tour, tour.champion, names)
        line = t("tourney.past_line", number=tour.number, day=day, rules=rules_text(t, tour),
                 champion=champion)  # fmt: skip
        if phone_lines("\n".join([*lines, line])) > PAGE_LINES:
            break  # the newest that a phone shows whole
        lines.append(line)
    return "\n".join(lines)


def people_of(tour: Tournament) -> list[int]:
    """Everyone a tournament's texts may name."""
    return [tour.opener_id, *tour.signed, *(u for e in tour.entries for u in e)]

