// The web table: plain JavaScript, no build step, nothing from another host.
// In Telegram (a Mini App) the launch data comes from Telegram.WebApp when it is loaded, else
// from the URL fragment (tgWebAppData); on the local table a session of our own.
"use strict";

const $app = document.getElementById("app");
const $toast = document.getElementById("toast");
const fragment = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const tg = window.Telegram && window.Telegram.WebApp;
const initData = (tg && tg.initData) || fragment.get("tgWebAppData") || "";
let WORDS = {};  // the page's own words, from the locale files (/api/words/<language>)
let lang = (navigator.language || "es").startsWith("en") ? "en" : "es";
async function loadWords(language) {
  try {
    const response = await fetch(`/api/words/${language}`);
    if (response.ok) { WORDS = await response.json(); lang = language; }
  } catch (e) { /* the keys stand in */ }
}
const w = (key) => WORDS[key] || key;

// -- theme: Telegram's colours when launched there, else the system's ------------------------
(function theme() {
  let params = tg && tg.themeParams;
  if (!params && fragment.get("tgWebAppThemeParams")) {
    try { params = JSON.parse(fragment.get("tgWebAppThemeParams")); } catch (e) { params = null; }
  }
  const want = query.get("theme");
  if (want === "dark" || want === "light") document.documentElement.classList.add(want);
  if (!params) return;
  const root = document.documentElement.style;
  const map = { bg_color: "--bg", text_color: "--fg", hint_color: "--muted",
    button_color: "--accent", button_text_color: "--accent-fg",
    secondary_bg_color: "--panel" };
  for (const [key, css] of Object.entries(map)) if (params[key]) root.setProperty(css, params[key]);
})();
if (tg && tg.ready) tg.ready();

// -- talking to the server ------------------------------------------------------------------------
function headers() {
  const h = { "Content-Type": "application/json" };
  if (initData) h["X-Telegram-Init-Data"] = initData;
  const session = sessionStorage.getItem("truco.session");
  if (session) h["X-Local-Session"] = session;
  return h;
}
async function api(method, path, body) {
  const response = await fetch(path, { method, headers: headers(),
    body: body === undefined ? undefined : JSON.stringify(body) });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}
function toast(text) {
  $toast.textContent = text;
  $toast.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { $toast.hidden = true; }, 3500);
}
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") node.addEventListener("click", v);
    else if (k === "style") node.style.cssText = v;  // (the CSSOM: the page allows no inline styles)
    else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat(3)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
const cardImg = (code, name, cls) =>
  el("img", { src: `/cards/${code}.svg?lang=${lang}`, alt: name, class: cls || null,
              "data-card": code });

// -- the local try-out: a name, then a match ----------------------------------------------------
function showLogin() {
  const input = el("input", { id: "name", required: true, maxlength: 24, autocomplete: "nickname" });
  const form = el("form", {}, el("h1", {}, "🃏 Truco"), el("label", {}, w("name"), " ", input),
    el("button", { type: "submit", id: "enter" }, w("enter")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const data = await api("POST", "/api/local/login", { name: input.value, language: lang });
      sessionStorage.setItem("truco.session", data.session);
      showNew();
    } catch (e) { toast(e.message); }
  });
  $app.replaceChildren(form);
  input.focus();
}

function choice(id, label, options) {
  return el("label", {}, label, " ",
    el("select", { id }, options.map(([value, text]) => el("option", { value }, text))));
}

