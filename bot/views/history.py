"""A group's finished matches: the list, one match hand by hand, its JSON export, its deals
checked against the revealed seed. Everything is rebuilt from the action log by the engine."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, tzinfo

from bot.callbacks import PageData, PageView, pack
from bot.game import Action, ActionKind, AnyAction, Deal, MatchConfig
from bot.game.ending import ending_of
from bot.game.fair import commitment, fair_deal
from bot.game.record import HandRecord
from bot.game.seats import duel_pair, seats, side_of
from bot.i18n import Translator
from bot.model.records import MatchRecord
from bot.model.table import Table
from bot.views.common import Button, Keys, Seating, card_name, cards_text, phone_lines
from bot.views.ending import points_texts, said_lines
from bot.views.pages import PAGE_LINES, pager, paginate

EXPORT_FORMAT = "truco-bot/match/2"  # 2: "termination" (`Termination`) for 1's "outcome"


def when(at: float | None, zone: tzinfo) -> str:
    return datetime.fromtimestamp(at, zone).strftime("%d/%m %H:%M") if at else "—"


def history_view(
    t: Translator, matches: Sequence[tuple[MatchRecord, Seating]], zone: tzinfo
) -> tuple[str, Keys | None]:
    """/historial: the last matches, newest first, with a button to open each."""
    if not matches:
        return t("historial.empty"), None
    lines = [t("historial.title"), ""]
    buttons = []
    for record, who in matches:
        number = record.table_id
        scores = f"{record.scores[0]}–{record.scores[1]}"
        minutes = round(((record.ended_at or 0) - (record.started_at or 0)) / 60)
        winner = record.winner
        result = (
            t("historial.won", side=who.side(t, winner), count=who.size(winner))
            if winner is not None
            else t("historial.no_winner")
        )
        if record.conceded:
            result += " " + t("historial.conceded")
        if record.hinted:  # somebody asked for a hint: not rated
            result += " " + t("historial.hinted")
        line = t(
            "historial.line",
            number=number,
            date=when(record.ended_at, zone),
            sides=f"{who.side(t, 0)} vs {who.side(t, 1)}",
            scores=scores,
            result=result,
            count=record.hands,
            minutes=max(minutes, 0),
        )
        if phone_lines("\n".join([*lines, line])) > PAGE_LINES:
            break  # the newest that a phone shows whole: the list is not a reading to page
        lines.append(line)
        # "h": opened from this list, so the match comes as a reply below it (the list
        # stays); "m" turns the pages of a match's own message.
        buttons.append(Button(f"🔎 {number}", pack(PageData(PageView.MATCH, number))))
    text = "\n".join(lines)
    rows = [buttons[i : i + 5] for i in range(0, len(buttons), 5)]
    return text, Keys.of(rows)


def _action_text(t: Translator, who: Seating, action: Action) -> str:
    if action.kind is ActionKind.PLAY and action.card is not None:
        return f"{who.seat(action.seat)} {card_name(t, action.card)}"
    return t("call.said", name=who.seat(action.seat), chant=t(f"kind.{action.kind.value}"))


def hand_block(t: Translator, who: Seating, config: MatchConfig, hand: HandRecord) -> str:
    log = hand.log
    if log.duel is None:
        mano = seats(len(log.dealt)).next(log.dealer)
        lines = [
            t("partida.hand", number=log.number, dealer=who.seat(log.dealer), mano=who.seat(mano))
        ]
        playing: Sequence[int] = range(len(log.dealt))
    else:  # one duel of a pica-pica hand (R39): its two seats, their cards
        playing = duel_pair(len(log.dealt), log.dealer, log.duel)
        first, second = (who.seat(seat) for seat in playing)
        lines = [
            t("partida.duel", number=log.number, duel=log.duel + 1, first=first, second=second)
        ]
    for seat in playing:
        lines.append(f"🃏 {who.seat(seat)}: {cards_text(t, log.dealt[seat])}")
    if log.history:
        lines.append(" · ".join(_action_text(t, who, a) for a in log.history))
    ending = ending_of(config, log)
    lines += said_lines(t, who, ending)
    lines += [x[:1].upper() + x[1:] for x in points_texts(t, who, ending)]  # ("Los de Ana +2")
    lines.append(
        t("partida.after", side0=who.short(t, 0), side1=who.short(t, 1),
          a=hand.end_scores[0], b=hand.end_scores[1])
    )  # fmt: skip
    return "\n".join(lines)


def match_pages(
    t: Translator, who: Seating, table: Table, hands: Sequence[HandRecord], zone: tzinfo
) -> list[str]:
    """/partida <n>: a head, then each hand with its cards (the match is over), chants, values
    and points, in pages a phone shows whole (a hand never cut), the head on each."""
    head = t("partida.title", number=table.id, date=when(table.ended_at, zone))
    head += "\n" + f"{who.side(t, 0)} vs {who.side(t, 1)}"
    return paginate([hand_block(t, who, table.config, hand) for hand in hands], head=head)


def match_markup(
    number: int, page: int, pages: int, t: Translator, watch: str | None = None
) -> Keys:
    """A match's pages, its export and its deals verified; with `watch` (the web table's direct
    link, when the operator set one up) ▶️ to watch it again there."""
    rows = [pager(lambda n: PageData(PageView.PAGE, number, n), page, pages)] if pages > 1 else []
    rows.append(
        [
            Button(t("button.export"), pack(PageData(PageView.EXPORT, number))),
            Button(t("button.verify"), pack(PageData(PageView.VERIFY, number))),
        ]
    )
    if watch:
        rows.append([Button(t("button.watch_match"), url=watch)])
    return Keys.of(rows)


def verify_text(t: Translator, table: Table, deals: Sequence[Deal]) -> str:
    """/verificar <n>: the commitment, the seed, and every deal recomputed from it."""
    number = table.id
    if table.seed is None:
        return t("verificar.no_seed", number=number)
    sealed = commitment(table.seed)
    if table.is_open or table.state is None:  # a conceded or cancelled match is over too
        return t("verificar.running", number=number, commitment=sealed)
    players = table.config.players
    good = [i + 1 for i, deal in enumerate(deals) if fair_deal(table.seed, i + 1, players) == deal]
    first = fair_deal(table.seed, 1, players).hands[0]
    example = ", ".join(
        f"{c.code} → {hashlib.sha256(f'{table.seed}:1:{c.code}'.encode()).hexdigest()[:8]}…"
        for c in first
    )
    ok = len(good) == len(deals)
    lines = [
        t("verificar.title", number=number),
        "",
        t("verificar.commitment", commitment=sealed),
        t("verificar.seed", seed=table.seed),
        t("verificar.hash_ok"),
        t("verificar.deals_ok" if ok else "verificar.deals_bad", good=len(good), count=len(deals)),
        "",
        t("verificar.how"),
        t("verificar.example", example=example),
    ]
    if not ok:
        bad = [str(i + 1) for i in range(len(deals)) if i + 1 not in good]
        for most in range(len(bad), 0, -1):  # the first that a phone shows whole with the rest
            hands = ", ".join(bad[:most]) + ("…" if most < len(bad) else "")
            said = t("verificar.bad_hands", hands=hands)
            if phone_lines("\n".join([*lines, said])) <= PAGE_LINES:
                break
        lines.append(said)
    return "\n".join(lines)


def export_json(
    table: Table,
    names: dict[int, str],
    record: MatchRecord | None,
    log: Sequence[AnyAction],
) -> bytes:
    """A finished match as JSON: enough to replay it with the engine (`replay(config, log)`)
    and to check its deals against the seed."""
    data = {
        "format": EXPORT_FORMAT,
        "match": table.id,
        "chat_id": table.chat_id,
        "config": table.config.options(),
        "players": [
            {"seat": seat, "side": side_of(seat), "name": names.get(user, "?") if user else None}
            for seat, user in enumerate(table.seats)
        ],
        "started_at": table.started_at,
        "ended_at": table.ended_at,
        "termination": record.termination.value if record else None,
        "winner_side": record.winner if record else None,
        "scores": list(table.state.scores) if table.state else [0, 0],
        "commitment": commitment(table.seed) if table.seed else None,
        "seed": table.seed,
        "log": [a.code for a in log],
    }
    return json.dumps(data, ensure_ascii=False, indent=1).encode()
