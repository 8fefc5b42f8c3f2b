"""What the web table shows one viewer, as JSON: a drawing of the same `Scene` the Telegram board
and hand message draw (the public view, or a seated player's), and nothing the viewer may not
see. Texts (the pending chant, the betting, the end of a hand) are the views' own, so both front
ends say the same thing; the page draws the cards, the seats and the fósforos itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.ai.signs import SIGNS
from bot.game import (
    Action,
    ActionKind,
    Card,
    Observation,
    Phase,
    envido_value,
    flor_value,
    has_flor,
)
from bot.game.ending import HandEnding, RoundEnd
from bot.game.events import Said
from bot.game.scoring import fosforos, malas_buenas
from bot.game.seats import duel_pair, side_of
from bot.i18n import Translator, translator
from bot.league.tournament import Tournament, standings
from bot.model.table import Call, Note, Table, TableStatus
from bot.views.common import Seating, plain, rules_line
from bot.views.common import card_name as card_words
from bot.views.ending import record_lines
from bot.views.scene import Scene, scene_of
from bot.views.table import (
    BUTTON_ORDER,
    answered_bets,
    bets,
    helper_of,
    kind_label,
    pending_line,
    status_lines,
)
from bot.views.tournament import entry_name, round_title, rules_text
from bot.web.cards import card_name


@dataclass(frozen=True)
class TimedOut:
    """A move the turn's timer made for a seat (`action`), or a side it made concede: what a
    page is to say of it, as Telegram's board says it. `version`: the table's version it made;
    `hand`: the hand it was made in."""

    version: int
    hand: int
    seat: int
    action: Action | None
    conceded: bool = False


def _timed_out(t: Translator, who: Seating, table: Table, timed: TimedOut) -> str:
    """ "⏰ Se le acabó el tiempo a Ana: va su carta más baja, el 4 de copa 🍷." """
    if timed.conceded:
        side = table.geometry.side(timed.seat)
        return plain(t("timeout.conceded", side=who.side(t, side), count=who.size(side)))
    action = timed.action
    assert action is not None
    what = (
        t("timeout.card", card=card_words(t, action.card))
        if action.card is not None
        else t("timeout.said", chant=kind_label(t, action.kind))
    )
    return plain(t("timeout.acted", name=who.seat(timed.seat), action=what))


def _buenas(points: int, obs: Observation) -> bool:
    halves = malas_buenas(points, obs.config.target)
    return halves is not None and halves[1] > 0


def _actions(t: Translator, obs: Observation, language: str) -> list[dict[str, Any]]:
    """The seat's legal actions now, in the buttons' order: cards first."""
    out: list[dict[str, Any]] = []
    for action in obs.actions:
        if action.card is not None:
            label = card_name(action.card, language)
            out.append({"code": action.code, "card": action.card.code, "label": label})
    order = {kind: i for i, kind in enumerate(BUTTON_ORDER)}
    chants = sorted((a for a in obs.actions if a.card is None), key=lambda a: order[a.kind])
    out += [
        {"code": a.code, "label": kind_label(t, a.kind), "quiet": a.kind is ActionKind.MAZO}
        for a in chants
    ]  # (mazo: a quieter control, apart from the chants)
    return out


def _round_winner(obs: Observation, index: int) -> int | None:
    """The seat whose card won round `index` of the hand in play (None: a parda)."""
    side = obs.results[index]
    if side is None:
        return None
    plays = obs.rounds[index]
    ours = [(c.strength, -i, s) for i, (s, c) in enumerate(plays) if side_of(s) == side]
    return max(ours)[2]


def _card(card: Card, language: str, seat: int | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = {"card": card.code, "name": card_name(card, language)}
    if seat is not None:
        shown["seat"] = seat
    return shown


def _round(round_: RoundEnd, language: str) -> dict[str, Any]:
    return {
        "plays": [_card(c, language, s) for s, c in round_.plays],
        "winner": round_.winner,
        "parda": round_.parda,
    }


def _word(t: Translator, value: int | None) -> str:
    """A value said aloud at the table: "27", or "Son buenas"."""
    if value is not None:
        return str(value)
    text = t("said.son_buenas")
    return text[:1].upper() + text[1:]


def _said(calls: Sequence[tuple[int, str]], values: Sequence[tuple[int, int | None]],
          t: Translator) -> list[dict[str, Any]]:  # fmt: skip
    """What each seat said aloud in a hand, in order, for the page's bubbles at the seats:
    the chants, answers and mazos (`n`: their count so far) then the values (`v`)."""
    out: list[dict[str, Any]] = [
        {"seat": seat, "text": text, "key": f"c{n}"} for n, (seat, text) in enumerate(calls)
    ]
    out += [
        {"seat": seat, "text": _word(t, value), "key": f"v{n}"}
        for n, (seat, value) in enumerate(values)
    ]
    return out


def _said_now(t: Translator, calls: Sequence[Call]) -> list[dict[str, Any]]:
    """The hand in play's words, from the table's recent calls."""
    chants: list[tuple[int, str]] = []
    values: list[tuple[int, int | None]] = []
    for call in calls:
        if isinstance(call.what, ActionKind) and call.seat is not None:
            chants.append((call.seat, kind_label(t, call.what)))
        elif call.what is Note.MAZO and call.seat is not None:
            chants.append((call.seat, kind_label(t, ActionKind.MAZO)))
        elif call.what in (Note.ENVIDO_VALUES, Note.FLOR_VALUES):
            values += call.values
    return _said(chants, values, t)


def _said_then(t: Translator, ending: HandEnding) -> list[dict[str, Any]]:
    """An ended hand's words, from its record."""
    chants = [(a.seat, kind_label(t, a.kind)) for a in ending.calls]
    said: tuple[Said, ...] = ending.envido_said + ending.flor_said
    return _said(chants, [(s.seat, s.value) for s in said], t)