async function showNew() {
  const form = el("form", { id: "new" }, el("h1", {}, w("newMatch")),
    choice("mode", w("mode"), [["1v1", "1v1"], ["2v2", "2v2"]]),
    choice("target", w("target"), [["30", "30"], ["15", "15"]]),
    choice("flor", w("flor"), [["1", w("con")], ["0", w("sin")]]),
    choice("level", w("level"), [["normal", w("normal")], ["facil", w("facil")],
                                 ["dificil", w("dificil")]]),
    choice("friend", "👥", [["0", w("partner")], ["1", w("friend")]]),
    el("button", { type: "submit", id: "play" }, w("play")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const v = (id) => form.querySelector("#" + id).value;
    try {
      const data = await api("POST", "/api/local/new", { mode: v("mode"), target: +v("target"),
        flor: v("flor") === "1", level: v("level"), friend: v("friend") === "1",
        language: lang });
      openTable(data.table);
    } catch (e) { toast(e.message); }
  });
  const list = el("div", { class: "panel", id: "open" }, el("b", {}, w("open")));
  $app.replaceChildren(form, list);
  try {
    const { tables } = await api("GET", "/api/local/tables");
    for (const t of tables) {
      const names = t.seats.map((s) => s.name).join(", ");
      const teams = t.team_size > 1 ? [0, 1] : [null];
      list.append(el("p", {}, `#${t.id} · ${t.rules} · ${names} `,
        teams.map((team) => el("button", { class: "secondary", onclick: async () => {
          try { await api("POST", `/api/table/${t.id}/join`, { team }); openTable(t.id); }
          catch (e) { toast(e.message); }
        } }, team === null ? w("join") : `${w("team")} ${team + 1}`))));
    }
  } catch (e) { /* nothing open */ }
}

// -- a table, live ----------------------------------------------------------------------------
let current = null;  // { id, view, stream }

function openTable(id) {
  if (current && current.stop) current.stop();
  current = { id, view: null };
  history.replaceState(null, "", `?table=${id}${query.get("theme") ? "&theme=" + query.get("theme") : ""}${location.hash}`);
  follow(current);
}

// Server-sent events read with fetch (an EventSource cannot send our header); reconnects
// after a dropped connection and picks up the view as it is now.
async function follow(state) {
  let stopped = false;
  const controller = new AbortController();
  state.stop = () => { stopped = true; controller.abort(); };
  let pause = 250;
  while (!stopped) {
    try {
      const response = await fetch(`/api/table/${state.id}/events`,
        { headers: headers(), signal: controller.signal });
      if (!response.ok) {
        let text = response.statusText;
        try { text = (await response.json()).error || text; } catch (e) { /* not json */ }
        $app.replaceChildren(el("p", { class: "hint" }, text));
        return;
      }
      pause = 250;
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = chunk.split("\n").filter((l) => l.startsWith("data: "))
            .map((l) => l.slice(6)).join("\n");
          if (data) show(state, JSON.parse(data));
        }
      }
    } catch (e) {
      if (stopped) return;
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 4000);
  }
}

async function act(code) {
  const view = current && current.view;
  if (!view) return;
  const [, kind, card] = code.split(":");
  try {
    const fresh = await api("POST", `/api/table/${view.id}/act`,
      { step: view.step, kind, card: card || null });
    show(current, fresh);
  } catch (e) { toast(e.message); }
}

// An action's answer and the pushed stream race each other: the newest version wins.
function show(state, view) {
  if (state !== current) return;
  if (state.view && state.view.id === view.id && state.view.version > view.version) return;
  state.view = view;
  render(view);
}

// Fósforos as the rule sheet draws them: four sticks and a fifth across make a square.
function fosforos(f) {
  const parts = [];
  let x = 2;
  for (let i = 0; i < f.squares; i++) {
    parts.push(`<rect x="${x}" y="3" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2"/>`,
      `<line x1="${x}" y1="19" x2="${x + 16}" y2="3" stroke="currentColor" stroke-width="2"/>`);
    x += 22;
  }
  for (let i = 0; i < f.loose; i++) {
    parts.push(`<line x1="${x}" y1="3" x2="${x}" y2="19" stroke="currentColor" stroke-width="2"/>`);
    x += 6;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.max(x, 8)}" height="22" role="img">${parts.join("")}</svg>`;
  const span = el("span", { class: "fosforos" });
  span.innerHTML = svg;
  return span;
}

