"""🃏 La mano del día in words: the question as the seat saw it (its cards, the table, the
score, what was chanted and said aloud; nothing it could not see), one button a choice; and the
close: what was best and by how much on average over the worlds, why in a line or two, what
really happened, who got it right, the streaks and the month's ranking.

The question reads the puzzle alone (`bot.ai.daily.Puzzle`): never the outcome, never whose
decision it was."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo

from bot.ai.daily import Outcome
from bot.ai.puzzle import PARTNER, RIVAL, YOU, Choice, Puzzle
from bot.callbacks import DailyData, DailyNameData, DailyOp, pack
from bot.game import Action, ActionKind, Card
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.game.seats import mode_of
from bot.i18n import Translator
from bot.model.daily import Closing, DailyHand, Standing, Tally
from bot.views.common import Button, Keys, card_label, card_short
from bot.views.hints import odds_text
from bot.views.review import (
    bare,
    calls_text,
    cards_line,
    inner,
    move_text,
    number,
    signed,
    worth_text,
)
from bot.views.table import kind_label

K = ActionKind
WHO = {YOU: "review.who.you", PARTNER: "review.who.partner", RIVAL: "review.who.rival"}


def puzzle_of(hand: DailyHand) -> Puzzle:
    return Puzzle.from_json(dict(hand.data["puzzle"]))


def outcome_of(hand: DailyHand) -> Outcome:
    return Outcome.from_json(dict(hand.data["outcome"]))


def choice_text(t: Translator, p: Puzzle, code: str) -> str:
    """A choice in a sentence: "querer el truco", "tirar el 4 de copa 🍷"."""
    return inner(move_text(t, p.pending, code))


def choice_label(t: Translator, code: str) -> str:
    """A choice on a button: the hand message's words ("7 🗡️", "¡Truco!", "Quiero")."""
    action = Action.parse(code)
    if action.card is not None:
        return card_label(action.card)
    return kind_label(t, action.kind)


def question_text(t: Translator, p: Puzzle) -> str:
    """ "Mano 7 · ibas 12 a 20 · sos mano" and the rest of what the seat saw, then the
    question."""
    mano = {YOU: "daily.mano.you", PARTNER: "daily.mano.partner", RIVAL: "daily.mano.rival"}
    lines = [
        t("daily.rules", mode=mode_of(p.players), target=p.target,
          flor=t("rules.con_flor") if p.flor else t("rules.sin_flor")),
        t("daily.score", hand=p.hand, mine=p.scores[0], theirs=p.scores[1])
        + " · " + t(mano[p.mano]),
    ]  # fmt: skip
    held = cards_line(t, p.held)
    # (the cards played in the order the table saw them, not the order dealt; all three, as
    # dealt: tests/unit/test_quiz_answer.py)
    mine = [c for round_cards in p.rounds for w, c in round_cards if w == YOU]
    played = [*mine, *(c for c in p.dealt if c not in p.held and c not in mine)]
    if len(p.held) == len(p.dealt):
        lines.append(t("daily.cards", cards=held, envido=p.envido))
    elif not p.held:  # (a chant answered with every card played: "Te quedan:" and nothing)
        lines.append(t("daily.cards_none", played=cards_line(t, p.dealt), envido=p.envido))
    else:
        lines.append(t("daily.cards_left", cards=held, played=cards_line(t, played),
                       envido=p.envido))  # fmt: skip
    for index, round_cards in enumerate(p.rounds, start=1):
        shown = ", ".join(f"{card_short(Card.parse(c))} ({t(WHO[w])})" for w, c in round_cards)
        line = t(f"daily.round_{index}", cards=shown)  # ("primera", as a table says it)
        if len(round_cards) == p.players:
            line += " · " + round_result(t, round_cards)
        lines.append(line)
    if p.calls:
        lines.append(t("daily.called", calls=calls_text(t, p.calls)))
    if p.announced:
        values = ", ".join(f"{v} ({t(WHO[w])})" for w, v in p.announced)
        lines.append(t("daily.announced", values=values))
    if p.pending is not None:
        lines.append(t("daily.asked_chant", chant=bare(t, K(p.pending))))
    else:
        lines.append(t("daily.asked_turn"))
    return "\n".join(lines)