def _ended(t: Translator, scene: Scene, ending: HandEnding, language: str) -> dict[str, Any]:
    """A hand's end for the page: its rounds with who won each, its last card, the points by
    side and the lines that say why (the same as the board's record)."""
    return {
        "number": ending.number,
        "duel": ending.duel,  # a pica-pica hand's duel (0-2), None for a redondo
        "rounds": [_round(r, language) for r in ending.rounds],
        "last": _card(ending.last[1], language, ending.last[0]) if ending.last else None,
        "winner": ending.winner,
        "points": [ending.by_side(side) for side in (0, 1)],
        "lines": [plain(line) for line in record_lines(t, scene.who, ending)],
        "said": _said_then(t, ending),
    }


def table_view(
    table: Table,
    names: dict[int, str],
    seat: int | None,
    ended: Sequence[HandEnding] = (),
    timed: Sequence[TimedOut] = (),
) -> dict[str, Any]:
    """The table as `seat` sees it (None: the public view), with the señas of the hand its
    partners showed it and those it caught; `ended`: the hands whose end the page is to
    show; `timed`: the last moves the turn's timer made, for the page to say."""
    t = translator(table.language)
    scene = scene_of(t, table, names, seat, ended)
    who = scene.who
    view: dict[str, Any] = {
        "id": table.id,
        "version": table.version,  # the page keeps the newest it has seen (answers and pushes race)
        "status": table.status.value,
        "language": table.language,
        "rules": plain(rules_line(t, table.config)),
        "players": table.config.players,
        "team_size": table.geometry.team_size,
        "target": table.config.target,
        "turn_seconds": table.turn_seconds,  # (0: sin tiempo)
        "deadline": table.deadline,  # the core's time when the seat(s) waited on run out
        "seat": seat,
        "seats": [
            {"name": plain(who.names[s]), "bot": table.bot_level(s) is not None, "side": side_of(s)}
            for s in table.geometry.all
        ],
    }
    obs = scene.obs
    if obs is None:
        return view
    language = table.language
    view.update(
        step=obs.step,
        phase=obs.phase.value,
        winner=obs.winner,
        scores=list(obs.scores),
        fosforos=[
            {"squares": fosforos(p)[0], "loose": fosforos(p)[1], "buenas": _buenas(p, obs)}
            for p in obs.scores
        ],
        hand_number=obs.hand_number,
        duel=obs.duel,  # a pica-pica hand's duel (0-2) and its two seats; None in a redondo
        duel_seats=list(obs.duel_seats) if obs.duel_seats else None,
        dealer=obs.dealer,
        mano=obs.mano,
        turn=obs.turn,
        hand_value=obs.hand_value,
        rounds=[[_card(c, language, s) for s, c in plays] for plays in obs.rounds],
        results=list(obs.results),
        winners=[_round_winner(obs, r) for r in range(len(obs.results))],
        cards_left=list(obs.cards_left),
        waiting_on=list(obs.waiting_on),
        ended=[_ended(t, scene, e, language) for e in scene.ended],
        said=_said_now(t, scene.calls) if not scene.over else [],
        status_lines=[plain(x) for x in status_lines(t, who, obs)],
        bets=[plain(x) for x in bets(t, who, answered_bets(obs, scene.calls))],
        pending=(
            plain(pending_line(t, who, obs))
            if obs.phase is Phase.PLAY and obs.pending_chant is not None
            else None
        ),
        seal=scene.seal,
        over=scene.over,
        timeouts=[
            {"key": x.version, "hand": x.hand, "seat": x.seat, "text": _timed_out(t, who, table, x)}
            for x in timed
        ],
    )
    if obs.duel is not None and seat is not None:  # the duel this seat plays in this hand
        view["my_duel"] = next(
            d for d in range(3) if seat in duel_pair(table.config.players, obs.dealer, d)
        )
    if seat is not None:
        if obs.dealt and obs.config.flor and has_flor(obs.dealt):
            view["mine"] = plain(t("hand.flor", value=flor_value(obs.dealt)))
        elif obs.dealt and not any(obs.flor_declared):
            view["mine"] = plain(t("hand.envido", value=envido_value(obs.dealt)))
        view["hand"] = [_card(c, language) for c in obs.cards]
        playing = table.status is TableStatus.PLAYING
        view["actions"] = _actions(t, obs, language) if playing else []
        if playing and obs.actions:
            view["hint"] = table.hints  # 💡
            helper = helper_of(table, obs)
            if helper is not None and table.handed != obs.step:  # 🤖 Que decida
                view["helper"] = plain(t("button.hand_off", name=who.seat(helper)))
            elif helper is not None:
                view["handed"] = plain(t("hand.handed", name=who.seat(helper)))
        if table.geometry.partners(seat) and playing and obs.duel is None:  # (R40)
            mine = [s.sign for s in table.hand_signs() if s.seat == seat]
            view["signs"] = [
                {"key": k, "label": t(f"sign.{k}"), "meaning": t(f"sign.meaning.{k}"),
                 "made": k in mine}
                for k in SIGNS
            ]  # fmt: skip
            view["signs_made"] = [f"{t(f'sign.{k}')} ({t(f'sign.meaning.{k}')})" for k in mine]
            seen = []
            for made in table.signs_to(seat):
                meaning = f"{t(f'sign.{made.sign}')} ({t(f'sign.meaning.{made.sign}')})"
                seen.append(f"{plain(who.seat(made.seat))}: {meaning}")
            for made in table.signs_caught_by(seat):  # a rival's, caught (F18)
                meaning = f"{t(f'sign.{made.sign}')} ({t(f'sign.meaning.{made.sign}')})"
                seen.append(plain(t("sign.caught_web", name=who.seat(made.seat), sign=meaning)))
            view["signs_seen"] = seen
    return view


