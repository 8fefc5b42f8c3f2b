"""/tabla and /yo: a table that reads on a phone (monospace, at most 32 characters a line)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot.i18n import Translator
from bot.league.ratings import PROVISIONAL_MATCHES
from bot.league.values import Pair, PlayerNumbers, RatingChange, Standing
from bot.views.common import phone_lines
from bot.views.pages import PAGE_LINES, paginate

WIDTH = 32
NAME = 11


def _name(name: str, width: int = NAME) -> str:
    clean = " ".join(name.split()) or "?"
    return clean if len(clean) <= width else clean[: width - 1] + "…"


def _whole(name: str) -> str:
    """A name as /tabla lays it out: whole (wrapped between its words where it is long)."""
    return " ".join(name.split()) or "?"


def _streak(t: Translator, streak: int) -> str:
    if streak == 0:
        return ""
    return t("tabla.streak_won" if streak > 0 else "tabla.streak_lost", n=abs(streak))


def wrap(text: str, width: int = WIDTH, indent: int = 0) -> list[str]:
    """`text` in lines of at most `width` characters, broken between words (the lines after
    the first indented by `indent`); only a word longer than a whole line is broken."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        room = width - (indent if lines else 0)
        if line and len(line) + 1 + len(word) <= room:
            line += " " + word
            continue
        if line:
            lines.append(line)
            line = ""
            room = width - indent
        while len(word) > room:  # a word no line can hold: the one case a word is broken
            lines.append(word[:room])
            word = word[room:]
            room = width - indent
        line = word
    if line or not lines:
        lines.append(line)
    return [lines[0]] + [" " * indent + x for x in lines[1:]]


