"""Tournaments in a group: /torneo (open sign-ups, or show the one open here), /torneos (the
group's past ones and their champions), and the buttons of a tournament's message."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import tzinfo
from html import escape
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from telegram import CallbackQuery, Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.callbacks import TOURNEY_KEEP, PageData, PageView, TourneyData, TourneyOp, pattern
from bot.handlers.common import (
    MODE_WORDS,
    can_write,
    check_member,
    in_group,
    is_admin,
    refusal_text,
    reply,
    see,
    tapped,
    tapped_message,
    thread_of,
)
from bot.i18n import Translator
from bot.league.formats import ARENA_MINUTES, SWISS_ROUNDS
from bot.league.later import parse_when
from bot.league.tournament import Format, Status, Tournament
from bot.model.refusals import Refused
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.telegram.records import FRONT, TelegramTable, board_record, page_record, tourney_key
from bot.telegram.rows import edit_row, text_row, tourney_row
from bot.views.tournament import past_text, people_of

log = logging.getLogger(__name__)

FORMAT_WORDS = {
    "ko": Format.KNOCKOUT, "eliminacion": Format.KNOCKOUT, "eliminación": Format.KNOCKOUT,
    "directa": Format.KNOCKOUT, "copa": Format.KNOCKOUT,
    "liga": Format.LEAGUE, "liguilla": Format.LEAGUE, "todoscontratodos": Format.LEAGUE,
    "suizo": Format.SWISS, "swiss": Format.SWISS,
    "relampago": Format.ARENA, "relámpago": Format.ARENA, "arena": Format.ARENA,
}  # fmt: skip
SERIES_WORDS = {"bo3": 3, "x3": 3, "mejordetres": 3, "alotres": 3, "bo1": 1, "x1": 1}


def parse_tourney(args: list[str], base: Tournament) -> tuple[Tournament, str | None]:
    """`/torneo liga 2v2 15 bo3`, `/torneo suizo 5`, `/torneo relampago 60`: the options over
    `base`, or the first word not understood (a number of rounds only after `suizo`; an
    arena's minutes right after `relampago`, so that `relampago 30` is 30 minutes)."""
    t = base
    after_arena = False
    for raw in args:
        word = raw.lower().replace("-", "")
        just_after, after_arena = after_arena, FORMAT_WORDS.get(word) is Format.ARENA
        if just_after and word.isdigit() and int(word) in ARENA_MINUTES:
            t = replace(t, minutes=int(word))
        elif word in FORMAT_WORDS:
            t = replace(t, format=FORMAT_WORDS[word])
        elif word in MODE_WORDS:
            t = replace(t, config=replace(t.config, players=MODE_WORDS[word]))
        elif word in ("15", "30"):
            t = replace(t, config=replace(t.config, target=int(word)))
        elif word in ("conflor", "flor"):
            t = replace(t, config=replace(t.config, flor=True))
        elif word in ("sinflor", "noflor"):
            t = replace(t, config=replace(t.config, flor=False))
        elif word in SERIES_WORDS:
            t = replace(t, series=SERIES_WORDS[word])
        elif t.format is Format.SWISS and word.isdigit() and int(word) in SWISS_ROUNDS:
            t = replace(t, planned=int(word))
        else:
            return base, raw[:32]
    return t, None


async def torneo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, r, t, _ = command
    thread = thread_of(message)
    open_one = await r.core.tournaments.open_in(chat.id, thread)
    if open_one is not None:
        if context.args:
            await reply(context, message, t("refusal.tourney_already_open"))
            return
        # The tournament's message, sent again below (and edited from then on); the earlier
        # one becomes a stub that points down (no buttons that look alive).
        key = tourney_key(open_one.id)
        earlier = TelegramTable.of(await r.tables.records.of(FRONT, key)).board
        await r.tables.records.put([board_record(key, None)])
        rows = [tourney_row(chat.id, open_one.id)]
        if earlier:
            stub = t("tourney.moved", number=open_one.number)
            rows.insert(0, edit_row(chat.id, earlier, stub))
        await r.outbox.send(rows)
        return
    defaults = await r.core.chats.defaults(chat.id)
    base = Tournament(0, chat.id, thread, user.id, t.language, 0.0, 0.0)
    base = replace(base, config=replace(defaults.config, target=15, players=2))
    if defaults.timer:
        base = replace(base, turn_seconds=max(60, min(300, defaults.timer)))
    zone_name = defaults.zone or r.settings.timezone
    try:
        zone: tzinfo = ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        zone, zone_name = r.settings.zone, ""
    later = parse_when(list(context.args or []), r.core.clock(), zone)
    if later.error is not None:
        why = "tourney.time_past" if later.error == "past" else "tourney.bad_time"
        await reply(context, message, t(why) + t("tourney.usage"))
        return
    base = replace(base, starts_at=later.starts_at, zone=zone_name)
    chosen, bad = parse_tourney(later.rest, base)
    if bad is not None:
        await reply(context, message, t("tourney.bad_arg", arg=escape(bad)) + t("tourney.usage"))
        return
    await see(r, user)
    try:
        await r.core.tournaments.open(chat.id, thread, user.id, t.language, chosen)
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))


