"""The try-out's own routes (`python -m bot --local`, see `local.py`): a name typed on the page
(a session, kept as a cookie), who the session is, a new table with computer players, the
lobbies with a free seat, and a seat taken at one. A Mini App never has them."""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

from bot.game import MatchConfig
from bot.game.seats import players_of, seats, side_of
from bot.i18n import translator
from bot.model.names import clean_name
from bot.model.table import Table
from bot.views.common import plain, rules_line, seating_at
from bot.web.auth import LOCAL_CHAT, SESSION_COOKIE, SESSION_IDLE, Viewer
from bot.web.guard import JoinBody, LoginBody, NewTableBody, language_of
from bot.web.routes import Routes, error_answer

PAST_LISTED = 8  # the viewer's finished matches the menu lists
PAST_LOOKED_AT = 40  # the try-out's last finished matches looked through for them


class TryOutRoutes(Routes):
    """The routes, and the try-out's own (registered only when `local` is set)."""

    async def local_login(self, request: web.Request) -> web.Response:
        assert self.local is not None
        self._limited(request)
        body = await self._body(request, LoginBody, language_of(request))
        name = clean_name(body.name)
        if not name:
            return error_answer(400, translator(body.language)("web.error.name"))
        # A new person: an id nobody had, in this run or any before it (the names the
        # database keeps are every local person's who ever logged in).
        while await self.core.people.names([user_id := self.local.new_id()]):
            pass
        token, viewer = self.local.login(name, user_id)
        seeing = self.core.people.see(viewer.user_id, viewer.name, None)
        await self._service(seeing, None, body.language)
        answer = web.json_response({"session": token, "user_id": viewer.user_id})
        # A cookie the page's script cannot read, sent to this server alone: a new tab or a
        # reload keeps the seat.
        answer.set_cookie(
            SESSION_COOKIE, token, max_age=int(SESSION_IDLE), httponly=True, samesite="Strict",
            path="/",
        )  # fmt: skip
        return answer

    async def local_me(self, request: web.Request) -> web.Response:
        """Who the page's session is (null: nobody yet, the page asks for a name)."""
        self._limited(request)
        viewer = await self.auth.identify(request)
        if viewer is None:
            return web.json_response({"user_id": None, "name": None})
        return web.json_response({"user_id": viewer.user_id, "name": viewer.name})

    async def local_new(self, request: web.Request) -> web.Response:
        """A new table: the options of /nueva, and computer players in the seats asked for."""
        assert self.local is not None
        viewer = await self._viewer(request)
        body = await self._body(request, NewTableBody, language_of(request))
        config = MatchConfig(
            players=players_of(body.mode), target=body.target, flor=body.flor,
            mazo_penalty=body.house, pica_pica=body.pica, duel_falta=body.duel_falta,
            falta_malas=body.falta_malas and body.target == 30,
        )  # fmt: skip
        table_seats = seats(config.players)
        # A friend takes a seat (the rival in 1v1, the partner in teams); computer players
        # take the others: the opener sits in seat 0, team 0.
        bots: list[int | None]
        if table_seats.team_size == 1:
            bots = [] if body.friend else [None]
        else:
            partners = [0] * (table_seats.team_size - 1)
            bots = [*([1] * table_seats.team_size), *(partners[1:] if body.friend else partners)]
        thread = await self.core.lobby.last_thread(LOCAL_CHAT) + 1
        opening = self._open_local(viewer, thread, config, body, bots)
        table = await self._service(opening, None, body.language)
        return web.json_response({"table": table.id})

    async def _open_local(
        self,
        viewer: Viewer,
        thread: int,
        config: MatchConfig,
        body: NewTableBody,
        bots: Sequence[int | None],
    ) -> Table:
        table = await self.core.lobby.open(
            LOCAL_CHAT, thread, viewer.user_id, config, body.language, body.timer,
            seat_opener=True, hints=body.hints and bool(bots),
        )  # fmt: skip
        for team in bots:
            await self.core.lobby.add_bot(table.id, viewer.user_id, team, body.level)
        return table

    async def local_tables(self, request: web.Request) -> web.Response:
        """Lobbies with a free seat, for friends in other windows; and the viewer's last
        finished matches, to watch again."""
        viewer = await self._viewer(request)
        lobbies = sorted(
            (t for t in self.core.tables.lobbies() if t.chat_id == LOCAL_CHAT), key=lambda t: t.id
        )  # (local mode is SQLite: every open table is in the core's cache)
        out = [await self._view(t, None) for t in lobbies if None in t.seats]
        played = []
        for record in await self.core.history.recent(LOCAL_CHAT, PAST_LOOKED_AT):
            table = await self.core.history.table(record.table_id)
            seat = table.seat_of(viewer.user_id) if table is not None else None
            if table is None or seat is None:
                continue
            t = translator(table.language)
            who = seating_at(t, table, await self.core.people.at(table))
            played.append({
                "id": table.id, "rules": plain(rules_line(t, table.config)),
                "seats": [{"name": plain(who.names[s]), "side": side_of(s)}
                          for s in table.geometry.all],
                "scores": list(record.scores), "winner": record.winner, "side": side_of(seat),
            })  # fmt: skip
            if len(played) == PAST_LISTED:
                break
        return web.json_response({"tables": out, "played": played})

    async def local_join(self, request: web.Request) -> web.Response:
        viewer, table, _ = await self._viewer_and_table(request)
        body = await self._body(request, JoinBody, table.language)
        joining = self.core.lobby.join(table.id, viewer.user_id, body.team)
        await self._service(joining, table, table.language)
        return web.json_response({"table": table.id})