def round_result(t: Translator, round_cards: tuple[tuple[int, str], ...]) -> str:
    """Who took a round all can see: the highest card; the two sides' highest equal, parda."""
    strength = {w: 0 for w, _ in round_cards}
    for w, c in round_cards:
        strength[w] = max(strength[w], Card.parse(c).strength)
    ours = max(strength.get(YOU, 0), strength.get(PARTNER, 0))
    theirs = strength.get(RIVAL, 0)
    if ours == theirs:
        return t("daily.parda")
    return t("daily.won_round") if ours > theirs else t("daily.lost_round")


def post_text(t: Translator, hand: DailyHand, zone: tzinfo) -> str:
    """The group's message: the question, and how many answered and until when (or, closed,
    that it closed)."""
    p = puzzle_of(hand)
    source = t("daily.from_group") if hand.game_id is not None else t("daily.from_bank")
    head = f"{t('daily.title')}\n<i>{source}</i>"
    if hand.closed:
        foot = t("daily.closed_foot", count=hand.answers)
    else:
        closes = datetime.fromtimestamp(hand.closes_at, zone).strftime("%H:%M")
        if hand.answers:
            foot = t("daily.open_foot", count=hand.answers, time=closes)
        else:  # ("respondieron 0" reads as if something went wrong)
            foot = t("daily.open_none", time=closes)
    return "\n\n".join([head, question_text(t, p), foot])


def post_keys(t: Translator, hand: DailyHand) -> Keys | None:
    """One button a choice (none once closed): the cards on a row, the chants and answers on
    the rows below."""
    if hand.closed:
        return None
    p = puzzle_of(hand)
    cards: list[Button] = []
    rest: list[Button] = []
    for index, choice in enumerate(p.choices):
        button = Button(choice_label(t, choice.code), pack(DailyData(hand.id, index)))
        (cards if Action.parse(choice.code).card is not None else rest).append(button)
    return Keys.of([cards, *(rest[i : i + 2] for i in range(0, len(rest), 2))])


def close_text(
    t: Translator, hand: DailyHand, closing: Closing, names: Mapping[int, str]
) -> str:
    """The close: the best choice and by how much, why, what happened, who got it right."""
    p = puzzle_of(hand)
    rest = wrong_ones(p)
    lines = [t("daily.close_title")]
    right = right_ones(p)
    said = [choice_text(t, p, p.choices[i].code) for i in right]
    best_text = said[0] if len(said) == 1 else t("daily.either", first=", ".join(said[:-1]),
                                                 last=said[-1])  # fmt: skip
    if rest and len(said) > 1 and len(rest) == 1:  # (the question: what not to do)
        lines.append(t("daily.best_but", choice=best_text, points=number(t, p.margin),
                       next=choice_text(t, p, p.choices[rest[0]].code),
                       worlds=p.worlds))  # fmt: skip
    elif rest:
        runner = p.choices[rest[0]]
        key = "daily.best" if len(said) == 1 else "daily.best_any"
        lines.append(t(key, choice=best_text, points=number(t, p.margin),
                       next=choice_text(t, p, runner.code), worlds=p.worlds))  # fmt: skip
    else:
        lines.append(t("daily.best_alone", choice=best_text, worlds=p.worlds))
    lines.append(values_line(t, p))
    lines.append(why_text(t, p))
    lines.append(happened_text(t, hand, closing, names))
    lines.append(answers_text(t, p, closing, names))
    if len(closing.month) > 1:  # (a ranking of one ranks nobody)
        ranking = " · ".join(
            t("daily.rank", place=place, name=names.get(s.user_id, "?"), right=s.right,
              answered=s.answered)
            for place, s in places(closing.month)
        )  # fmt: skip
        lines.append(t("daily.month", ranking=ranking))
    return "\n\n".join(x for x in lines if x)


def places(month: Sequence[Standing]) -> list[tuple[int, Standing]]:
    """The month's standings with their places, equals sharing one ("1. Beto 1/1 · 1. Dani
    1/1 · 3. Caro 0/1"): the order among equals is no one's merit."""
    placed: list[tuple[int, Standing]] = []
    for index, s in enumerate(month, start=1):
        before = placed[-1] if placed else None
        same = before is not None and before[1].right == s.right and (
            before[1].answered == s.answered
        )
        placed.append((before[0] if before is not None and same else index, s))
    return placed