def _player_entries(
    t: Translator, rows: Sequence[Standing]
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header line (none when nobody is ranked yet: no columns over no rows), and each
    player's lines: a ranked player's figures under the header (a name too long for its column
    on lines of its own above them), a provisional one's in a line or two; every line at most
    WIDTH characters, no word cut."""
    ranked = [r for r in rows if r.played >= PROVISIONAL_MATCHES]
    provisional = [r for r in rows if r.played < PROVISIONAL_MATCHES]
    head = (t("tabla.player"), t("tabla.played"), t("tabla.won"), "%", t("tabla.rating"))
    header = f"{'#':>2} {head[0]:<{NAME}} {head[1]:>3} {head[2]:>3} {head[3]:>3} {head[4]:>5}"
    entries: list[tuple[int, list[str]]] = []
    for pos, row in enumerate(ranked, start=1):
        rate = round(100 * row.won / row.played) if row.played else 0
        name = _whole(row.name)
        figures = f"{row.played:>3} {row.won:>3} {rate:>3} {row.rating:>5.1f}"
        if len(name) <= NAME:
            lines = [f"{pos:>2} {name:<{NAME}} {figures}"]
        else:
            first, *more = wrap(name, WIDTH - 3)
            lines = [f"{pos:>2} {first}", *(f"   {x}" for x in more)]
            lines.append(f"{'':>2} {'':<{NAME}} {figures}")
        record = f"{t('tabla.lost')}:{row.lost} +{row.points_for}/-{row.points_against}"
        record = f"{record} {_streak(t, row.streak)}".rstrip()
        lines += [f"   {x}" for x in wrap(record, WIDTH - 3)]
        entries.append((row.user_id, lines))
    if provisional:
        # a title too long for a line breaks before its parenthesis, then between words
        title = t("tabla.provisional", count=PROVISIONAL_MATCHES).replace(" (", "\n(").split("\n")
        gap = [""] if ranked else []
        entries.append((0, [*gap, *(x for part in title for x in wrap(part))]))
        for row in provisional:
            name = _whole(row.name)
            won = t("tabla.won_of", won=row.won, played=row.played)
            rest = f"{won} {_streak(t, row.streak)}".rstrip()
            column = min(12, WIDTH - 3 - len(rest) - 1)
            if len(name) <= column:
                lines = [f" · {name:<{column}} {rest}"]
            else:
                first, *more = wrap(name, WIDTH - 3)
                lines = [f" · {first}", *(f"   {x}" for x in more)]
                lines += [f"   {x}" for x in wrap(rest, WIDTH - 3)]
            entries.append((row.user_id, lines))
    return [header] if ranked else [], entries


def standings_lines(t: Translator, rows: Sequence[Standing]) -> list[str]:
    """The monospace block, without HTML: each line at most WIDTH characters, no word cut."""
    head, entries = _player_entries(t, rows)
    return head + [line for _, lines in entries for line in lines]


TOP_PAIRS = 10


def _pair_lines(pairs: Sequence[Pair]) -> list[str]:
    """The partners who won together, each pair or trio whole: their names joined by "+" and
    the tally at the end, wrapped between names when a line cannot hold them."""
    lines = []
    for p in pairs[:TOP_PAIRS]:
        lines += wrap(" + ".join(_whole(n) for n in p.names) + f" {p.won}/{p.played}", WIDTH, 2)
    return lines


def standings_pages(
    t: Translator,
    rows: Sequence[Standing],
    scope: str,
    pairs: Sequence[Pair] = (),
    asker: int | None = None,
) -> list[str]:
    """/tabla in pages a phone shows whole (`PAGE_LINES`), whatever the group's size: the
    players in order, a player never cut between pages, and on every page the asker's own row
    when it is elsewhere; then the pairs (or trios) that won together, as many as fit."""
    if not rows:
        return [t("tabla.empty")]
    head, entries = _player_entries(t, rows)
    own = next((lines for user, lines in entries if user == asker and user), None)
    ranked = {r.user_id for r in rows if r.played >= PROVISIONAL_MATCHES}

    def body(chunk: Sequence[tuple[int, list[str]]]) -> str:
        headed = head if any(user in ranked for user, _ in chunk) else []
        lines = headed + [x for _, entry_lines in chunk for x in entry_lines]
        if own is not None and all(user != asker for user, _ in chunk):
            lines += ["…", *own]
        return f"<pre>{escape(chr(10).join(lines))}</pre>"

    # (measured under the longest title a page may have: "· 12/12")
    longest = f"{t('tabla.title')} · {scope} · {len(entries) + 1}/{len(entries) + 1}\n"
    chunks: list[list[tuple[int, list[str]]]] = [[]]
    for entry in entries:
        if chunks[-1] and phone_lines(longest + body([*chunks[-1], entry])) > PAGE_LINES:
            chunks.append([])
        chunks[-1].append(entry)
    bodies = [body(chunk) for chunk in chunks]
    if pairs:
        key = "tabla.pairs" if len(pairs[0].names) == 2 else "tabla.trios"
        told = [_pair_lines([p]) for p in pairs[:TOP_PAIRS]]
        said = ""
        while told:  # the most that fit a page, the best first
            said = f"{t(key)}\n<pre>{escape(chr(10).join(x for p in told for x in p))}</pre>"
            if phone_lines(longest + said) <= PAGE_LINES:
                break
            told.pop()
        if told and phone_lines(f"{longest}{bodies[-1]}\n{said}") <= PAGE_LINES:
            bodies[-1] += f"\n{said}"
        elif told:
            bodies.append(said)
    title = f"{t('tabla.title')} · {scope}"
    if len(bodies) == 1:
        return [f"{title}\n{bodies[0]}"]
    return [f"{title} · {n}/{len(bodies)}\n{text}" for n, text in enumerate(bodies, start=1)]


def numbers_text(
    t: Translator,
    name: str,
    here: PlayerNumbers,
    everywhere: PlayerNumbers,
    bots: dict[str, tuple[int, int]] | None = None,
    in_group: bool = True,
) -> str:
    """/yo whole (`numbers_pages` is what is sent)."""
    title, blocks = _numbers(t, name, here, everywhere, bots, in_group)
    return "\n\n".join([title, *blocks])


def numbers_pages(
    t: Translator,
    name: str,
    here: PlayerNumbers,
    everywhere: PlayerNumbers,
    bots: dict[str, tuple[int, int]] | None = None,
    in_group: bool = True,
    more: Sequence[str] = (),
) -> list[str]:
    """/yo in pages a phone shows whole, its title on each: this group's numbers, every
    group's, against the bots, then `more` (what costs them most, their tournaments)."""
    title, blocks = _numbers(t, name, here, everywhere, bots, in_group)
    return paginate([*blocks, *(["\n".join(more)] if more else [])], head=title)


def _numbers(
    t: Translator,
    name: str,
    here: PlayerNumbers,
    everywhere: PlayerNumbers,
    bots: dict[str, tuple[int, int]] | None,
    in_group: bool,
) -> tuple[str, list[str]]:
    """/yo's title and blocks: a player's numbers in this group and in every group; one block
    where the two are the same (every match of theirs was in this group; asked in private,
    "here" is every group); their matches against the bots."""
    title = t("yo.title", name=escape(_name(name, 24)))
    blocks = []
    groups = [(t("yo.here"), here), (t("yo.everywhere"), everywhere)]
    if not in_group:
        groups = groups[1:]
    elif everywhere.played == here.played:  # (here's matches are among everywhere's)
        groups = [(t("yo.here_only") if here.played else t("yo.everywhere"), here)]
    for label, numbers in groups:
        if numbers.played == 0:  # (with practices below: "sin partidas" alone read as none)
            none = t("yo.none_groups") if bots else t("yo.none")
            blocks.append(f"<b>{label}</b>\n{none}")
            continue
        s = numbers.totals
        rate = round(100 * numbers.won / numbers.played)
        lines = [
            f"<b>{label}</b>",
            t("yo.matches", played=numbers.played, won=numbers.won, rate=rate),
            t("yo.envidos", wanted=s.envidos_wanted, won=s.envidos_won,
              best=numbers.best_envido)
            if s.envidos_wanted and numbers.best_envido  # (no envido played: no best to tell)
            else t("yo.envidos_none", wanted=s.envidos_wanted, won=s.envidos_won),
            t("yo.flores", n=s.flores),
            t("yo.trucos", chanted=s.trucos_chanted, won=s.trucos_won),
            t("yo.mazos", n=s.mazos),
        ]  # fmt: skip
        if numbers.partner:
            lines.append(
                t(
                    "yo.partner",
                    name=escape(_name(numbers.partner, 20)),
                    count=numbers.partner_matches,
                )
            )
        blocks.append("\n".join(lines))
    if bots:
        lines = [f"<b>{t('yo.bots')}</b>"]
        for level, (played, won) in bots.items():
            lines.append(
                t("yo.bot_line", level=t(f"bot.level.{level}"), played=played, won=won,
                  lost=played - won)
            )  # fmt: skip
        blocks.append("\n".join(lines))
    return title, blocks


def league_line(
    t: Translator, changes: Sequence[RatingChange], rows: Sequence[Standing] = ()
) -> str | None:
    """The league after the match in one paragraph, for the group's end of the match: each
    ranked player's place and level with its change (rounded once, so before + change = after
    as shown) in a line, and those not ranked yet together, by how many matches they have
    left ("Ana y Beto entran a /tabla en 4 partidas más"): said once for all."""
    ranked = [r for r in rows if r.played >= PROVISIONAL_MATCHES]
    place = {r.user_id: pos for pos, r in enumerate(ranked, start=1)}
    of = {r.user_id: r for r in rows}
    parts = []
    waiting: dict[int, list[str]] = {}
    for change in changes:
        name = escape(_name(change.name, 20))
        row = of.get(change.user_id)
        if row is None:
            continue
        if change.user_id not in place:
            waiting.setdefault(PROVISIONAL_MATCHES - row.played, []).append(name)
            continue
        before, after = round(change.before, 1), round(change.after, 1)
        parts.append(
            t("match.rating_short", name=name, place=place[change.user_id],
              after=f"{after:.1f}", delta=f"{after - before:+.1f}")
        )  # fmt: skip
    lines = [t("match.league", parts=" · ".join(parts))] if parts else []
    for left in sorted(waiting):
        names = waiting[left]
        if len(names) == 1:
            lines.append(t("match.provisional", names=names[0], count=left))
        else:
            joined = t("side.pair", a=", ".join(names[:-1]), b=names[-1])
            lines.append(t("match.provisional_many", names=joined, count=left))
    return "\n".join(lines) if lines else None


def rating_lines(
    t: Translator, changes: Sequence[RatingChange], rows: Sequence[Standing] = ()
) -> list[str]:
    """Each player after the match, as /tabla shows them: their place and level with the
    change (rounded once, so before + change = after as shown) and their wins and losses; a
    player not yet ranked is told how many matches are left instead of a level that means
    little yet (it starts at 0 and may go below)."""
    ranked = [r for r in rows if r.played >= PROVISIONAL_MATCHES]
    place = {r.user_id: pos for pos, r in enumerate(ranked, start=1)}
    of = {r.user_id: r for r in rows}
    lines = []
    for change in changes:
        name = escape(_name(change.name, 20))
        row = of.get(change.user_id)
        if row is None:
            continue
        if change.user_id not in place:
            left = PROVISIONAL_MATCHES - row.played
            lines.append(t("match.rating_new", name=name, won=row.won, lost=row.lost, count=left))
            continue
        before, after = round(change.before, 1), round(change.after, 1)
        lines.append(
            t(
                "match.rating",
                name=name,
                place=place[change.user_id],
                after=f"{after:.1f}",
                delta=f"{after - before:+.1f}",
                won=row.won,
                lost=row.lost,
            )
        )
    return lines

