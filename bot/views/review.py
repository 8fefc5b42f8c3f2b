"""🔎 A review after the match in words: the decisions that cost the most, each as the person
saw it, what they did and what difícil would have done, with what each was worth; the good
decisions; and, for /yo, what a person does most often that costs them points."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from babel.numbers import format_decimal

from bot.ai.review import PARTNER, RIVAL, YOU, Luck, Moment, Review, Worth
from bot.callbacks import PageData, PageView, pack
from bot.game import Action, ActionKind, Card
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.i18n import Translator
from bot.views.common import Button, Keys, Seating, card_name, card_short, plain
from bot.views.hints import odds_text
from bot.views.pages import pager, paginate
from bot.views.table import kind_label

K = ActionKind
WHO = {YOU: "review.who.you", PARTNER: "review.who.partner", RIVAL: "review.who.rival"}
Who = dict[int, str]  # who is who from the person's seat (YOU, PARTNER, RIVAL): locale keys


def who_of(review: Review, who: Seating | None) -> Who:
    """The words for who is who in `review`, its partners' agreeing with their names ("tu
    compañera": a computer partner named so; without `who`, the generic words)."""
    if who is None:
        return WHO
    partners = who.table.partners(review.seat)
    return {**WHO, PARTNER: who.agree(WHO[PARTNER], partners)}


def number(t: Translator, value: float, pattern: str = "0.0") -> str:
    """ "1,8" in Spanish, "1.8" in English."""
    return format_decimal(abs(value), format=pattern, locale=t.language)


def signed(t: Translator, value: float) -> str:
    """ "+1,2", "−0,8" (a true minus sign), "0,0"."""
    shown = number(t, value)
    if round(value, 1) == 0:
        return shown
    return ("+" if value > 0 else "−") + shown


def bare(t: Translator, kind: ActionKind) -> str:
    """A chant's name inside a sentence: "truco", "real envido"."""
    label = kind_label(t, kind).strip("¡!")
    return label[:1].lower() + label[1:]


def inner(text: str) -> str:
    """A sentence's subject inside another sentence: "querer el retruco"."""
    return text[:1].lower() + text[1:]


def cards_line(t: Translator, codes: Sequence[str]) -> str:
    """ "2🍷 y 4🪵"."""
    shown = [card_short(Card.parse(c)) for c in codes]
    if len(shown) <= 1:
        return "".join(shown)
    return t("review.and", first=", ".join(shown[:-1]), last=shown[-1])


def act_text(t: Translator, m: Moment, code: str) -> str:
    """A move as the subject of a sentence: "Querer el retruco", "Tirar el 4 de copa 🍷"."""
    return move_text(t, m.pending, code)


def move_text(t: Translator, answering: str | None, code: str) -> str:
    """A move as the subject of a sentence, `answering` the chant waiting for an answer."""
    action = Action.parse(code)
    kind = action.kind
    pending = K(answering) if answering else None
    if kind is K.PLAY and action.card is not None:
        return t("review.act.play", card=card_name(t, action.card))
    if kind is K.MAZO:
        return t("review.act.mazo")
    if kind in (K.QUIERO, K.NO_QUIERO) and pending is not None:
        key = "review.act.want" if kind is K.QUIERO else "review.act.refuse"
        return t(key, chant=t(f"review.the.{pending.value}"))
    if kind in TRUCO_CHANTS or kind in ENVIDO_CHANTS:
        if pending is not None:
            return t("review.act.raise", chant=bare(t, kind), over=t(f"review.the.{pending.value}"))
        return t("review.act.chant", chant=bare(t, kind))
    return kind_label(t, kind)


ENVIDOS = frozenset(k.value for k in ENVIDO_CHANTS)


def about_envido(code: str, pending: str | None) -> bool:
    """Whether a move is an envido's: a chant of it, or an answer to one."""
    kind = Action.parse(code).kind
    return kind in ENVIDO_CHANTS or (kind in (K.QUIERO, K.NO_QUIERO) and pending in ENVIDOS)


def worth_text(
    t: Translator, code: str, w: Worth, pending: str | None, envido: float | None = None
) -> str:
    """What a move was worth: "perdías 2" where it gives the hand away, else its mean points and
    how often the hand was theirs; an envido's move, how often the envido was (`envido`: the
    share of the worlds their side held the best one; None: unknown, its points alone), not
    the hand, which it does not decide."""
    action = Action.parse(code)
    if about_envido(code, pending):
        if envido is None:
            return t("review.worth.points", points=signed(t, w.points))
        key = "review.worth.envido_refused" if action.kind is K.NO_QUIERO else "review.worth.envido"
        return t(key, odds=_odds(t, envido), points=signed(t, w.points))
    certain = action.kind is K.MAZO or (
        action.kind is K.NO_QUIERO and pending in {k.value for k in TRUCO_CHANTS}
    )
    if certain and w.won == 0:
        return t("review.worth.lost", points=number(t, w.points, "0.#"))
    return t("review.worth.mean", points=signed(t, w.points), odds=_odds(t, w.won))