const ARROWS = { bottom: "↓", top: "↑", left: "←", right: "→" };

// Where each seat sits on the screen: you at the bottom, partners opposite.
function places(view) {
  const me = view.seat === null ? 0 : view.seat;
  const n = view.players;
  const spots = n === 2 ? ["bottom", "top"] : ["bottom", "right", "top", "left"];
  const out = {};
  for (let i = 0; i < n; i++) out[(me + i) % n] = spots[i];
  return out;
}

// How long the end of a hand stays on the felt when nothing else happens.
const HOLD_MS = 4000;
const endShown = new Map();  // "table:hand" -> when the page first showed that hand's end

function holdEnd(view, ended) {
  const started = (view.rounds || []).some((plays) => plays.length);
  if (started && !view.over) return false;  // the next hand's first card gathers them
  const key = `${view.id}:${ended.number}`;
  if (!endShown.has(key)) {
    endShown.set(key, Date.now());
    setTimeout(() => { if (current && current.view) render(current.view); }, HOLD_MS + 50);
  }
  return view.over || Date.now() - endShown.get(key) < HOLD_MS;
}

// The seat whose card won a round of the hand in play (null: a parda, or not over yet).
function winnerOf(view, plays, r) {
  const winners = view.winners || [];
  return r < winners.length ? winners[r] : null;
}