def tourney_view(
    tour: Tournament, names: dict[int, str], tables: dict[tuple[int, int], list[Table]]
) -> dict[str, Any]:
    """A tournament for the page to draw: each round's ties (their entries, score, winner,
    the live table to watch and the finished ones to replay), a liguilla's standings, the
    champion. `tables`: each tie's tables, in the order they were opened."""
    t = translator(tour.language)

    def name(entry: int | None) -> str | None:
        return plain(entry_name(t, tour, entry, names)) if entry is not None else None

    rounds = []
    for round_ in range(tour.rounds):
        ties = []
        for fixture in (f for f in tour.fixtures if f.round == round_):
            mine = tables.get(fixture.key, [])
            live = next((x.id for x in mine if x.is_open), None)
            played = [x.id for x in mine if x.status is TableStatus.FINISHED]
            if tour.series > 1:
                won = fixture.wins()
                score = f"{won[0]}–{won[1]}" if fixture.games else None
            else:
                points = fixture.points()
                score = f"{points[0]}–{points[1]}" if fixture.games else None
            winner = None if not fixture.decided else "a" if fixture.winner == fixture.a else "b"
            ties.append({
                "a": name(fixture.a), "b": name(fixture.b), "score": score, "winner": winner,
                "bye": fixture.bye, "walkover": fixture.walkover, "live": live,
                "played": played,
            })  # fmt: skip
        rounds.append({"name": round_title(t, tour, round_), "ties": ties})
    playing = {  # the entries with a match in play now (an arena's "en juego")
        e for f in tour.fixtures if any(x.is_open for x in tables.get(f.key, []))
        for e in (f.a, f.b) if e is not None
    }  # fmt: skip
    table = []
    for place, line in enumerate(standings(tour), start=1):  # (none for a knockout)
        table.append({
            "place": place, "name": name(line.entry), "played": line.played,
            "won": line.score, "diff": line.points_for - line.points_against,
            "points": line.score,
            "buchholz": line.buchholz, "fire": line.fire,
            "playing": line.entry in playing, "paused": line.entry in tour.paused,
        })  # fmt: skip
    return {
        "id": tour.id,
        "title": plain(t("tourney.title", number=tour.number)),
        "rules": rules_text(t, tour),
        "status": tour.status.value,
        "format": tour.format.value,
        "champion": name(tour.champion),
        "rounds": rounds,
        "standings": table,
        "language": tour.language,
    }