async def torneos(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, _, chat, r, t, _ = command
    past = await r.core.tournaments.past(chat.id)
    names = await r.core.people.names(u for tour in past for u in people_of(tour))
    await reply(context, message, past_text(t, past, names))


async def _tap(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: TourneyData,
    t: Translator,
) -> None:  # fmt: skip
    user = query.from_user
    tours = r.core.tournaments
    tour = await tours.get(data.tourney)
    if tour is None:
        raise Refusal(Refused.NO_TOURNEY)
    await see(r, user)
    message = query.message
    in_group_now = message is not None and message.chat.id == tour.chat_id

    async def admin() -> bool:  # (asked of Telegram only where it matters)
        return user.id != tour.opener_id and await is_admin(context, tour.chat_id, user.id)

    if data.op is TourneyOp.SIGN:
        await check_member(context, tour.chat_id, user.id, tapped_in_group=in_group_now)
        await tours.sign(tour.id, user.id)
        await query.answer(t("tourney.signed_you"))
    elif data.op is TourneyOp.PARTNER:
        await check_member(context, tour.chat_id, user.id, tapped_in_group=in_group_now)
        if not await can_write(context, r, user, t):
            await query.answer(t("tourney.partner_needs_start"), show_alert=True)
            return
        _, token = await tours.invite(tour.id, user.id)
        link = f"https://t.me/{r.deliverer.bot_username}?start=tp{token}"
        await r.outbox.send([text_row(user.id, t("tourney.partner_link", link=link))])
        await query.answer(t("tourney.partner_sent"))
    elif data.op is TourneyOp.UNSIGN:
        await tours.unsign(tour.id, user.id)
        await query.answer(t("tourney.unsigned_you"))
    elif data.op is TourneyOp.OPTION:
        await tours.option(tour.id, user.id, data.arg, await admin())
        await query.answer()
    elif data.op is TourneyOp.START:
        await tours.begin(tour.id, user.id, await admin())
        await query.answer(t("tourney.started_answer"))
    elif data.op is TourneyOp.CANCEL:
        await tours.cancel(tour.id, user.id, await admin(), finish_matches=data.arg == TOURNEY_KEEP)
        await query.answer(t("tourney.cancelled_answer"))
    else:  # TourneyOp.PAUSE
        _, paused = await tours.pause(tour.id, user.id)
        await query.answer(t("tourney.paused_you" if paused else "tourney.back_you"))


async def _page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """◀️ ▶️ under a tournament's group message: another page of its bracket, kept as the page
    it shows (results edit that page) while play stays where it was."""
    message = tapped_message(query)
    tour = await r.core.tournaments.get(data.key)
    if tour is None or tour.chat_id != message.chat.id:
        raise Refusal(Refused.NO_TOURNEY)
    pages, now = await r.deliverer.tourney_pages(tour)
    if tour.status is Status.SIGNUP or data.page >= len(pages):
        await query.answer(t("refusal.stale_page"))
        return
    await r.tables.records.put([page_record(tour.id, data.page, now)])
    await r.outbox.send([tourney_row(tour.chat_id, tour.id)])
    await query.answer()


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler(["torneo", "tournament"], torneo))
    app.add_handler(CommandHandler(["torneos", "tournaments"], torneos))
    app.add_handler(CallbackQueryHandler(tapped(TourneyData, _tap), pattern=pattern(TourneyData)))
    page = tapped(PageData, _page)
    app.add_handler(CallbackQueryHandler(page, pattern=pattern(PageData, PageView.TOURNEY)))