function render(view) {
  if (view.language && view.language !== lang) {  // the table's language wins
    lang = view.language;
    loadWords(lang).then(() => { if (current && current.view) render(current.view); });
  }
  document.documentElement.lang = lang;
  const spot = places(view);
  const nodes = [];
  nodes.push(el("div", { class: "head" },
    el("span", {}, view.rules),
    view.hand_number ? el("span", { id: "worth" }, `${w("hand")} ${view.hand_number} · ${w("worth")} ${view.hand_value}`) : null,
    view.seal ? el("span", { title: "/verificar" }, `🔒 ${view.seal}`) : null));
  if (!view.state && view.phase === undefined) {
    nodes.push(el("p", { class: "hint", id: "lobby" }, w("waiting")),
      el("ul", {}, view.seats.map((s) => el("li", {}, s.name))));
    $app.replaceChildren(...nodes);
    return;
  }
  const sides = [0, 1].map((side) => view.seats.filter((_, i) => i % 2 === side)
    .map((s) => s.name).join(" y "));
  nodes.push(el("div", { class: "score", id: "score" },
    [0, 1].map((side) => [
      el("span", {}, sides[side], " ", fosforos(view.fosforos[side]),
        view.fosforos[side].buenas ? " ┃ buenas" : ""),
      el("span", { class: "pts" }, String(view.scores[side]))])));
  const felt = el("div", { class: "felt", id: "felt" });
  view.seats.forEach((s, i) => {
    const badges = [];
    if (i === view.mano) badges.push("mano");
    if (i === view.dealer) badges.push("da");
    const left = view.cards_left ? view.cards_left[i] : 0;
    const backs = i === view.seat ? [] :
      Array.from({ length: left }, () => el("img", { src: "/cards/back.svg", alt: "" }));
    felt.append(el("div", { class: `seat ${view.waiting_on && view.waiting_on.includes(i) ? "turn" : ""}`,
      style: `grid-area:${spot[i]}`, "data-seat": i },
      el("div", { class: "name" }, i === view.seat ? `${s.name} (${w("you")})` : s.name),
      el("div", { class: "badges" }, badges.join(" · ")),
      el("div", { class: "backs" }, backs)));
  });
  const mid = el("div", { class: "mid" });
  // The end of a hand is a moment: its rounds stay on the felt, each winning card marked and
  // the last card played lit, with the result, until the next hand's first card or a few
  // seconds, then the cards are gathered.
  const ended = (view.ended || [])[(view.ended || []).length - 1];
  const holding = ended && holdEnd(view, ended);
  const shownRounds = holding
    ? ended.rounds.map((r) => ({ plays: r.plays, winner: r.winner, parda: r.parda }))
    : (view.rounds || []).map((plays, r) => ({ plays, winner: winnerOf(view, plays, r),
      parda: view.results && view.results[r] === null }));
  shownRounds.forEach((round, r) => {
    if (!round.plays.length) return;
    mid.append(el("div", { class: `round${round.parda ? " parda" : ""}`, "data-round": r + 1 },
      `${r + 1}ª`,
      round.plays.map((p) => {
        const last = holding && ended.last && ended.last.seat === p.seat && ended.last.card === p.card;
        const won = round.winner === p.seat;
        return el("figure", { class: `${won ? "won" : ""}${last ? " last" : ""}`.trim() || null,
            "data-seat": p.seat },  // each card says who played it: where they sit
          cardImg(p.card, `${view.seats[p.seat].name}: ${p.name}`),
          el("figcaption", {}, ARROWS[spot[p.seat]]));
      })));
  });
  if (holding) mid.append(el("div", { class: "banner", id: "hand-end", role: "status" },
    ended.lines.map((line) => el("p", {}, line))));
  felt.append(mid);
  nodes.push(felt);
  const lines = el("div", { class: "lines" });
  if (ended && !holding) lines.append(el("p", { id: "record" }, ended.lines.join(" · ")));
  for (const line of view.bets || []) lines.append(el("p", {}, line));
  if (view.pending) lines.append(el("p", { class: "pending", id: "pending" }, view.pending));
  nodes.push(lines);
  if (view.over) {
    const winner = view.winner === null || view.winner === undefined ? "" : `${w("won")}: ${sides[view.winner]}`;
    nodes.push(el("p", { class: "over", id: "over" }, `🏆 ${w("over")}. ${winner}`));
    if (!initData) nodes.push(el("button", { onclick: () => showNew() }, w("again")));
  }
  if (view.mine) nodes.push(el("p", { class: "hint", id: "mine" }, view.mine));
  if (view.hand) {
    const playable = new Map((view.actions || []).filter((a) => a.card).map((a) => [a.card, a]));
    nodes.push(el("div", { class: "hand", id: "hand" }, view.hand.map((c) => {
      const a = playable.get(c.card);
      return el("button", { class: "card", disabled: !a, "aria-label": c.name,
        onclick: a ? () => act(a.code) : null }, cardImg(c.card, c.name));
    })));
    const calls = (view.actions || []).filter((a) => !a.card);
    nodes.push(el("div", { class: "calls", id: "calls" },
      calls.map((a) => el("button", { "data-code": a.code, onclick: () => act(a.code) }, a.label))));
  }
  if (view.signs_seen && view.signs_seen.length) {
    nodes.push(el("p", { class: "hint", id: "signs-seen" }, w("signs_seen"), " ",
      view.signs_seen.join(" · ")));
  }
  if (view.signs) {
    const pick = el("select", { id: "sign" }, view.signs.map((s) => el("option", { value: s.key }, s.label)));
    nodes.push(el("div", { class: "calls" }, pick, el("button", { class: "secondary", id: "send-sign",
      onclick: async () => {
        try {
          await api("POST", `/api/table/${view.id}/sign`, { step: view.step, sign: pick.value });
          toast("✓");
        } catch (e) { toast(e.message); }
      } }, w("sign"))));
  }
  $app.replaceChildren(...nodes);
}

// -- start ----------------------------------------------------------------------------------------
(async function start() {
  await loadWords(lang);
  const startParam = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) ||
    fragment.get("tgWebAppStartParam") || "";
  const fromLink = /^t(\d+)$/.exec(startParam);
  const table = query.get("table") || (fromLink && fromLink[1]);
  if (initData) {
    if (table) openTable(+table);
    else $app.replaceChildren(el("p", { class: "hint" }, "?"));
    return;
  }
  if (!sessionStorage.getItem("truco.session")) { showLogin(); return; }
  if (table) openTable(+table); else showNew();
})();