def _odds(t: Translator, share: float) -> str:
    """ "6 de cada 10"; under one in ten and over nine in ten said so."""
    tenths = round(share * 10)
    return odds_text(t, tenths) if tenths in (0, 10) else t("review.odds", count=tenths)


def position_text(t: Translator, m: Moment, words: Who = WHO) -> str:
    """ "Mano 7 · ibas 12 a 18 · en la mesa: 7🍷 (rival) · se cantó: truco (vos)"."""
    parts = [t("review.hand", hand=m.hand, mine=m.scores[0], theirs=m.scores[1])]
    if m.table:
        shown = ", ".join(f"{card_short(Card.parse(c))} ({t(words[w])})" for w, c in m.table)
        parts.append(t("review.on_table", cards=shown))
    if m.calls:
        parts.append(t("review.called", calls=calls_text(t, m.calls, words)))
    return " · ".join(parts)


ANSWERS = (K.QUIERO, K.NO_QUIERO)


def calls_text(t: Translator, calls: Sequence[tuple[int, str]], words: Who = WHO) -> str:
    """What was chanted in a hand and how it was answered: "envido (rival), lo quisiste;
    truco (vos)". An answer closes its chants as a sentence of its own (a player read
    "envido (rival), quiero (vos)", a quiero listed as one more chant)."""
    said: list[str] = []
    for who, code in calls:
        kind = K(code)
        if kind in ANSWERS:
            key = "want" if kind is K.QUIERO else "refuse"
            partner = t(words[PARTNER]) if who == PARTNER else ""
            said.append(t(f"review.answer.{key}.{WHO_KEY[who]}", partner=partner) + ";")
        else:
            said.append(f"{bare(t, kind)} ({t(words[who])}),")
    return " ".join(said).rstrip(",;")


WHO_KEY = {YOU: "you", PARTNER: "partner", RIVAL: "rival"}


def held_text(t: Translator, m: Moment) -> str:
    """The cards a decision was made with: the ones still in hand (those played are on the
    table, the position's own line), with the envido where an envido was at stake (the three
    dealt's)."""
    held = cards_line(t, m.held or m.dealt)
    envido = {k.value for k in ENVIDO_CHANTS}
    kinds = {Action.parse(m.made).kind.value, Action.parse(m.best).kind.value, m.pending}
    if kinds & envido:
        return t("review.with_envido", cards=held, envido=m.envido)
    return held


def slip_text(t: Translator, index: int, m: Moment, words: Who = WHO) -> str:
    held = held_text(t, m)
    head = t("review.slip", act=act_text(t, m, m.made), cards=held, cost=number(t, m.cost))
    head = f"{index}. {head}" if index else head
    made = t("review.you_did", move=inner(act_text(t, m, m.made)),
             worth=worth_text(t, m.made, m.made_worth, m.pending, m.envido_won))  # fmt: skip
    best = t("review.dificil_did", move=inner(act_text(t, m, m.best)),
             worth=worth_text(t, m.best, m.best_worth, m.pending, m.envido_won))  # fmt: skip
    return "\n".join([head, "   " + position_text(t, m, words), "   " + made, "   " + best])


def praise_text(t: Translator, m: Moment, words: Who = WHO) -> str:
    held = held_text(t, m)
    head = t(
        "review.praise", act=act_text(t, m, m.made), cards=held, gain=number(t, -m.cost),
    )  # fmt: skip
    made = t("review.you_did", move=inner(act_text(t, m, m.made)),
             worth=worth_text(t, m.made, m.made_worth, m.pending, m.envido_won))  # fmt: skip
    other = t("review.instead", move=inner(act_text(t, m, m.best)),
              worth=worth_text(t, m.best, m.best_worth, m.pending, m.envido_won))  # fmt: skip
    return "\n".join([head, "   " + position_text(t, m, words), "   " + made, "   " + other])


def no_slips_text(t: Translator, review: Review) -> str:
    """No costly moment to show: praised, unless ¿suerte o viveza? says the decisions cost
    points (then they went in plays each under a clear loss, or in ones never compared with
    difícil), so that the review never says "¡Muy bien jugado!" under "tus decisiones te
    costaron 20"."""
    if review.luck is not None and round(review.luck.decisions) < 0:
        return t("review.no_slips_spread", weighed=review.weighed)
    return t("review.no_slips")