def wrong_ones(p: Puzzle) -> list[int]:
    """The choices not right, the best first; of two a player reads as worth the same (one
    decimal), the mazo last: "más que tirar el 5" tells the question, "más que irte al mazo"
    seldom does."""
    return sorted((i for i in range(len(p.choices)) if i not in p.right), key=lambda i: order(p, i))


def order(p: Puzzle, index: int) -> tuple[float, bool, int]:
    """The best first; of two shown worth the same (one decimal), the mazo last."""
    choice = p.choices[index]
    return (-round(choice.worth.points, 1), Action.parse(choice.code).kind is K.MAZO, index)


def right_ones(p: Puzzle) -> list[int]:
    """The right choices, the mazo last ("tirar el 4 o irte al mazo": the mazo is seldom what a
    question is about)."""
    return sorted(p.right, key=lambda i: (Action.parse(p.choices[i].code).kind is K.MAZO, i))


def values_line(t: Translator, p: Puzzle) -> str:
    """Every choice with its mean points: "Quiero +0,8 ✅ · No quiero −1,0"."""
    parts = []
    for index in sorted(range(len(p.choices)), key=lambda i: order(p, i)):
        c = p.choices[index]
        mark = " ✅" if index in p.right else ""
        parts.append(f"{choice_label(t, c.code)} {signed(t, c.worth.points)}{mark}")
    return t("daily.values", values=" · ".join(parts))


def why_text(t: Translator, p: Puzzle) -> str:
    """Why, in a line or two, with what the values' line above does not say: how often the
    hand was the seat's with the best choice and with the next one (their points are told
    there); where an envido is at stake, how often the seat's envido was the best one."""
    best = p.choices[right_ones(p)[0]]
    rest = wrong_ones(p)
    runner = p.choices[rest[0]] if rest else None
    if p.envido_won is not None:
        odds = odds_text(t, round(p.envido_won * 10))
        return t("daily.why_envido", envido=p.envido, odds=odds)
    if bluff(p, best):
        return t("daily.why_bluff", choice=choice_text(t, p, best.code), worlds=p.worlds,
                 odds=odds_text(t, round(best.worth.won * 10)))  # fmt: skip
    said = [(choice_text(t, p, c.code), worth_of(t, p, c))
            for c in (best, runner) if c is not None]  # fmt: skip
    if len(said) == 2 and said[0][1] == said[1][1]:  # (the same odds: the stakes differ)
        return t("daily.why_same", first=said[0][0], second=said[1][0], worth=said[0][1])
    lines = [t("daily.why_not", choice=c if i == 0 else _capital(c), worth=w)
             for i, (c, w) in enumerate(said)]  # (after "Por qué:", no capital)
    return "\n".join([t("daily.why", reason=lines[0]), *lines[1:]])


def bluff(p: Puzzle, best: Choice) -> bool:
    """The best is a truco that the cards never win: every card the seat could play lost the
    hand in every world, so what the truco won, the rival's no quiero gave."""
    plays = [c for c in p.choices if Action.parse(c.code).card is not None]
    return (
        Action.parse(best.code).kind in TRUCO_CHANTS
        and best.worth.won > 0
        and bool(plays)
        and all(c.worth.won == 0 for c in plays)
    )


def worth_of(t: Translator, p: Puzzle, choice: Choice) -> str:
    """How often the hand was the seat's with a choice ("la mano era tuya 6 de cada 10"), or
    what it surely lost ("perdías 2, seguro"); where an envido is what is at stake (the hand is
    not what it decides), its mean points."""
    action = Action.parse(choice.code)
    envido = {k.value for k in ENVIDO_CHANTS}
    if p.pending in envido or action.kind.value in envido:
        return t("daily.worth", points=signed(t, choice.worth.points))
    w = choice.worth
    certain = action.kind is K.MAZO or (
        action.kind is K.NO_QUIERO and p.pending in {k.value for k in TRUCO_CHANTS}
    )
    if certain and w.won == 0:
        return worth_text(t, choice.code, w, p.pending)
    if w.won in (0.0, 1.0):  # (in every world: "más de 9 de cada 10" would hedge a certainty)
        return t("daily.why_always" if w.won else "daily.why_never", worlds=p.worlds)
    return t("daily.why_odds", odds=odds_text(t, round(w.won * 10)))


