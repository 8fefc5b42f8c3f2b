"""The board (group) and the hand message (private): a table's state as text and buttons."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ai.signs import SIGNS
from bot.callbacks import (
    SIGN_BACK,
    SIGN_MENU,
    ActData,
    CardsData,
    HintData,
    HintOp,
    RematchData,
    SignData,
    Vacated,
    VacatedData,
    pack,
)
from bot.game import Action, ActionKind, Observation, Phase, envido_value, flor_value, has_flor
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS
from bot.game.ending import HandEnding, ended_hands
from bot.game.scoring import (
    FLOR_ACHICO,
    FLOR_CONTESTED,
    envido_not_wanted_value,
    envido_wanted_value,
    falta,
    truco_not_wanted_value,
    truco_wanted_value,
)
from bot.game.seats import seats, side_of
from bot.game.state import Pending
from bot.i18n import Translator
from bot.model.table import Call, Note, Table, is_bot
from bot.views.common import (
    Button,
    Keys,
    Seating,
    card_label,
    card_short,
    cards_text,
    either,
    mark_first,
    phone_lines,
    rules_line,
    said_line,
    score_lines,
)
from bot.views.ending import record_lines, rounds_lines
from bot.views.pages import PAGE_LINES
from bot.views.scene import Gap, Scene

K = ActionKind

# The order chants and answers appear on buttons: answers first, then raises, then the rest.
BUTTON_ORDER = (
    K.QUIERO, K.NO_QUIERO, K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO,
    K.TRUCO, K.RETRUCO, K.VALE_CUATRO, K.ENVIDO, K.REAL_ENVIDO, K.FALTA_ENVIDO, K.MAZO,
)  # fmt: skip
ROUND_NAMES = ("round.1", "round.2", "round.3")
# Only a flor holder can use these: they live in the holder's private hand message, never on
# the board (which cannot know who holds flor without telling everyone).
FLOR_FAMILY = frozenset({K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO})


def your_duel(t: Translator, who: Seating, obs: Observation, seat: int) -> str:
    """In a pica-pica hand, whom `seat` faces and when (R39: duel k is the seat k places after
    the hand's mano against its opposite)."""
    table = seats(obs.config.players)
    mano = table.next(obs.dealer)
    mine = table.order_from(mano).index(seat) % 3
    assert obs.duel is not None
    when = "now" if mine == obs.duel else "done" if mine < obs.duel else "later"
    rival = who.names[table.opposite(seat)]
    return t(f"hand.duel_{when}", rival=rival, number=mine + 1)


def hand_name(t: Translator, obs: Observation) -> str:
    """ "4", or in a pica-pica hand "4, duelo 2" (R39: three duels of one deal)."""
    if obs.duel is None:
        return str(obs.hand_number)
    return t("hand.duel", number=obs.hand_number, duel=obs.duel + 1)


def kind_label(t: Translator, kind: ActionKind) -> str:
    return t(f"kind.{kind.value}")


def call_line(t: Translator, who: Seating, call: Call) -> str:
    what = call.what
    if what in (Note.ENVIDO_VALUES, Note.FLOR_VALUES):
        return t(f"call.{what.value}", values=said_line(t, who, call.values))
    name = who.seat(call.seat) if call.seat is not None else "?"
    if isinstance(what, Note):
        return t(f"call.{what.value}", name=name)
    return t("call.said", name=name, chant=kind_label(t, what))


def _rounds(t: Translator, who: Seating, obs: Observation) -> list[str]:
    """One line a round: its cards in the order played, and whose card won it (in 2v2 the
    player, not the pair: shorter, and it says more)."""
    lines = []
    for index, plays in enumerate(obs.rounds):
        played = " · ".join(f"{who.seat(s)} {card_short(c)}" for s, c in plays)
        result = ""
        if index < len(obs.results):
            won = obs.results[index]
            if won is None:
                result = " → " + t("round.parda")
            else:
                ours = [(c.strength, -i, s) for i, (s, c) in enumerate(plays) if side_of(s) == won]
                best = max(ours)
                result = " → " + who.seat(best[2])
        lines.append(f"{t(ROUND_NAMES[index])}: {played}{result}")
    return lines


def status_lines(t: Translator, who: Seating, obs: Observation) -> list[str]:
    """The hand in play: who is mano (until the first card shows it; in a pica-pica duel, who
    faces whom, all through it), its rounds, and the chant waiting for an answer or whose turn
    it is."""
    lines = []
    fresh = not obs.rounds or not obs.rounds[0]
    if obs.duel is not None:  # (the dealer is the hand's, the same for its three duels)
        rival = who.seat(seats(obs.config.players).opposite(obs.mano))
        key = "board.duel_mano" if fresh else "board.duel"
        lines.append(t(key, mano=who.seat(obs.mano), rival=rival))
    elif fresh:
        lines.append(t("board.mano", dealer=who.seat(obs.dealer), mano=who.seat(obs.mano)))
    lines.extend(_rounds(t, who, obs))
    return lines


def duels_tally(t: Translator, table: Table, obs: Observation, last: HandEnding) -> str | None:
    """A pica-pica hand's tally so far, said after the record of its last duel that ended (from
    the second duel on, and once the three are done): the points of its duels, side 1 first,
    as the score lines ("pica-pica hasta acá: 1 a 2", "pica-pica en total: 2 a 2")."""
    state = table.state
    if state is None or last.duel is None:
        return None
    if obs.duel is not None and obs.duel > 0 and obs.hand_number == last.number:
        key = "ending.duels"
    elif obs.duel is None and last.duel == 2:
        key = "ending.duels_done"
    else:
        return None
    duels = [e for e in ended_hands(state) if e.duel is not None and e.number == last.number]
    return t(key, a=sum(e.by_side(0) for e in duels), b=sum(e.by_side(1) for e in duels))


def _next(t: Translator, who: Seating, obs: Observation) -> list[str]:
    if obs.phase is not Phase.PLAY:
        return []
    if obs.pending_chant is not None and obs.pending_side is not None:
        return [pending_line(t, who, obs)]
    if obs.turn is not None and obs.turn != obs.seat:
        return [t("board.turn", name=who.seat(obs.turn))]  # your own turn: see hand_text
    return []


def _chanter(obs: Observation) -> int | None:
    """Who made the chant waiting for an answer (the last such call of the hand)."""
    for seat, kind in reversed(obs.calls):
        if kind is obs.pending_chant:
            return seat
    return None


def _stakes(t: Translator, who: Seating, obs: Observation) -> str | None:
    """What each answer to the pending chant is worth: "Quiero → vale 2 · No quiero → Beto +1"."""
    chant, side = obs.pending_chant, obs.pending_side
    if chant is None or side is None:
        return None
    if obs.pending is Pending.TRUCO and chant in TRUCO_CHANTS:
        level = TRUCO_CHANTS.index(chant) + 1
        yes, no = truco_wanted_value(level), truco_not_wanted_value(level)
        return t("pending.truco_stakes", yes=yes, side=who.short(t, side), no=no)
    if obs.pending is Pending.FLOR:
        return _flor_stakes(t, who, obs, chant, side)
    if obs.pending is Pending.ENVIDO:
        chain = [kind for _, kind in obs.calls if kind in ENVIDO_CHANTS]
        if chain:
            falta_points = obs.config.envido_falta(obs.scores, obs.duel is not None)
            yes = envido_wanted_value(chain, falta_points)
            no = envido_not_wanted_value(chain)
            return t("pending.envido_stakes", yes=yes, side=who.short(t, side), no=no)
    return None


def _flor_stakes(
    t: Translator, who: Seating, obs: Observation, chant: ActionKind, side: int
) -> str:
    """R22: what a flor exchange's answers are worth (the best flor takes the contest)."""
    name = who.short(t, side)
    if chant is K.CONTRAFLOR_AL_RESTO:
        over_contra = any(kind is K.CONTRAFLOR for _, kind in obs.calls)
        best = FLOR_CONTESTED + falta(obs.scores, obs.config.target)
        small = FLOR_CONTESTED if over_contra else FLOR_ACHICO
        return t("pending.resto_stakes", best=best, side=name, small=small)
    key = "pending.contraflor_stakes" if chant is K.CONTRAFLOR else "pending.flor_stakes"
    return t(key, best=FLOR_CONTESTED, side=name, small=FLOR_ACHICO)


def pending_line(t: Translator, who: Seating, obs: Observation) -> str:
    """The chant waiting for an answer: who made it, what each answer is worth, who answers
    (said to each player as it concerns them: "Cantaste…", "contestás vos o Carla")."""
    assert obs.pending_chant is not None and obs.pending_side is not None
    chanter = _chanter(obs)
    chant = kind_label(t, obs.pending_chant)
    if chanter is not None and chanter == obs.seat:
        head = t("pending.you_chanted", chant=chant)
    else:
        name = who.seat(chanter) if chanter is not None else who.short(t, obs.pending_side)
        head = t("pending.chant", name=name, chant=chant)
    parts = [head]
    stakes = _stakes(t, who, obs)
    if stakes:
        parts.append(stakes)
    answering = [s for s in obs.waiting_on if side_of(s) != obs.pending_side]
    others = [who.seat(s) for s in answering if s != obs.seat]
    if obs.seat is not None and obs.seat in answering:
        if others:
            parts.append(t("pending.you_or", names=either(t, [t("pending.you"), *others])))
        else:
            parts.append(t("pending.you_answer"))
    elif answering and (obs.seat is not None or who.table.team_size > 1):
        # (on a 1v1 board the one who answers goes without saying)
        key = "pending.wait" if obs.seat is not None else "pending.answers"
        parts.append(t(key, names=either(t, others)))
    return " · ".join(parts)


def board_text(t: Translator, scene: Scene) -> str:
    """The group's one message, short enough for a phone (`bench/board_lines.py`): the hand's
    number and worth, the end of the hands that ended since the group last saw the board (so
    the end of a hand costs no message of its own), the score, the hand in play, its betting
    one line per bet, and what the table waits for. Once the match is over, its last hand is
    told whole: its rounds, its betting with the values said, and how it ended. The table's
    options are in the lobby and the match's end; the whole seal in /verificar."""
    obs, who, calls = scene.obs, scene.who, scene.calls
    assert obs is not None
    over = obs.phase is Phase.OVER
    if over:
        lines = [t("board.title_short")]
    else:
        lines = [t("board.head", number=hand_name(t, obs), value=obs.hand_value)]
    lines += gap_lines(t, who, scene.gap)
    lines += ended_lines(t, who, scene.ended, calls if over else None)
    tally = duels_tally(t, scene.table, obs, scene.ended[-1]) if scene.ended else None
    if tally is not None:
        lines[-1] += f" · {tally}"
    lines += score_lines(t, who, obs.scores, obs.config.target)
    if not over:
        lines.append("")
        lines += status_lines(t, who, obs)
        lines += bets(t, who, answered_bets(obs, calls))
        lines += _next(t, who, obs)
    if scene.seal is not None:
        lines.append(t("fair.commitment_short", commitment=scene.seal, number=scene.table.id))
    return mark_first("\n".join(lines), who)


def gap_lines(t: Translator, who: Seating, gap: Gap | None) -> list[str]:
    """Hands too long ago to tell one by one: the points they gave together."""
    if gap is None:
        return []
    parts = [
        t("bet.scored", side=who.short(t, side), points=gap.points[side])
        for side in (0, 1)
        if gap.points[side]
    ]
    return [t("ending.gap", first=gap.first, last=gap.last, points=" · ".join(parts) or "—")]


def ended_lines(
    t: Translator, who: Seating, ended: Sequence[HandEnding], last_calls: Sequence[Call] | None
) -> list[str]:
    """The hands that ended, each in its record's lines; with `last_calls` (the match is
    over), the last hand whole: its rounds and betting before its record."""
    lines: list[str] = []
    for number, ending in enumerate(ended, start=1):
        if last_calls is not None and number == len(ended):
            lines += rounds_lines(t, who, ending.rounds)
            lines += bets(t, who, last_calls)
        lines += record_lines(t, who, ending)
    return lines


def answered_bets(obs: Observation, calls: Sequence[Call]) -> Sequence[Call]:
    """The calls without the chant still waiting for its answer: the pending line says it."""
    chant = obs.pending_chant
    if chant is not None and calls and calls[-1].what is chant and calls[-1].seat == _chanter(obs):
        return calls[:-1]
    return calls


_VALUES_OF = {Note.ENVIDO_VALUES: "bet.envido", Note.FLOR_VALUES: "bet.flor"}
_SCORED_OF = {Note.ENVIDO_SCORED: "bet.envido", Note.FLOR_SCORED: "bet.flor"}
_FAMILIES = ((TRUCO_CHANTS, "bet.truco"), (ENVIDO_CHANTS, "bet.envido"), (FLOR_FAMILY, "bet.flor"))


def bets(t: Translator, who: Seating, calls: Sequence[Call]) -> list[str]:
    """The hand's calls one line per bet, each answer after the chant it answers:
    "Truco: Ana ¡Truco! → Beto ¡Retruco! → Carla Quiero"; the values said close their bet's
    line ("Envido: Ana Envido → Beto Quiero → Ana 27 · Beto son buenas"), then the points the
    bet gave the moment they were scored ("→ Ana +2"); an envido annulled by a flor says so on
    its line; other notes (the mazo) have lines of their own."""
    lines: list[str] = []
    open_bets: dict[str, int] = {}  # family key -> index of its line
    waiting: list[str] = []  # the families whose last chant waits for an answer, newest last

    def settled(family: str) -> None:
        if family in waiting:
            waiting.remove(family)

    for call in calls:
        what = call.what
        if what is Note.ENVIDO_ANNULLED and "bet.envido" in open_bets and call.seat is not None:
            lines[open_bets["bet.envido"]] += " " + t("bet.annulled", name=who.seat(call.seat))
            settled("bet.envido")
            continue
        values_of = _VALUES_OF.get(what) if isinstance(what, Note) else None
        if values_of in open_bets:  # the values said, after the quiero that called for them
            lines[open_bets[values_of]] += " → " + said_line(t, who, call.values)
            continue
        scored_of = _SCORED_OF.get(what) if isinstance(what, Note) else None
        if scored_of is not None:  # the points, the moment they are scored
            side, points = call.values[0]
            text = t("bet.scored", side=who.short(t, side), points=points)
            if scored_of in open_bets:
                lines[open_bets[scored_of]] += f" → {text}"
            else:
                lines.append(f"{t(scored_of)}: {text}")
            settled(scored_of)
            continue
        if isinstance(what, Note) or call.seat is None:
            lines.append(call_line(t, who, call))
            continue
        family = next((key for kinds, key in _FAMILIES if what in kinds), None)
        if family is None:  # an answer: to the newest chant still waiting for one
            family = waiting.pop() if waiting else None
        else:
            settled(family)
            waiting.append(family)  # a chant or a raise: its family waits for an answer
        said = t("bet.said", name=who.seat(call.seat), chant=kind_label(t, what))
        if family is None:
            lines.append(said)
            continue
        if family in open_bets:
            lines[open_bets[family]] += f" → {said}"
        else:
            open_bets[family] = len(lines)
            lines.append(f"{t(family)}: {said}")
    return lines


# The answers' colours (Bot API 9.4 `style`): Quiero green, No quiero red; every other chant,
# the cards and the mazo plain
STYLES = {K.QUIERO: "success", K.NO_QUIERO: "danger"}


def _call_buttons(
    t: Translator, table_id: int, step: int, actions: Sequence[Action], signs: bool = False
) -> list[tuple[Button, ...]]:
    kinds = {a.kind for a in actions if a.kind is not K.PLAY}
    buttons = [
        Button(kind_label(t, k), pack(ActData(table_id, step, k)), style=STYLES.get(k, ""))
        for k in BUTTON_ORDER
        if k in kinds and k is not K.MAZO
    ]
    rows = [tuple(buttons[i : i + 3]) for i in range(0, len(buttons), 3)]
    last: list[Button] = []
    if K.MAZO in kinds:
        last.append(Button(kind_label(t, K.MAZO), pack(ActData(table_id, step, K.MAZO))))
    if signs:
        last.append(Button(t("button.signs"), pack(SignData(table_id, step, SIGN_MENU))))
    if last:
        rows.append(tuple(last))
    return rows


def board_markup(t: Translator, table_id: int, obs: Observation) -> Keys | None:
    if obs.phase is Phase.OVER:
        return None
    if obs.pending_chant in FLOR_FAMILY:
        public: list[Action] = []  # a flor exchange is answered by holders, in private
    else:
        public = [a for a in obs.actions if a.kind not in FLOR_FAMILY]
    rows = _call_buttons(t, table_id, obs.step, public)
    rows.append((Button(t("button.my_cards"), pack(CardsData(table_id))),))
    return Keys(rows)


def hand_text(t: Translator, scene: Scene) -> str:
    """A player's own message: the end of the hands that ended since they last saw it (with
    the cards that prove the values), the table's options (at the first hand), the hand's
    number and worth, their cards and envido, the score, the hand as the board tells it
    (rounds, betting, the chant waiting) said to them, and whether they move. Once the match
    is over, its last hand whole and the score: no cards left to play."""
    obs, who, calls = scene.obs, scene.who, scene.calls
    assert obs is not None and obs.seat is not None
    over = obs.phase is Phase.OVER or not scene.playing
    whole = calls if obs.phase is Phase.OVER else None  # the match ended in that hand
    told = gap_lines(t, who, scene.gap) + ended_lines(t, who, scene.ended, whole)
    if told and over:
        return mark_first("\n".join([*told, "", *score_lines(t, who, obs.scores,
                                                               obs.config.target)]), who)
    text = mark_first("\n".join([*told, *_hand_in_play(t, scene)]), who)
    if told and phone_lines(text) > PAGE_LINES:
        # Too tall for a phone's screen: the hand in play comes first. The end of the hands
        # before it was told at the deal (the hand in play short then); it is what goes.
        return mark_first("\n".join(_hand_in_play(t, scene)), who)
    return text


def _hand_in_play(t: Translator, scene: Scene) -> list[str]:
    """A player's own message below the ends of hands: the hand in play said to them (or,
    once the match is over, the score)."""
    obs, who, calls = scene.obs, scene.who, scene.calls
    assert obs is not None and obs.seat is not None
    over = obs.phase is Phase.OVER or not scene.playing
    lines: list[str] = []
    if scene.first_hand and not over:  # (once the match is over there is no hand to title)
        lines.append(t("hand.title", rules=rules_line(t, obs.config)))
        if t("hand.suits"):  # (English: the suits, once)
            lines.append(t("hand.suits"))
    if over:
        return lines + score_lines(t, who, obs.scores, obs.config.target)
    lines.append(t("hand.head", number=hand_name(t, obs), value=obs.hand_value))
    if obs.duel is not None and obs.seat is not None:
        lines.append(your_duel(t, who, obs, obs.seat))
    mine = t("hand.cards", cards=cards_text(t, obs.cards) if obs.cards else "—")
    if obs.dealt:
        if obs.config.flor and has_flor(obs.dealt):
            mine += " · " + t("hand.flor", value=flor_value(obs.dealt))
        elif not any(obs.flor_declared):  # a flor at the table leaves no envido to play
            mine += " · " + t("hand.envido", value=envido_value(obs.dealt))
    lines.append(mine)
    lines += score_lines(t, who, obs.scores, obs.config.target)
    lines.append("")
    lines += status_lines(t, who, obs)
    lines += bets(t, who, answered_bets(obs, calls))
    lines += _next(t, who, obs)
    answering = obs.pending_chant is not None
    if obs.phase is Phase.PLAY and obs.seat in obs.waiting_on and obs.actions and not answering:
        lines.append(t("hand.your_move"))
    if scene.table.chat_id > 0:  # a practice: its señas are here, not messages of their own
        lines += sign_lines(t, who, scene.table, obs.seat, seen=True)
    helper = helper_of(scene.table, obs)
    if helper is not None and scene.table.handed == obs.step:
        lines.append(t("hand.handed", name=who.seat(helper)))
    return lines


def group_hand_text(t: Translator, scene: Scene) -> str:
    """A person's hand shown to them alone in the group, under the board (which tells the
    table): the hand's number and worth, their cards and envido, what the table waits for
    (their move, said plainly), and the señas they were shown or caught this hand. Short: a
    phone shows it beside the board."""
    obs, who = scene.obs, scene.who
    assert obs is not None and obs.seat is not None
    if obs.phase is Phase.OVER or not scene.playing:
        return mark_first("\n".join(score_lines(t, who, obs.scores, obs.config.target)), who)
    lines = [t("hand.head", number=hand_name(t, obs), value=obs.hand_value)]
    if obs.duel is not None:
        lines.append(your_duel(t, who, obs, obs.seat))
    mine = t("hand.cards", cards=cards_text(t, obs.cards) if obs.cards else "—")
    if obs.dealt:
        if obs.config.flor and has_flor(obs.dealt):
            mine += " · " + t("hand.flor", value=flor_value(obs.dealt))
        elif not any(obs.flor_declared):
            mine += " · " + t("hand.envido", value=envido_value(obs.dealt))
    lines.append(mine)
    lines += _next(t, who, obs)
    answering = obs.pending_chant is not None
    if obs.phase is Phase.PLAY and obs.seat in obs.waiting_on and obs.actions and not answering:
        lines.append(t("hand.your_move"))
    table = scene.table
    lines += sign_lines(t, who, table, obs.seat)
    helper = helper_of(table, obs)
    if helper is not None and table.handed == obs.step:
        lines.append(t("hand.handed", name=who.seat(helper)))
    return mark_first("\n".join(lines), who)


def sign_lines(
    t: Translator, who: Seating, table: Table, seat: int, seen: bool = False
) -> list[str]:
    """The señas of the hand in play `seat` was shown by its partners and caught of its
    rivals; with `seen`, the rivals who caught its own."""
    lines = [
        t("sign.received", name=who.seat(made.seat), sign=t(f"sign.{made.sign}"),
          meaning=t(f"sign.meaning.{made.sign}"))
        for made in table.signs_to(seat)
    ]  # fmt: skip
    lines += [
        t("sign.caught", name=who.seat(made.seat), sign=t(f"sign.{made.sign}"),
          meaning=t(f"sign.meaning.{made.sign}"))
        for made in table.signs_caught_by(seat)
    ]  # fmt: skip
    if seen:
        lines += [
            t("sign.seen", rival=who.seat(rival), sign=t(f"sign.{made.sign}"))
            for made in table.hand_signs() if made.seat == seat
            for rival in made.caught_by
        ]  # fmt: skip
    return lines


def helper_of(table: Table, obs: Observation) -> int | None:
    """The computer partner of the seat of `obs` who may answer with it now (the person decides,
    or hands it the decision: `hand_markup`'s 🤖)."""
    if obs.seat is None or not obs.actions or obs.pending_chant is None:
        return None
    return next(
        (
            p
            for p in table.geometry.partners(obs.seat)
            if is_bot(table.seats[p]) and p in obs.waiting_on
        ),
        None,
    )


def hand_markup(
    t: Translator,
    table_id: int,
    obs: Observation,
    signs: bool,
    hint: bool = False,
    helper: str | None = None,
) -> Keys | None:
    """The cards in one row (tap one to play it), then the chants and answers open to the
    player, then the mazo and the señas: four rows at most, within one phone screen. With
    `hint`, 💡 (what difícil would do); with `helper` (a computer partner's name, when it may
    answer with the player), 🤖 to hand it the decision."""
    if obs.phase is not Phase.PLAY:
        return None
    cards = tuple(
        Button(card_label(a.card), pack(ActData(table_id, obs.step, K.PLAY, a.card)))
        for a in obs.actions
        if a.kind is K.PLAY and a.card is not None
    )
    if not cards and obs.cards:
        # not theirs to play now: the cards shown all the same, as buttons that do nothing
        # (Bot API 10.3), so the keyboard keeps its shape and the hand is in sight
        cards = tuple(Button(card_label(c), disabled=True) for c in obs.cards)
    rows: list[tuple[Button, ...]] = [cards] if cards else []
    rows += _call_buttons(t, table_id, obs.step, obs.actions, signs)
    extra = []
    if hint and obs.actions:
        extra.append(Button(t("button.hint"), pack(HintData(table_id, obs.step, HintOp.HINT))))
    if helper is not None and obs.actions:
        extra.append(
            Button(t("button.hand_off", name=helper),
                   pack(HintData(table_id, obs.step, HintOp.HAND_OFF)))
        )
    if extra:
        rows.append(tuple(extra))
    return Keys(rows) if rows else None


def sign_menu_text(t: Translator, who: Seating, seat: int) -> str:
    """What the señas menu says to `seat`: for whom the seña is ("tu compañera", "tus
    compañeros")."""
    partners = who.table.partners(seat)
    return t(who.agree("sign.menu", partners), count=len(partners))


def handed_text(t: Translator, who: Seating, helper: int) -> str:
    """The answer to 🤖 Que decida: the computer partner at `helper` decides ("decide tu
    compañera")."""
    return t(who.agree("hint.handed", [helper]))


def sign_menu_keys(t: Translator, table_id: int, step: int) -> Keys:
    """The señas, two a row, and the way back to the hand's own buttons."""
    rows = [
        [Button(t(f"sign.{key}"), pack(SignData(table_id, step, key))) for key in pair]
        for pair in (SIGNS[i : i + 2] for i in range(0, len(SIGNS), 2))
    ]
    rows.append([Button(t("button.back"), pack(SignData(table_id, step, SIGN_BACK)))])
    return Keys.of(rows)


def rematch_keys(t: Translator, table_id: int) -> Keys:
    """The match is over: the same table again, in one tap."""
    return Keys.of([[Button(t("button.rematch"), pack(RematchData(table_id)))]])


def vacated_keys(t: Translator, table_id: int) -> Keys:
    """A seat left empty mid-match: a computer player takes it, or the match ends."""
    return Keys.of(
        [
            [
                Button(t("button.bot_takes_seat"), pack(VacatedData(table_id, Vacated.BOT))),
                Button(t("button.end_match"), pack(VacatedData(table_id, Vacated.END))),
            ]
        ]
    )