def intro_text(t: Translator, review: Review) -> str:
    """How many decisions had a choice and how many of them were compared with difícil."""
    return t("review.intro", count=review.decisions, weighed=review.weighed)


def yardstick_text(t: Translator, luck: Luck) -> str:
    """Under ¿suerte o viveza?: what its decisions are measured against (every one, against
    the bots' baseline, normal), so that the list below, against difícil, is not read as its
    parts."""
    return t("luck.yardstick", count=luck.weighed)


def relation_text(t: Translator, review: Review) -> str | None:
    """Under a list of costly moments that falls short of what ¿suerte o viveza? says the
    decisions cost: why the two do not add up (another yardstick, difícil; only the decisions
    compared with it). None where the list covers the loss, or there is none."""
    if review.luck is None or not review.slips:
        return None
    lost = -round(review.luck.decisions)
    if lost <= 0 or round(sum(m.cost for m in review.slips)) >= lost:
        return None
    return t("review.relation", count=lost, weighed=review.weighed)


def luck_text(t: Translator, luck: Luck) -> str:
    """¿Suerte o viveza?, told plainly: "Perdiste 25 a 30: las cartas te costaron unos 8
    puntos; tus decisiones te dieron 3." The decisions rounded to a point, the cards the rest
    of the result (so that the two add up as told). Cards no larger than their noise are said
    to have come out about even, their number in brackets: "te dieron 2" read flatly beside a
    spread of 6 claims luck the split cannot tell from none."""
    decisions = round(luck.decisions)
    cards = luck.result - decisions
    key = "luck.won" if luck.result > 0 else "luck.lost" if luck.result < 0 else "luck.tied"
    return t(key, mine=luck.mine, theirs=luck.theirs, cards=_cards(t, cards, luck.noise),
             decisions=_part(t, "decisions", decisions))  # fmt: skip


def month_luck_text(
    t: Translator, matches: int, result: int, decisions: float, noise: float = 0.0
) -> str:
    """/yo's line: the month's reviewed matches, their result split the same way (`noise`,
    the month's: its matches' in squares)."""
    told = round(decisions)
    cards, made = _cards(t, result - told, noise), _part(t, "decisions", told)
    return t("luck.month", count=matches, result=signed_int(result), cards=cards, decisions=made)


def _cards(t: Translator, points: int, noise: float) -> str:
    """The cards' part: about even where it is no larger than its noise."""
    about = points != 0 and abs(points) <= noise
    return _part(t, "cards.about" if about else "cards", points)


def _part(t: Translator, what: str, points: int) -> str:
    if points == 0:
        return t(f"luck.{what}.even")
    return t(f"luck.{what}.{'gave' if points > 0 else 'cost'}", count=abs(points))


def signed_int(value: int) -> str:
    return f"{value:+d}".replace("-", "−") if value else "0"


def review_text(t: Translator, review: Review, match: str, who: Seating | None = None) -> str:
    """The whole review, for the person alone (their private chat); `who`, the match's
    seating (a computer partner is named as its name asks)."""
    words = who_of(review, who)
    lines = [t("review.title", number=match)]
    if review.luck is not None:
        lines += [luck_text(t, review.luck), yardstick_text(t, review.luck)]
    lines.append(intro_text(t, review))
    lines.append("")
    if review.slips:
        lines.append(t("review.slips_title"))
        for i, m in enumerate(review.slips, start=1):
            lines.append(slip_text(t, i, m, words))
        relation = relation_text(t, review)
        if relation is not None:
            lines.append(relation)
    else:
        lines.append(no_slips_text(t, review))
    if review.praise:
        lines.append("")
        lines.append(t("review.praise_title"))
        lines.extend(praise_text(t, m, words) for m in review.praise)
    worlds = max((m.worlds for m in (*review.slips, *review.praise)), default=0)
    if worlds:
        lines.append("")
        lines.append(t("review.how", worlds=worlds))
    return "\n".join(lines)


def review_pages(
    t: Translator, review: Review, match: str, who: Seating | None = None
) -> list[str]:
    """`review_text` in pages a phone shows whole, its title on each: a decision is never
    cut, nor left apart from its section's title."""
    words = who_of(review, who)
    blocks = [intro_text(t, review)]
    if review.luck is not None:  # (¿suerte o viveza? first, as the whole text has it)
        blocks.insert(0, luck_text(t, review.luck) + "\n" + yardstick_text(t, review.luck))
    if review.slips:
        slips = [slip_text(t, i, m, words) for i, m in enumerate(review.slips, start=1)]
        blocks += [t("review.slips_title") + "\n" + slips[0], *slips[1:]]
        relation = relation_text(t, review)
        if relation is not None:
            blocks.append(relation)
    else:
        blocks.append(no_slips_text(t, review))
    if review.praise:
        praise = [praise_text(t, m, words) for m in review.praise]
        blocks += [t("review.praise_title") + "\n" + praise[0], *praise[1:]]
    worlds = max((m.worlds for m in (*review.slips, *review.praise)), default=0)
    if worlds:
        blocks.append(t("review.how", worlds=worlds))
    return paginate(blocks, head=t("review.title", number=match))