def happened_text(
    t: Translator, hand: DailyHand, closing: Closing, names: Mapping[int, str]
) -> str:
    """What the seat really did, and what the hand then gave its side; by name only if the
    person allowed it."""
    p = puzzle_of(hand)
    outcome = outcome_of(hand)
    made = choice_text(t, p, outcome.made)
    if Action.parse(outcome.made).kind is K.MAZO:  # (told of someone else: "irse al mazo")
        made = t("daily.act_mazo")
    # (its side's points less the other's: what the hand cost or left, as a player says it)
    if outcome.points > 0:
        result = t("daily.result_won", count=outcome.points)
    elif outcome.points < 0:
        result = t("daily.result_lost", count=-outcome.points)
    else:
        result = t("daily.result_even")
    if hand.game_id is None:
        return t("daily.happened_bank", choice=made, result=result)
    name = names.get(hand.user_id or 0) if closing.named else None
    if name is not None:
        return t("daily.happened_named", name=name, number=hand.game_id, choice=made,
                 result=result)  # fmt: skip
    return t("daily.happened", choice=made, result=result)


def answers_text(
    t: Translator, p: Puzzle, closing: Closing, names: Mapping[int, str]
) -> str:
    if not closing.answers:
        return t("daily.nobody")
    counts = Counter(a.choice for a in closing.answers)
    chosen = " · ".join(  # ("2 🪵 ×1": a bare "2 🪵 1" reads as one more card)
        f"{choice_label(t, p.choices[i].code)} ×{n}"
        for i, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    runs = dict(closing.streaks)
    right = [a for a in closing.answers if a.right]
    if not right:
        return t("daily.chosen", chosen=chosen) + "\n" + t("daily.none_right")
    who = ", ".join(
        names.get(a.user_id, "?") + (t("daily.streak", count=runs[a.user_id])
                                     if runs.get(a.user_id, 0) > 1 else "")
        for a in right
    )  # fmt: skip
    return t("daily.chosen", chosen=chosen) + "\n" + t(
        "daily.right", count=len(right), total=len(closing.answers), names=who
    )


def tally_text(t: Translator, tally: Tally) -> str:
    """/yo's line in a group: "🃏 Mano del día: acertaste 5 de 7 · racha 3 (la mejor, 4) · este
    mes 2 de 3", less what says nothing: a run of 0, a best equal to the run now, a best of 1,
    a month that is all of it."""
    if not tally.answered:
        return ""
    line = t("daily.yo", right=tally.right, answered=tally.answered)
    if tally.streak and tally.best > tally.streak:
        line += t("daily.yo_streak_best", streak=tally.streak, best=tally.best)
    elif tally.streak:
        line += t("daily.yo_streak", streak=tally.streak)
    elif tally.best > 1:
        line += t("daily.yo_best", best=tally.best)
    month = tally.month
    if month is not None and month.answered != tally.answered:
        line += t("daily.yo_month", right=month.right, answered=month.answered)
    return line


def name_text(t: Translator, named: bool) -> str:
    """Whether a hand of the day from one's own decisions names them at its close."""
    return t("daily.named_yes" if named else "daily.named_no")


def name_keys(t: Translator, named: bool) -> Keys:
    """The button that changes it (from /yo, in private)."""
    op = DailyOp.ANON if named else DailyOp.NAMED
    label = t("daily.button.anon" if named else "daily.button.named")
    return Keys.of([[Button(label, pack(DailyNameData(op)))]])


def answered_text(t: Translator, p: Puzzle, choice: int, counted: bool) -> str:
    """The pop-up of a tap: the choice taken (or the one taken before), the answer at the
    close."""
    said = choice_label(t, p.choices[choice].code)
    return t("daily.taken" if counted else "daily.taken_before", choice=said)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