def review_pager(number: int, page: int, pages: int) -> Keys | None:
    """The pager of a review's pages (None: one page)."""
    at = functools.partial(PageData, PageView.REVIEWED, number)
    return Keys.of([pager(at, page, pages)]) if pages > 1 else None


def lesson_text(t: Translator, habit: str, cost: float, count: int, matches: int) -> str:
    """/yo's line: "📝 Lo que más puntos te cuesta: querés el truco con menos de dos cartas
    buenas, −0,6 por vez (lo vi 4 veces en tus 3 partidas revisadas)"; each count in its own
    number (one match read "en tus partidas revisadas")."""
    return t(
        "yo.lesson", habit=t(f"review.habit.{habit}"), cost=number(t, cost), count=count,
        matches=t("yo.lesson.match") if matches == 1 else t("yo.lesson.matches", count=matches),
    )  # fmt: skip


def review_keys(t: Translator, table_id: int) -> Keys:
    """📝 under the end of the match in a player's private chat: their review."""
    return Keys.of([[Button(t("revision.button"), pack(PageData(PageView.REVIEW, table_id)))]])


def review_json(
    t: Translator, review: Review, match: str, who: Seating | None = None
) -> dict[str, object]:
    """The review for the web table: its text, and each moment to step through on the replay
    (the hand and step, what was made and what difícil would have made, their worth; for a
    praised moment, `best` is the move it is held against)."""
    words = who_of(review, who)

    def moment(m: Moment, praised: bool) -> dict[str, object]:
        held = held_text(t, m)
        if praised:
            title = t("review.praise", act=act_text(t, m, m.made), cards=held,
                      gain=number(t, -m.cost))  # fmt: skip
        else:
            title = t("review.slip", act=act_text(t, m, m.made), cards=held,
                      cost=number(t, m.cost))  # fmt: skip
        return {
            "hand": m.hand, "step": m.step, "praised": praised,
            "text": plain(praise_text(t, m, words) if praised else slip_text(t, 0, m, words)),
            "made": m.made, "best": m.best, "cost": round(m.cost, 2),
            "made_points": round(m.made_worth.points, 2),
            "best_points": round(m.best_worth.points, 2),
            "made_won": round(m.made_worth.won, 2), "best_won": round(m.best_worth.won, 2),
            "dealt": list(m.dealt), "held": list(m.held), "scores": list(m.scores),
            "pending": m.pending,
            # (the page's sheet: each part in words, the moment's position drawn by the replay)
            "title": plain(title), "position": plain(position_text(t, m, words)),
            "made_act": plain(act_text(t, m, m.made)), "best_act": plain(act_text(t, m, m.best)),
            "made_worth": plain(worth_text(t, m.made, m.made_worth, m.pending, m.envido_won)),
            "best_worth": plain(worth_text(t, m.best, m.best_worth, m.pending, m.envido_won)),
            # (the numbers as the words say them: "−1,2", "+0,8"; the moment's, from their side)
            "made_shown": signed(t, m.made_worth.points),
            "best_shown": signed(t, m.best_worth.points),
            "shown": signed(t, -m.cost),
        }  # fmt: skip

    worlds = max((m.worlds for m in (*review.slips, *review.praise)), default=0)
    return {
        "table": review.table_id,
        "seat": review.seat,
        "text": plain(review_text(t, review, match, who)),
        "moments": [moment(m, False) for m in review.slips]
        + [moment(m, True) for m in review.praise],
        "decisions": review.decisions,
        "intro": plain(intro_text(t, review)),
        "none": plain(no_slips_text(t, review)) if not review.slips else None,
        "how": plain(t("review.how", worlds=worlds)) if worlds else None,
    }


# The web table's own words for the review (`web.<key>` in the locales, sent to the page with
# the rest of its words): the 📝 control, its loading and the sheet's labels.
REVIEW_WORDS = (
    "review", "reviewOpen", "reviewLoading", "reviewFailed", "reviewRetry", "reviewMoments",
    "reviewClose", "reviewSlip", "reviewCost", "reviewPraise", "reviewGain", "reviewYou",
    "reviewDificil", "reviewInstead", "reviewWorth", "reviewMade", "reviewBest", "reviewOther",
)  # fmt: skip
