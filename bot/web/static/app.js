// The web table: plain JavaScript, no build step, nothing from another host.
// In Telegram (a Mini App) the launch data comes from Telegram.WebApp when it is loaded, else
// from the URL fragment (tgWebAppData); on the local table a session cookie of our own.
"use strict";

const $app = document.getElementById("app");
const $toast = document.getElementById("toast");
const fragment = new URLSearchParams(location.hash.slice(1));
const query = new URLSearchParams(location.search);
const tg = window.Telegram && window.Telegram.WebApp;
const initData = (tg && tg.initData) || fragment.get("tgWebAppData") || "";
const reduceMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
let WORDS = {};  // the page's own words, from the locale files (/api/words/<language>)
// Telegram's language for its user, else the browser's: a tag ("en-US") until the server, which
// knows the languages there are, answers the words with the one it speaks (Content-Language).
let lang = (function language() {
  try {
    const user = JSON.parse(new URLSearchParams(initData).get("user") || "{}");
    if (user.language_code) return user.language_code;
  } catch (e) { /* no user */ }
  return navigator.language || "es";
})();
async function loadWords(language) {
  try {
    const response = await fetch(`/api/words/${encodeURIComponent(language)}`);
    if (response.ok) {
      WORDS = await response.json();
      lang = response.headers.get("Content-Language") || language;
    }
  } catch (e) { /* the keys stand in */ }
}
const w = (key) => WORDS[key] || key;

// -- Telegram's side: events to the client, and the ones it sends us ------------------------------
// (telegram-web-app.js does this; the page loads nothing from another host, so it speaks the
// few events it needs itself: https://core.telegram.org/api/web-events)
function post(type, data) {
  const payload = JSON.stringify(data || {});
  try {
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, payload);
    else if (window.external && "notify" in window.external) {
      window.external.notify(JSON.stringify({ eventType: type, eventData: data || {} }));
    } else if (window.parent !== window) {
      window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data || {} }), "*");
    }
  } catch (e) { /* not in Telegram */ }
}
const heard = {};  // event type -> handler
function received(type, data) { if (heard[type]) heard[type](data || {}); }
if (initData && !tg) {
  window.Telegram = window.Telegram || {};
  window.Telegram.WebView = window.Telegram.WebView || { receiveEvent: received };
  window.addEventListener("message", (event) => {
    try {
      const message = typeof event.data === "string" ? JSON.parse(event.data) : event.data;
      if (message && message.eventType) received(message.eventType, message.eventData);
    } catch (e) { /* not Telegram's */ }
  });
}
const haptic = (data) => { if (initData) post("web_app_trigger_haptic_feedback", data); };
heard.back_button_pressed = () => post("web_app_close");

// -- sound: off until one tap turns it on (remembered); drawn by the page itself (Web Audio, no
// file): a card on the felt, a chant, your turn ----------------------------------------------
const sound = { on: (() => { try { return localStorage.getItem("truco.sound") === "1"; } catch (e) { return false; } })(),
  context: null };
function audio() {
  if (!sound.on) return null;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!sound.context) sound.context = new Context();
  if (sound.context.state === "suspended") sound.context.resume();
  return sound.context;
}
function tone(notes, type, volume) {  // notes: [[frequency, start s, length s]]
  const ctx = audio();
  if (!ctx) return;
  for (const [frequency, start, length] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.value = frequency;
    const t0 = ctx.currentTime + start;
    gain.gain.setValueAtTime(volume, t0);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0);
    osc.stop(t0 + length + 0.02);
  }
}
const sounds = {
  card: () => tone([[190, 0, 0.07]], "triangle", 0.25),
  chant: () => tone([[523, 0, 0.12], [784, 0.1, 0.16]], "square", 0.06),
  turn: () => tone([[880, 0, 0.18]], "sine", 0.12),
};
// A browser lets a page sound only once a person has tapped it: after a reload with sound left
// on, the page is silent until the first tap, and the button says so (🔈) rather than 🔊.
sound.awake = !!(navigator.userActivation && navigator.userActivation.hasBeenActive);
document.addEventListener("pointerdown", () => {
  if (!sound.awake) sound.woke = true;  // (this very tap: a tap on 🔈 wakes it, not turns it off)
  sound.awake = true;
  audio();
  drawSound();
}, { once: true });
document.addEventListener("click", () => { sound.woke = false; });  // (after the button's own)
function drawSound(button) {
  const node = button || document.getElementById("sound");
  if (!node) return;
  const waits = sound.on && !sound.awake;
  node.setAttribute("aria-pressed", sound.on ? "true" : "false");
  node.setAttribute("aria-label", waits ? w("soundWaits") : w("sound"));
  node.title = waits ? w("soundWaits") : w("sound");
  node.textContent = waits ? "🔈" : sound.on ? "🔊" : "🔇";
}
function soundButton() {
  const button = el("button", { type: "button", class: "secondary sound", id: "sound",
    onclick: () => {
      if (!sound.woke) {
        sound.on = !sound.on;
        try { localStorage.setItem("truco.sound", sound.on ? "1" : "0"); } catch (e) { /* private */ }
      }
      drawSound(button);
      if (sound.on) sounds.turn();
    } });
  drawSound(button);
  return button;
}
heard.viewport_changed = (data) => {
  if (data.is_state_stable && data.height) {
    document.documentElement.style.setProperty("--stable-h", `${data.height}px`);
  }
};

// -- theme: Telegram's colours when launched there, else the system's ------------------------
(function theme() {
  let params = tg && tg.themeParams;
  if (!params && fragment.get("tgWebAppThemeParams")) {
    try { params = JSON.parse(fragment.get("tgWebAppThemeParams")); } catch (e) { params = null; }
  }
  const want = query.get("theme");
  if (want === "dark" || want === "light") document.documentElement.classList.add(want);
  applyTheme(params, !want);
  heard.theme_changed = (data) => applyTheme(data.theme_params, !want);
})();
// Telegram's colours, and its light or dark (told by its background): the colours it does not
// give (the felt, the sides, a review's good and bad) are the page's own of that scheme.
function applyTheme(params, scheme) {
  if (!params) return;
  const root = document.documentElement.style;
  const map = { bg_color: "--bg", text_color: "--fg", hint_color: "--muted",
    button_color: "--accent", button_text_color: "--accent-fg",
    secondary_bg_color: "--panel" };
  for (const [key, css] of Object.entries(map)) if (params[key]) root.setProperty(css, params[key]);
  const rgb = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(params.bg_color || "");
  if (scheme && rgb) {
    const [r, g, b] = rgb.slice(1).map((x) => parseInt(x, 16) / 255);
    const dark = 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.5;
    document.documentElement.classList.toggle("dark", dark);
    document.documentElement.classList.toggle("light", !dark);
  }
}
if (initData) {
  if (tg && tg.ready) { tg.ready(); tg.expand && tg.expand(); }
  else { post("web_app_ready"); post("web_app_expand"); post("web_app_request_viewport"); }
  if (tg && tg.BackButton) { tg.BackButton.show(); tg.BackButton.onClick(() => tg.close()); }
  else post("web_app_setup_back_button", { is_visible: true });
}

// -- talking to the server ------------------------------------------------------------------------
let offset = 0;  // the server's clock minus ours, in seconds (deadlines are the server's)
function heardTime(response) {
  const server = parseFloat(response.headers.get("X-Server-Time") || "");
  if (!Number.isNaN(server)) offset = server - Date.now() / 1000;
}
const serverNow = () => Date.now() / 1000 + offset;
function headers() {
  const h = { "Content-Type": "application/json", "Accept-Language": lang };
  if (initData) h["X-Telegram-Init-Data"] = initData;
  return h;
}
async function api(method, path, body) {
  const response = await fetch(path, { method, headers: headers(), credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body) });
  heardTime(response);
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
      await api("POST", "/api/local/login", { name: input.value, language: lang });
      const table = query.get("table");
      if (table) openTable(+table); else showNew();
    } catch (e) { toast(e.message); }
  });
  leave();
  $app.replaceChildren(form);
  input.focus();
}

function choice(id, label, options) {
  return el("label", {}, label, " ",
    el("select", { id }, options.map(([value, text]) => el("option", { value }, text))));
}

async function showNew() {
  const form = el("form", { id: "new" }, el("h1", {}, w("newMatch")),
    choice("mode", w("mode"), [["1v1", "1v1"], ["2v2", "2v2"], ["3v3", "3v3"]]),
    choice("target", w("target"), [["30", "30"], ["15", "15"]]),
    choice("flor", w("flor"), [["1", w("con")], ["0", w("sin")]]),
    choice("malas", w("malas"), [["0", w("sin")], ["1", w("con")]]),
    choice("pica", w("pica"), [["0", w("picaOn")], ["6", w("picaSix")], ["-1", w("picaOff")]]),
    choice("level", w("level"), [["normal", w("normal")], ["facil", w("facil")],
                                 ["dificil", w("dificil")]]),
    choice("friend", w("seats"), [["0", w("partner")], ["1", w("friend")]]),
    choice("timer", w("timer"), [["0", w("notimer")], ["30", "30 s"], ["60", "60 s"],
                                 ["120", "120 s"]]),
    el("button", { type: "submit", id: "play" }, w("play")));
  // (pica-pica and the falta in a duel: asked at a table of six only)
  const pica = form.querySelector("#pica").parentElement;
  const six = () => { pica.hidden = form.querySelector("#mode").value !== "3v3"; };
  form.querySelector("#mode").addEventListener("change", six);
  six();
  // (the falta a las malas, R46: a match to 30 only)
  const malas = form.querySelector("#malas").parentElement;
  const thirty = () => { malas.hidden = form.querySelector("#target").value !== "30"; };
  form.querySelector("#target").addEventListener("change", thirty);
  thirty();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const v = (id) => form.querySelector("#" + id).value;
    try {
      const data = await api("POST", "/api/local/new", { mode: v("mode"), target: +v("target"),
        flor: v("flor") === "1", pica: v("pica") !== "-1", duel_falta: Math.max(0, +v("pica")),
        falta_malas: v("malas") === "1" && v("target") === "30",
        level: v("level"), friend: v("friend") === "1", timer: +v("timer"), language: lang });
      openTable(data.table);
    } catch (e) { toast(e.message); }
  });
  // The tables waiting for players (or words saying none does), and the matches played here,
  // each to watch again.
  const list = el("div", { class: "panel", id: "open" }, el("b", {}, w("open")));
  const played = el("div", { class: "panel", id: "played", hidden: true }, el("b", {}, w("pastMatches")));
  leave();
  menuUrl();
  $app.replaceChildren(form, list, played);
  let found = { tables: [], played: [] };
  try { found = await api("GET", "/api/local/tables"); } catch (e) { /* none to list */ }
  if (!form.isConnected) return;  // (the page went elsewhere meanwhile)
  for (const t of found.tables) {
    const names = t.seats.map((s) => s.name).join(", ");
    const teams = t.team_size > 1 ? [0, 1] : [null];
    list.append(el("p", {}, `#${t.id} · ${t.rules} · ${names} `,
      teams.map((team) => el("button", { type: "button", class: "secondary", onclick: async () => {
        try { await api("POST", `/api/table/${t.id}/join`, { team }); openTable(t.id); }
        catch (e) { toast(e.message); }
      } }, team === null ? w("join") : `${w("team")} ${team + 1}`))));
  }
  if (!found.tables.length) list.append(el("p", { class: "hint" }, w("openNone")));
  for (const m of found.played || []) {
    const sides = sideNames(m);
    const result = m.winner === null || m.winner === undefined ? ""
      : ` · ${m.winner === m.side ? w("youWon") : w("youLost")}`;
    played.append(el("div", { class: "match", "data-table": m.id },
      el("p", {}, `#${m.id} · ${sides[0]} ${m.scores[0]} – ${m.scores[1]} ${sides[1]}${result}`,
        el("br"), el("span", { class: "hint" }, m.rules)),
      el("button", { type: "button", class: "secondary", onclick: () => showReplay(m.id) }, w("watchShort"))));
  }
  played.hidden = !(found.played || []).length;
}

// Leaving what the page shows (a table, a replay, a bracket) for something else: nothing of it
// is followed or redrawn any more (its stream closed, its timers cancelled).
function leave() {
  if (current && current.stop) current.stop();
  current = null;
  clearTimeout(redraw.timer);
  redraw.timer = null;
  redraw.at = Infinity;
  if (replaying && replaying.timer) clearInterval(replaying.timer);
  replaying = null;
  clearTimeout(tourneyTimer);
  tourneyTimer = null;
  picking = null;
  $app.classList.remove("table", "ended", "reviewing");
}

const themed = () => (query.get("theme") ? `theme=${query.get("theme")}` : "");
function menuUrl() {  // (a reload stays on the menu)
  history.replaceState(null, "", `${location.pathname}${themed() ? "?" + themed() : ""}${location.hash}`);
}

// Words with a way back, never words alone: to the menu on this machine, to the chat in
// Telegram.
function deadEnd(text) {
  leave();
  const back = initData
    ? el("button", { type: "button", class: "secondary", id: "way-back", onclick: () => {
      if (tg && tg.close) tg.close(); else post("web_app_close");
    } }, w("toChat"))
    : el("button", { type: "button", class: "secondary", id: "way-back", onclick: () => showNew() }, w("toMenu"));
  $app.replaceChildren(el("p", { class: "hint", role: "alert" }, text), back);
}

// -- a table, live ----------------------------------------------------------------------------
let current = null;  // { id, view, stream }

function openTable(id) {
  leave();
  current = { id, view: null };
  history.replaceState(null, "", `?table=${id}${themed() ? "&" + themed() : ""}${location.hash}`);
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
        { headers: headers(), signal: controller.signal, credentials: "same-origin" });
      if (!response.ok) {
        let text = response.statusText;
        try { text = (await response.json()).error || text; } catch (e) { /* not json */ }
        if (state !== current) return;
        if (response.status === 401 && !initData) { showLogin(); return; }
        deadEnd(text);
        return;
      }
      heardTime(response);
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
  haptic({ type: "impact", impact_style: "light" });
  try {
    const fresh = await api("POST", `/api/table/${view.id}/act`,
      { step: view.step, kind, card: card || null });
    show(current, fresh);
  } catch (e) { toast(e.message); }
}

// 💡 A hint: what the hard computer player would do, for this player alone; it stays under
// the hand until the game moves on.
let advice = null;  // { id, step, text }
async function askHint() {
  const view = current && current.view;
  if (!view) return;
  try {
    const got = await api("POST", `/api/table/${view.id}/hint`, { step: view.step });
    advice = { id: view.id, step: view.step, text: got.text };
    render(current.view, false);
  } catch (e) { toast(e.message); }
}

async function handOff() {  // 🤖 the computer partner answers for the side
  const view = current && current.view;
  if (!view) return;
  try {
    await api("POST", `/api/table/${view.id}/handoff`, { step: view.step });
    // (no toast: the view that comes says "🤖 … decide", where the button was)
  } catch (e) { toast(e.message); }
}

const told = new Set();  // the timer's moves this page said ("<table>:<version>")

// An action's answer and the pushed stream race each other: the newest version wins.
function show(state, view) {
  if (state !== current) return;
  if (state.view && state.view.id === view.id && state.view.version > view.version) return;
  const before = state.view;
  state.view = view;
  enqueueEnds(view, !before);
  for (const timed of view.timeouts || []) {  // the timer moved for someone: said, once
    const key = `${view.id}:${timed.key}`;
    if (told.has(key)) continue;
    told.add(key);
    if (before) {
      toast(timed.text);
      if (timed.seat === view.seat) haptic({ type: "notification", notification_type: "warning" });
    }
  }
  const mine = view.seat !== null && view.seat !== undefined;
  const waits = (v) => !!(v && v.waiting_on && v.waiting_on.includes(v.seat));
  if (mine && waits(view) && !waits(before)) {
    haptic({ type: "notification", notification_type: "success" });  // your turn
    sounds.turn();
  }
  render(view, !before);
}

// Fósforos as a table draws them: each square of five built side by side (left, top, right,
// bottom, then the fifth across), the malas and the buenas apart where 15 falls (a match to
// 30), the points beside them as a number. Every match is a `.match` line: nothing else drawn
// can be counted as one.
function fosforos(points, target) {
  const S = 14, GAP = 6, parts = [];
  let x = 1;
  const group = (n) => {  // n of 1..5 matches of one square
    const sides = [[x, 1, x, 1 + S], [x, 1, x + S, 1], [x + S, 1, x + S, 1 + S],
      [x, 1 + S, x + S, 1 + S], [x, 1 + S, x + S, 1]];
    for (const [x1, y1, x2, y2] of sides.slice(0, n)) {
      parts.push(`<line class="match" x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}"/>`);
    }
    x += S + GAP;
  };
  const run = (p) => { for (let left = p; left > 0; left -= 5) group(Math.min(5, left)); };
  const split = target === 30;
  const malas = split ? Math.min(points, 15) : points;
  const buenas = split ? Math.max(points - 15, 0) : 0;
  run(malas);
  if (split && buenas) {  // las buenas: after a clear gap, on a band of their own
    x += 2;
    const start = x - 4;
    const width = Math.ceil(buenas / 5) * (S + GAP) + 2;
    parts.push(`<rect class="buenas" x="${start}" y="-2" width="${width}" height="${S + 6}" rx="4"/>`);
    run(buenas);
  }
  const width = Math.max(x, 4);
  const span = el("span", { class: "fosforos", role: "img",
    "aria-label": `${points} ${w("points")}${buenas ? ` (${buenas} ${w("buenas")})` : ""}`,
    "data-points": points });
  span.innerHTML = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="-3 -3 ${width + 4} ${S + 8}" ` +
    `width="${width + 4}" height="${S + 8}" aria-hidden="true">${parts.join("")}</svg>`;
  return span;
}

// Where each seat sits on the screen: you at the bottom, partners opposite.
function places(view) {
  const me = view.seat === null || view.seat === undefined ? 0 : view.seat;
  const n = view.players;
  const spots = n === 2 ? ["bottom", "top"]
    : n === 4 ? ["bottom", "right", "top", "left"]
    : ["bottom", "br", "tr", "top", "tl", "bl"];  // six: round the table, the opposite on top
  const out = {};
  for (let i = 0; i < n; i++) out[(me + i) % n] = spots[i];
  return out;
}

// A hand's end is a moment, never in the way of the hand in play, and never behind the game.
// Every end a view brings that this page has not shown is queued (a first view of a table, a
// reload or a new tab, shows none of the ends it lists: those hands are over; a match that is
// over shows its last); of ends that came together only the newest is held, the older ones'
// lines told in its banner. While the hand in play has not begun (no card, no word said), the
// felt shows the end's cards (each round's winner marked, the last card lit) and its lines;
// once the new hand begins the felt shows it at once, and the end's lines stay beside it a
// moment more. Then the cards are gathered.
const HOLD_MS = 4000;  // the newest end, while nothing else happens
const SHORT_MS = 1600;  // an end with more waiting, or beside a hand begun
const GATHER_MS = reduceMotion ? 0 : 350;
const queue = [];  // the ends to show, oldest first: { key, table, ended, at }
const queued = new Set();
const duelKey = (duel) => (duel === null || duel === undefined ? "-" : duel);

function enqueueEnds(view, first) {
  const ends = view.ended || [];
  ends.forEach((ended, i) => {
    const key = `${view.id}:${ended.number}:${duelKey(ended.duel)}`;
    if (queued.has(key)) return;
    queued.add(key);
    if (first && !(view.over && i === ends.length - 1)) return;  // (over before this page)
    queue.push({ key, table: view.id, ended, at: null, earlier: [] });
  });
  // (the felt shows the newest end: an older one it has not left yet, or never showed, is told
  // in the newest's banner)
  while (queue.length > 1) {
    const older = queue.shift();
    if (older.table !== queue[0].table) continue;
    // (an end painted a while ago was seen: only ends never painted, or painted a moment
    // ago, are carried)
    const fresh = (since) => !since || Date.now() - since < SHORT_MS;
    const carried = older.earlier.filter((e) => fresh(e.since));
    if (fresh(older.paintedAt)) carried.push({ ended: older.ended, since: older.paintedAt || null });
    queue[0].earlier.unshift(...carried);
  }
}

// One timer redraws the table when the soonest thing on it is due (an end's moment over, a
// chant's bubble gone); each drawing asks again for what is due after it.
const redraw = { timer: null, at: Infinity };
function redrawIn(ms) {
  const at = Date.now() + Math.max(0, ms);
  if (redraw.timer !== null && redraw.at <= at) return;
  clearTimeout(redraw.timer);
  redraw.at = at;
  redraw.timer = setTimeout(() => {
    redraw.timer = null;
    redraw.at = Infinity;
    if (current && current.view) render(current.view);
  }, at - Date.now());
}

// The hand's end shown now, if any: the newest, while not yet shown long enough.
function endToHold(view, started) {
  const now = Date.now();
  while (queue.length) {
    const head = queue[0];
    if (head.table !== view.id) { queue.shift(); continue; }
    if (view.over) return head;
    // (an end once shown beside a hand begun never comes back on the felt)
    if (started) head.passed = true;
    const hold = started || head.passed ? SHORT_MS : HOLD_MS;
    if (head.at === null) head.at = now;
    if (now - head.at < hold || head.drawn !== true) {  // (drawn: once painted, at least)
      if (!head.drawn) {
        head.drawn = "soon";
        requestAnimationFrame(() => {
          head.drawn = true;
          head.paintedAt = Date.now();
          for (const e of head.earlier) e.since = e.since || head.paintedAt;
        });
      }
      head.until = head.at + hold;
      redrawIn(head.until - now + 20);
      return head;
    }
    queue.shift();
  }
  return null;
}

// What the players said aloud: a bubble at the seat for a moment ("¡Truco!", "Quiero", "27",
// "Son buenas"); the chant that waits for its answer keeps its bubble until it is answered.
// A first view shows only the chant waiting.
const BUBBLE_MS = 2600;
const heardAt = new Map();  // a word's key -> when this page first had it (0: already said)
// `felt`: the hand the felt shows ("<number>:<duel>"): only its words are at the seats.
function bubbles(view, first, felt) {
  const now = Date.now();
  const out = {};  // seat -> { text, key }
  // (words are counted per hand, chants and values apart: the words past the count a hand had
  // at the last drawing are new; a hand's end brings the words that ended it, "No quiero", a
  // mazo, the values said; a hand this page never followed brings none)
  const hear = (hand, duel, said, ended) => {
    const handKey = `${view.id}:${hand}:${duelKey(duel)}`;
    const known = heardCount.get(handKey);
    if (ended && !known) return;
    const count = known || { c: 0, v: 0 };
    const index = { c: 0, v: 0 };
    for (const s of said || []) {
      const kind = s.key[0] === "v" ? "v" : "c";
      const key = `${handKey}:${s.key}`;
      if (index[kind]++ >= count[kind]) {
        count[kind] = index[kind];
        if (!heardAt.has(key)) {
          heardAt.set(key, first ? 0 : now);
          if (!first) bubbles.fresh = true;
        }
      }
      const at = heardAt.get(key);
      if (at && now - at < BUBBLE_MS && handKey === `${view.id}:${felt}`) {
        out[s.seat] = { text: s.text, key };
        redrawIn(at + BUBBLE_MS - now + 20);
      }
    }
    heardCount.set(handKey, count);
  };
  for (const ended of view.ended || []) hear(ended.number, ended.duel, ended.said, true);
  hear(view.hand_number, view.duel, view.said, false);
  if (view.pending && view.said && felt === `${view.hand_number}:${duelKey(view.duel)}`) {
    const chants = view.said.filter((s) => s.key[0] === "c");
    const chant = chants[chants.length - 1];
    if (chant) out[chant.seat] = { text: chant.text, key: `${view.id}:${view.hand_number}:${duelKey(view.duel)}:${chant.key}` };
  }
  return out;
}
const heardCount = new Map();  // a hand's key -> the words it had: { c: chants, v: values }
const popped = new Set();  // bubbles already drawn once (they pop in the first time only)

const seen = new Set();  // cards already drawn on the felt (a new one moves in from its seat)

function sideNames(view) {
  const and = ` ${w("and")} `;
  return [0, 1].map((side) => {
    const names = view.seats.filter((s) => s.side === side).map((s) => s.name);
    return names.length > 2 ? `${names.slice(0, -1).join(", ")}${and}${names[names.length - 1]}`
      : names.join(and);
  });
}

// The clock: the seats the game waits on count down to the core's deadline.
let reminded = null;  // the step whose half-time reminder this page showed
function tick() {
  const view = current && current.view;
  for (const clock of document.querySelectorAll(".clock")) {
    const deadline = +clock.dataset.deadline;
    const total = +clock.dataset.total;
    const left = Math.max(0, deadline - serverNow());
    clock.querySelector(".bar").style.width = `${Math.min(100, (100 * left) / total)}%`;
    clock.querySelector(".secs").textContent = `${Math.ceil(left)} s`;
    clock.classList.toggle("low", left <= total / 4);
    if (view && clock.dataset.mine === "1" && left <= total / 2 && reminded !== view.step) {
      reminded = view.step;
      toast(w("half"));
      haptic({ type: "notification", notification_type: "warning" });
    }
  }
}
setInterval(tick, 250);

function render(view, first, controls, sheet) {
  if (view.language && view.language !== lang) {  // the table's language wins
    lang = view.language;
    loadWords(lang).then(() => { if (current && current.view) render(current.view); });
  }
  document.documentElement.lang = lang;
  $app.classList.add("table");
  // (a live table that ended: its record shown whole, see style.css; a replay keeps its felt)
  $app.classList.toggle("ended", !!view.over && !controls);
  if (!controls) $app.classList.remove("reviewing");
  const spot = places(view);
  const sides = sideNames(view);
  const teams = view.team_size > 1;  // (the sides in their colours)
  const options = el("details", { class: "options", id: "options" },
    el("summary", { "aria-label": w("options") }, el("span", {}, view.seal ? `🔒 ${view.seal}` : "⚙")),
    el("div", { class: "panel" }, el("b", {}, w("options")),
      el("p", {}, view.rules),
      el("p", {}, `${w("timer")}: ${view.turn_seconds ? view.turn_seconds + " s" : w("notimer")}`),
      view.seal ? el("p", {}, initData ? w("seal") : w("sealLocal")) : null));
  // The head names the hand the felt shows: the hand in play, or the one whose end is held
  // there ("Mano 11 · terminó"), never one while the felt shows another.
  const headed = (what) => el("header", { class: "head", id: "head" },
    what ? el("span", { id: "worth" }, what) : null,
    el("span", { class: "rules" }, view.rules),  // (on a wide screen; on a phone in ⚙)
    controls ? null : soundButton(), options);
  const duelOf = (duel) => (duel === null || duel === undefined ? "" : ` · ⚔️ ${w("duel")} ${duel + 1}/3`);
  if (view.phase === undefined) {  // the lobby
    $app.classList.remove("table");
    $app.replaceChildren(headed(null), el("p", { class: "hint", id: "lobby" }, w("waiting")),
      el("ul", {}, view.seats.map((s) => el("li", {}, s.name))));
    return;
  }
  const score = el("div", { class: "score", id: "score" },
    [0, 1].map((side) => el("div", { class: `row${teams ? " side-" + side : ""}`, "data-side": side },
      el("span", { class: "who" }, sides[side]),
      fosforos(view.scores[side], view.target),
      el("span", { class: "pts" }, String(view.scores[side])))));

  // The end of a hand: its cards on the felt while the next hand has not begun (no card, no
  // word: a chant waiting at a hand's start is over that hand), its lines beside.
  const started = (view.rounds || []).some((plays) => plays.length) ||
    !!view.pending || (view.said || []).length > 0;
  const heldEnd = controls ? null : endToHold(view, started);
  const held = controls ? replayEnd(view) : heldEnd && heldEnd.ended;
  const ended = held || (view.ended || [])[(view.ended || []).length - 1];
  const onFelt = !!held && (!!controls || view.over || (!started && !heldEnd.passed));
  const hand = onFelt ? ended.number : view.hand_number;
  const head = headed(onFelt && !view.over
    ? `${w("hand")} ${ended.number}${duelOf(ended.duel)} · ${w("handOver")}`
    : `${w("hand")} ${hand}${duelOf(onFelt ? ended.duel : view.duel)} · ${w("worth")} ${view.hand_value}`);
  const rounds = onFelt
    ? ended.rounds.map((r) => ({ plays: r.plays, winner: r.winner, parda: r.parda }))
    : (view.rounds || []).map((plays, r) => ({ plays,
      winner: r < (view.winners || []).length ? view.winners[r] : null,
      parda: r < (view.results || []).length && view.results[r] === null }));
  const last = onFelt ? ended.last : (() => {
    const open = rounds.filter((r) => r.plays.length);
    const latest = open[open.length - 1];
    return latest ? latest.plays[latest.plays.length - 1] : null;
  })();
  bubbles.fresh = false;
  const feltKey = `${hand}:${duelKey(onFelt ? ended.duel : view.duel)}`;
  const said = controls ? replayWords(view) : bubbles(view, first, feltKey);
  if (bubbles.fresh) { sounds.chant(); haptic({ type: "selection_change" }); }
  let slid = false;  // (a card new on the felt: its sound, once a drawing)
  const felt = el("div", { class: `felt seats-${view.players}${onFelt ? " holding" : ""}`, id: "felt",
    "data-hand": hand });
  view.seats.forEach((s, i) => {
    const badges = [];
    if (i === view.mano) badges.push("mano");
    if (i === view.dealer) badges.push("da");
    const waited = (view.waiting_on || []).includes(i) && !view.over;
    const left = view.cards_left ? view.cards_left[i] : 0;
    const backs = i === view.seat ? [] :
      Array.from({ length: left }, () => el("img", { src: "/cards/back.svg", alt: "" }));
    const played = el("div", { class: "played" });
    rounds.forEach((round, r) => {
      for (const p of round.plays) {
        if (p.seat !== i) continue;
        const key = `${view.id}:${hand}:${p.seat}:${p.card}`;
        const fresh = !seen.has(key);
        seen.add(key);
        if (fresh && !first && !controls) slid = true;
        const won = round.winner === p.seat;
        const isLast = last && last.seat === p.seat && last.card === p.card;
        const what = won ? w("wonRound") : round.parda ? w("parda") : "";
        played.append(el("figure", {
          class: [won ? "won" : "", round.parda ? "parda" : "", isLast ? "last" : "",
            fresh && !first && !reduceMotion && !controls ? "enter" : ""].filter(Boolean).join(" ") || null,
          "data-seat": p.seat, "data-round": r + 1 },
          cardImg(p.card, `${r + 1}ª ${w("round")}: ${s.name} ${w("played")} ${p.name}${what ? ", " + what : ""}`),
          el("figcaption", {}, `${r + 1}ª${won ? " ✓" : round.parda ? " =" : ""}`)));
      }
    });
    const clock = waited && view.deadline && view.turn_seconds
      ? el("div", { class: "clock", role: "timer", "aria-label": w("left"),
        "data-deadline": view.deadline, "data-total": view.turn_seconds,
        "data-mine": i === view.seat ? "1" : "0" },
        el("span", { class: "track" }, el("span", { class: "bar" })), el("span", { class: "secs" }))
      : null;
    const word = said[i];
    const bubble = word ? el("span", { class: `bubble${popped.has(word.key) || reduceMotion ? "" : " pop"}`,
      "data-seat": i }, word.text) : null;
    if (word) popped.add(word.key);
    const kept = controls && onFelt ? heldCards(ended, i) : null;  // (beside the cards played)
    if (kept) played.append(kept);
    // (a pica-pica duel: its two seats face each other, the other four are dimmed, yours
    // never: it is where you look)
    const apart = view.duel_seats && !view.duel_seats.includes(i) && !onFelt;
    felt.append(el("div", {
      class: `seat spot-${spot[i]}${teams ? " side-" + s.side : ""}${waited ? " turn" : ""}` +
        `${apart ? " apart" : ""}${i === view.seat ? " me" : ""}`,
      style: `grid-area:${spot[i]}`, "data-seat": i },
      el("div", { class: "who" },
        el("span", { class: "name" }, i === view.seat ? `${s.name} (${w("you")})` : s.name),
        // (under the name: what the seat says, for a moment in place of its badges and its
        // cards' backs, so that it covers no card and no name; else those)
        el("span", { class: "more" }, kept ? bubble : bubble || [
          badges.length ? el("span", { class: "badges" }, badges.join(" · ")) : null,
          backs.length ? el("span", { class: "backs" }, backs) : null], clock)),
      played));
  });

  // The record beside the felt: a hand's end while it is shown, the betting, the status.
  // (beside a hand begun, the end's cards come with its lines, small: every card played is
  // drawn the moment the server has it, the last of a hand too)
  const mini = (end) => el("div", { class: "mini", "aria-hidden": "true" },
    end.rounds.map((round) => el("span", { class: "round" }, round.plays.map((p) =>
      cardImg(p.card, "", round.winner === p.seat ? "won" : null)))));
  // (ends that came together: after the newest, the older ones' lines, each with its cards,
  // small)
  const earlier = heldEnd && !view.over ? heldEnd.earlier : [];  // (the match's end: its last)
  const banner = held ? el("div", { class: "banner", id: "hand-end", role: "status",
    "data-hand": ended.number },
  held && !onFelt ? mini(ended) : null, ended.lines.map((line) => el("p", {}, line)),
  earlier.slice().reverse().map(({ ended: end }) => el("div", { class: "earlier",
    "data-hand": end.number }, mini(end), end.lines.map((line) => el("p", {}, line))))) : null;
  // (it scrolls on a phone: reachable with the keyboard too)
  // (a replay: the points this action gave, and why, first; a hand's end says them itself)
  const scored = view.scored && view.scored.length && !view.hand_over
    ? el("div", { class: "scored", id: "scored", role: "status" }, view.scored.map((line) => el("p", {}, line)))
    : null;
  // (what the turn's timer did in the hand on the felt, as Telegram's board says it)
  const timed = (view.timeouts || []).filter((x) => x.hand === hand && !controls)
    .map((x) => el("p", { class: "timed-out" }, x.text));
  const lines = el("div", { class: "lines", id: "lines", tabindex: 0, role: "region",
    "aria-label": w("record") }, scored, timed, banner);
  if (view.signs_seen && view.signs_seen.length) {  // (a partner's señas: first, for you alone)
    lines.append(el("p", { class: "seen", id: "signs-seen" }, w("signs_seen"), " ",
      view.signs_seen.join(" · ")));
  }
  if (view.signs_made && view.signs_made.length) {  // (yours, with what each says)
    lines.append(el("p", { class: "seen", id: "signs-made" }, w("signs_made"), " ",
      view.signs_made.join(" · ")));
  }
  for (const line of view.bets || []) lines.append(el("p", { class: "bet" }, line));
  for (const line of view.status_lines || []) lines.append(el("p", { class: "status" }, line));
  if (ended && !held) lines.append(el("p", { id: "record" }, ended.lines.join(" · ")));

  const side = el("aside", { class: "side" }, score, lines);
  const dock = el("div", { class: "dock", id: "dock" });
  if (view.over) {  // the match's end takes the place of the hand: the result and the rematch
    const winner = view.winner === null || view.winner === undefined ? "" : sides[view.winner];
    dock.append(el("div", { class: "over panel", id: "over", role: "status" },
      el("p", { class: "trophy" }, `🏆 ${w("over")}. ${winner ? w("won") + ": " + winner : ""}`),
      el("p", { id: "final" }, `${w("final")}: ${sides[0]} ${view.scores[0]} – ${view.scores[1]} ${sides[1]}`),
      mine(view) && !controls ? el("button", { type: "button", id: "rematch", onclick: rematch }, w("rematch")) : null,
      mine(view) && !controls ? reviewButton(() => showReplay(view.id, { review: true })) : null,
      !controls ? el("button", { type: "button", class: "secondary", id: "watch",
        onclick: () => showReplay(view.id) }, w("watch")) : null,
      !initData && !controls ? el("button", { type: "button", class: "secondary", onclick: () => showNew() }, w("again")) : null));
  }

  // Everything the player can do now, below the felt and never over it: a chant that waits
  // and its answers, the hand (always at its full size), the chants; mazo apart.
  // (a pica-pica duel you are out of: whose it is, and when yours comes)
  if (!controls && mine(view) && view.duel_seats && !view.duel_seats.includes(view.seat) && !onFelt) {
    const [a, b] = view.duel_seats.map((i) => view.seats[i].name);
    const yours = view.my_duel > view.duel ? `${w("duelNext")} ${view.my_duel + 1}` : w("duelDone");
    dock.append(el("p", { class: "hint duel-note", id: "duel-note" },
      `⚔️ ${w("duelNow")} ${view.duel + 1}/3: ${a} – ${b} · ${yours}`));
  }
  if (view.pending) dock.append(el("p", { class: "pending", id: "pending", role: "status" }, view.pending));
  if (view.hand && !view.over) {
    const playable = new Map((view.actions || []).filter((a) => a.card).map((a) => [a.card, a]));
    const idle = playable.size === 0;  // (not your card to play: the same size, no ring)
    // (your turn, in words, beside your cards: the plate lit on the felt is not enough)
    const turn = !controls && (view.waiting_on || []).includes(view.seat);
    dock.append(el("div", { class: `hand${idle ? " idle" : ""}`, id: "hand", role: "group",
      "aria-label": w("yourCards"), style: `--cards:${view.hand.length}` },
      turn ? el("span", { class: "your-turn", id: "your-turn", role: "status" }, w("yourTurn")) : null,
      view.hand.map((c) => {
        const a = playable.get(c.card);
        // (a review's moment: the card played and difícil's are marked, and say so)
        return el("button", { type: "button", class: `card${c.mark ? " " + c.mark : ""}`, disabled: !a,
          "aria-label": c.note ? `${c.name}: ${c.note}` : c.name,
          onclick: a ? () => act(a.code) : null }, cardImg(c.card, ""),
        c.note ? el("span", { class: "mark", "aria-hidden": "true" }, c.note) : null);
      })));
    const calls = (view.actions || []).filter((a) => !a.card);
    const chants = calls.filter((a) => !a.quiet);
    // (the chants first, mazo last and apart: at the row's end, quieter)
    const mazo = calls.filter((a) => a.quiet).map((a) => el("button", { type: "button",
      class: "mazo", "data-code": a.code, onclick: () => act(a.code) }, a.label));
    // (one row that wraps: the chants and the tools flow together, mazo at its end)
    const acts = el("div", { class: "acts" });
    if (chants.length || mazo.length) {
      acts.append(el("div", { class: "calls", id: "calls", role: "group", "aria-label": w("answers") },
        chants.map((a) => el("button", { type: "button", "data-code": a.code,
          onclick: () => act(a.code) }, a.label)), mazo));
    }
    // A quieter row: what your hand holds to say, the señas for a partner, 💡, 🤖.
    const tools = el("div", { class: "tools" });
    if (view.mine) tools.append(el("span", { class: "hint mine", id: "mine" }, view.mine));
    if (view.signs) {  // 🤫 opens the señas, each with what it means
      const open = picking === view.id;
      tools.append(el("button", { type: "button", class: "secondary", id: "sign",
        "aria-label": w("sign"), title: w("sign"), "aria-expanded": open ? "true" : "false",
        onclick: () => { picking = open ? null : view.id; render(current.view); } }, "🤫"));
      if (open) dock.append(signPicker(view));
    } else if (!controls) picking = null;
    if (view.hint) {
      tools.append(el("button", { type: "button", class: "secondary", id: "ask-hint",
        "aria-label": w("hint"), title: w("hint"), onclick: askHint }, "💡"));
    }
    if (view.helper) {
      tools.append(el("button", { type: "button", class: "secondary", id: "hand-off",
        onclick: handOff }, view.helper));
    }
    if (tools.childNodes.length) acts.append(tools);
    if (acts.childNodes.length) dock.append(acts);
    if (advice && advice.id === view.id && advice.step === view.step) {
      dock.append(el("p", { class: "hint advice", id: "advice", role: "status" }, advice.text));
    }
    if (view.handed) dock.append(el("p", { class: "hint", id: "handed", role: "status" }, view.handed));
  }
  if (sheet) dock.append(sheet);
  if (controls) dock.append(controls);
  const nodes = [head, felt, side];
  const kept = document.getElementById("dock");
  if (kept && kept.parentNode === $app && dock.childNodes.length && kept.outerHTML === dock.outerHTML) {
    // The controls as they were, left in place: a tap under way on them is not lost to a
    // redraw of the felt (a push from the stream between the finger down and up).
    for (const node of [...$app.childNodes]) if (node !== kept) node.remove();
    $app.prepend(...nodes);
  } else {
    if (dock.childNodes.length) nodes.push(dock);
    $app.replaceChildren(...nodes);
  }
  fitFelt();
  if (slid) sounds.card();
  if (onFelt && !view.over && heldEnd && GATHER_MS) {  // the cards gathered as the moment ends
    const gather = heldEnd.until - Date.now() - GATHER_MS;
    setTimeout(() => { if (felt.isConnected) felt.classList.add("gather"); }, Math.max(0, gather));
  }
  tick();
}

// The felt takes the room the controls leave, and its cards take the felt's: as big as its
// rows of seats let them be (a tall phone, a desktop: bigger), never overflowing it.
function fitFelt() {
  const felt = document.getElementById("felt");
  if (!felt) return;
  fitLines();
  // A short screen with much to decide (a chant waiting, its answers, the tools): the hand
  // gives a little of its size (never under 52 px) before the felt goes under its least; a
  // felt whose seats still do not fit takes more of the hand (never under 44 px) and then
  // the record's lines, one at a time (one stays).
  $app.style.removeProperty("--card-w");
  const hand = document.querySelector("#hand img");
  const phone = !window.matchMedia("(min-width: 900px)").matches;
  let size = hand ? hand.getBoundingClientRect().width : 0;
  const shrink = (least) => {
    if (!hand || !phone || size <= least) return false;
    size = Math.max(least, size - 4);
    $app.style.setProperty("--card-w", `${size}px`);
    return true;
  };
  for (let i = 0; i < 6 && $app.scrollHeight > $app.clientHeight + 1 && shrink(52); i++);
  for (let i = 0; i < 8 && !fitCards(felt) && shrink(44); i++);
  const lines = document.getElementById("lines");
  for (let i = 0; i < 4 && phone && lines && !fitCards(felt); i++) {
    const line = parseFloat(getComputedStyle(lines).lineHeight) || 18;
    if (lines.clientHeight < 2 * line - 1) break;
    lines.style.maxHeight = `${Math.floor((lines.clientHeight - line) / line) * line}px`;
  }
}

// The felt's cards as big as its rows of seats let them be; false when even the least does
// not fit it.
function fitCards(felt) {
  const rows = 2;  // (style.css: two rows of seats whatever the table)
  const cols = felt.classList.contains("seats-2") ? 1 : 3;
  const height = felt.clientHeight, width = felt.clientWidth;
  const wide = window.matchMedia("(min-width: 900px)").matches;
  const label = wide ? 52 : 42;  // a seat's name, its badges, backs and clock
  const cap = wide ? 124 : 96;
  const byHeight = (height - 16 - rows * label) / (rows * 1.54);
  const byWidth = (width / cols - 10) / 2.1;  // three cards, each half under the next
  let card = Math.floor(Math.max(22, Math.min(byHeight, byWidth, cap)));
  felt.style.setProperty("--felt-card", `${card}px`);
  felt.classList.toggle("small-cards", card < 56);  // (style.css: the round's badge under it)
  // (measured by layout, not by what is drawn: a card sliding in from its seat overflows the
  // felt for a moment, and is no reason to shrink anything)
  const pad = parseFloat(getComputedStyle(felt).paddingBottom) || 0;
  const over = () => [...felt.querySelectorAll(".seat")].some((seat) =>
    seat.offsetTop + seat.offsetHeight + pad > felt.clientHeight + 1) ||
    [...felt.querySelectorAll(".played")].some((p) => {
      const kids = [...p.children];
      return kids.length && (kids[0].offsetLeft < p.offsetLeft - 1 ||
        kids[kids.length - 1].offsetLeft + kids[kids.length - 1].offsetWidth > p.offsetLeft + p.offsetWidth + 1);
    });
  for (let i = 0; i < 10 && card > 22 && over(); i++) {
    card = Math.max(22, Math.floor(card * 0.92));
    felt.style.setProperty("--felt-card", `${card}px`);
    felt.classList.toggle("small-cards", card < 56);
  }
  return !over();
}

// The record's box shows whole lines: when they do not all fit, it ends under the last one
// that does (the felt takes the rest), never across one.
function fitLines() {
  const lines = document.getElementById("lines");
  if (!lines) return;
  lines.style.removeProperty("max-height");
  const room = lines.clientHeight;
  if (!room || lines.scrollHeight <= room + 1) return;
  const top = lines.getBoundingClientRect().top + lines.clientTop - lines.scrollTop;
  let fit = 0;
  const texts = document.createTreeWalker(lines, NodeFilter.SHOW_TEXT);
  for (let node; (node = texts.nextNode());) {
    const range = document.createRange();
    range.selectNodeContents(node);
    // (a line ends under its glyphs by half its leading)
    const height = parseFloat(getComputedStyle(node.parentElement).lineHeight);
    for (const r of range.getClientRects()) {
      const bottom = r.bottom - top + (height > r.height ? (height - r.height) / 2 : 0);
      if (bottom <= room + 0.5 && bottom > fit) fit = bottom;
    }
  }
  if (fit > 0) lines.style.maxHeight = `${Math.ceil(fit)}px`;
}

// (whatever changes the page's size: the window, Telegram's viewport growing after it did, a
// font come late)
window.addEventListener("resize", fitFelt);
if (window.ResizeObserver) new ResizeObserver(() => fitFelt()).observe($app);

function mine(view) { return view.seat !== null && view.seat !== undefined; }

// The señas, over the felt while one is chosen: each its gesture and what it tells the
// partner (those made this hand are spent); a tap makes it and closes them, as ✕ and Escape do.
let picking = null;  // the table whose señas are open
function signPicker(view) {
  const close = () => { picking = null; if (current && current.view) render(current.view); };
  return el("section", { class: "sign-picker", id: "sign-picker", "aria-label": w("signPick") },
    el("div", { class: "bar" }, el("p", {}, w("signPick")),
      el("button", { type: "button", class: "secondary close", "aria-label": w("close"),
        title: w("close"), onclick: close }, "✕")),
    el("div", { class: "signs" }, view.signs.map((s) => el("button", { type: "button",
      class: "secondary", "data-sign": s.key, disabled: s.made, onclick: async () => {
        const now = current && current.view ? current.view : view;  // (the controls may outlive their view)
        try {
          await api("POST", `/api/table/${now.id}/sign`, { step: now.step, sign: s.key });
          close();
        } catch (e) { toast(e.message); }
      } }, el("b", {}, s.label), el("span", {}, s.meaning)))));
}
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && picking !== null) {
    picking = null;
    if (current && current.view) render(current.view);
  }
});

// -- replays: a finished match, action by action, from its log --------------------------------
let replaying = null;  // { data, index, timer, seal }

// The hand just over, from its last action (the server says so) to the next hand's deal,
// which the felt shows as that hand (⏭ lands there: the head and the felt name one hand).
function replayEnd(view) {
  const ends = view.ended || [];
  return ends.length && (view.over || view.hand_over) ? ends[ends.length - 1] : null;
}

// A player watching their own match: their cards in hand then, face up (the match is over,
// nothing is secret), those not yet played in the frame's hand (in every duel of a pica-pica
// hand), from its deal.
function heldAt(r, index) {
  const frames = r.data.frames;
  const seat = r.played;
  const hand = frames[index].hand_number;
  const deal = hand ? r.data.deals[hand - 1] : null;
  if (!deal) return null;
  const played = new Set();
  for (let i = index; i >= 0 && frames[i].hand_number === hand; i--) {
    for (const plays of frames[i].rounds || []) {
      for (const p of plays) if (p.seat === seat) played.add(p.card);
    }
  }
  return deal.split("|")[seat].split(" ").filter((c) => !played.has(c))
    .map((c) => ({ card: c, name: r.names.get(c) || c }));
}

// What a replay's frame says aloud: every word of its action, at the seat that said it.
function replayWords(view) {
  const out = {};
  for (const s of view.spoken || []) {
    const key = `replay:${view.action}:${s.seat}`;
    out[s.seat] = out[s.seat] ? { text: `${out[s.seat].text} · ${s.text}`, key } : { text: s.text, key };
  }
  return out;
}

// A replay's hand over: the cards each player held and did not play, face up at the seat.
function heldCards(ended, seat) {
  const held = ended && ended.held && ended.held[seat];
  if (!held) return null;
  const played = new Set(ended.rounds.flatMap((r) => r.plays.filter((p) => p.seat === seat).map((p) => p.card)));
  const kept = held.cards.filter((c) => !played.has(c.card));
  return el("span", { class: "held", "data-seat": seat, role: "img", "aria-label": held.label,
    "data-cards": held.cards.map((c) => c.card).join(" ") },
  kept.map((c) => cardImg(c.card, "", null)));
}

function replayUrl(id, review) {
  history.replaceState(null, "", `?replay=${id}${review ? "&review=1" : ""}` +
    `${themed() ? "&" + themed() : ""}${location.hash}`);
}

// `review`: open the viewer's review at once (the end screen's 📝, a reload of one open).
async function showReplay(id, opts) {
  const review = !!(opts && opts.review);
  leave();
  replayUrl(id, review);
  // (whether the viewer played it, for 📝: the table as they see it says their seat)
  const seatOf = api("GET", `/api/table/${id}`).then((v) => (mine(v) ? v.seat : null), () => null);
  let data;
  try { data = await api("GET", `/api/table/${id}/replay`); }
  catch (e) { deadEnd(e.message); return; }
  if (data.language && data.language !== lang) await loadWords(data.language);
  const names = new Map();  // a card's code -> its name, from the frames (the review's hand)
  for (const frame of data.frames) {
    for (const plays of frame.rounds || []) for (const p of plays) names.set(p.card, p.name);
    for (const ended of frame.ended || []) {
      for (const held of ended.held || []) for (const c of (held && held.cards) || []) names.set(c.card, c.name);
    }
  }
  const r = { data, names, index: 0, timer: null, seal: "…", played: await seatOf, review: null };
  replaying = r;
  if (review && r.played === null) replayUrl(id, false);  // (not theirs: no review to open)
  if (review && r.played !== null) {  // (from the end screen: the end stays while it loads)
    r.index = data.frames.length - 1;
    loadReview(r);
  }
  drawReplay(true);
  verifySeal(data).then((text) => { r.seal = text; if (replaying === r) drawReplay(); });
}

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && replaying && replaying.review && document.getElementById("review")) {
    closeReview(replaying);
  }
});

// -- 📝 the viewer's review on the replay: the decisions that cost them the most (and the ones
// worth praising), each a moment of the replay drawn from their seat with their cards then ------
// (the server computes a review once, the first time in a few seconds, and keeps it; its route
// answers when it is ready: a dropped or slow answer is asked again, a while apart, until a
// deadline; a refusal is said and not asked again)
const REVIEW_DEADLINE_MS = 90000;
const REVIEW_TRY_MS = 30000;
const pause = (ms) => new Promise((done) => setTimeout(done, ms));

async function loadReview(r) {
  const state = { status: "loading", data: null, error: null };
  r.review = state;
  replayUrl(r.data.id, true);
  const live = () => replaying === r && r.review === state;
  const deadline = Date.now() + REVIEW_DEADLINE_MS;
  let wait = 1000;
  while (live()) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(1000, Math.min(REVIEW_TRY_MS, deadline - Date.now())));
    try {
      const response = await fetch(`/api/table/${r.data.id}/review`,
        { headers: headers(), credentials: "same-origin", signal: controller.signal });
      heardTime(response);
      let body = {};
      try { body = await response.json(); } catch (e) { body = {}; }
      if (response.ok) { state.status = "ready"; state.data = body; break; }
      if (response.status < 500 && response.status !== 429) {  // refused: said, not asked again
        state.status = "failed"; state.error = body.error || response.statusText; break;
      }
    } catch (e) { /* dropped, or slower than a try: asked again */ }
    finally { clearTimeout(timer); }
    if (Date.now() + wait >= deadline) { state.status = "failed"; state.error = w("reviewFailed"); break; }
    await pause(wait);
    wait = Math.min(wait * 2, 8000);
  }
  if (!live()) return;
  if (state.status === "ready" && state.data.moments.length) {
    if (r.timer) { clearInterval(r.timer); r.timer = null; }
    const at = momentFrame(r, state.data.moments[0]);
    if (at >= 0) { r.index = at; drawReplay(false, "moment-1"); return; }
  }
  drawReplay(false, state.status === "failed" ? "review-retry" : null);
}

function closeReview(r) {
  r.review = null;
  replayUrl(r.data.id, false);
  drawReplay(false, "review-open");
}

// A moment is the frame the person decided at: the table after the log's action number `step`.
function momentFrame(r, moment) { return r.data.frames.findIndex((f) => f.step === moment.step); }

const unsigned = (shown) => shown.replace(/^[+−]/, "");  // ("−1,8": the server's, as its words say it)

function reviewButton(onclick) {
  return el("button", { type: "button", class: "secondary review-open", id: "review-open",
    title: w("reviewOpen"), onclick }, w("review"));
}

// A moment asked before it is told: a costly one with a question, not answered yet (on the web
// or in Telegram: the answers are the same), unless the whole review was asked for.
function asking(state, index) {
  const q = state.data.quiz && state.data.quiz.moments[String(index)];
  return !!q && q.answered === null && !state.all;
}

// A tap on a choice: the server keeps it as Telegram's button would, and says what it was worth.
async function answerMoment(r, state, index, choice, button) {
  const q = state.data.quiz.moments[String(index)];
  for (const b of document.querySelectorAll("#quiz-choices button")) b.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    const told = await api("POST", `/api/table/${r.data.id}/review/answer`, { index, choice });
    q.answered = told.right; q.told = told.told; q.chosen = told.choice; q.error = null;
    state.data.moments[index] = told.moment;  // (what was best: the review kept it back until now)
  } catch (e) { q.error = e.message; }
  if (replaying === r && r.review === state) drawReplay(false, `moment-${index + 1}`);
}

async function wholeReview(r, state, openAt, button) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  try {
    const whole = await api("GET", `/api/table/${r.data.id}/review?all=1`);
    state.data = { ...whole, quiz: state.data.quiz };
    state.all = true;
  } catch (e) { button.disabled = false; button.removeAttribute("aria-busy"); toast(e.message); return; }
  if (replaying === r && r.review === state) drawReplay(false, openAt >= 0 ? `moment-${openAt + 1}` : "review-close");
}

// The sheet under the felt (never over it): the list of moments (1, 2, 3, ✅), and the one the
// replay is at: what the person did and what difícil would have done, and what each was worth.
function reviewSheet(r) {
  const state = r.review;
  const close = el("button", { type: "button", class: "secondary close", id: "review-close",
    "aria-label": w("reviewClose"), title: w("reviewClose"), onclick: () => closeReview(r) }, "✕");
  const sheet = (busy, ...body) => el("section", { class: "review-sheet", id: "review",
    "aria-label": w("review"), "aria-busy": busy ? "true" : "false" }, body);
  if (state.status === "loading") {
    return sheet(true, el("div", { class: "review-bar" },
      el("p", { class: "loading", id: "review-loading", role: "status" },
        el("span", { class: "spinner", "aria-hidden": "true" }), w("reviewLoading")), close));
  }
  if (state.status === "failed") {
    return sheet(false, el("div", { class: "review-bar" },
      el("p", { class: "failed", id: "review-failed", role: "alert" }, state.error), close),
    el("button", { type: "button", class: "secondary", id: "review-retry", onclick: () => {
      loadReview(r); drawReplay(); } }, w("reviewRetry")));
  }
  const data = state.data;
  const quiz = data.quiz || { moments: {} };
  let slips = 0;
  let open = null, openAt = -1;
  const chips = data.moments.map((m, i) => {
    const at = momentFrame(r, m);
    const here = at === r.index;
    if (here) { open = m; openAt = i; }
    const ask = asking(state, i);
    const label = m.praised ? `${w("reviewPraise")}: ${w("reviewGain")} ${m.shown} ${w("points")}`
      : `${w("reviewSlip")} ${++slips}: ` + (ask ? "?" : `${w("reviewCost")} ${unsigned(m.shown)} ${w("points")}`);
    return el("button", { type: "button", class: `moment ${m.praised ? "praise" : "slip"}${ask ? " asking" : ""}`,
      id: `moment-${i + 1}`, "aria-pressed": here ? "true" : "false", "aria-label": label,
      "data-step": m.step, "data-frame": at, disabled: at < 0,
      onclick: () => { if (r.timer) { clearInterval(r.timer); r.timer = null; }
        r.index = at; drawReplay(false, `moment-${i + 1}`); } },
    el("b", {}, m.praised ? "✅" : String(slips)),
    el("span", { class: "cost" }, ask ? "?" : m.shown));
  });
  const bar = el("div", { class: "review-bar" },
    el("div", { class: "moments", id: "moments", role: "group", "aria-label": w("reviewMoments") }, chips),
    close);
  // (the whole review at once, for who does not want the questions: nothing is recorded; the
  // answers the review kept back are asked for now)
  const everything = () => el("button", { type: "button", class: "secondary", id: "review-all",
    onclick: (event) => wholeReview(r, state, openAt, event.currentTarget) }, quiz.all);
  const questions = data.moments.some((_, i) => asking(state, i));
  if (!open) {  // (between moments: what the review is, and the tap that goes to one)
    return sheet(false, bar, el("p", { class: "hint intro", id: "review-intro" },
      data.none ? `${data.none} ` : "", questions ? quiz.intro : data.intro), questions ? everything() : null);
  }
  if (asking(state, openAt)) {  // (asked first: what they knew then, a choice a button)
    const q = quiz.moments[String(openAt)];
    return sheet(false, bar, el("div", { class: "moment-body quiz", id: "moment", "data-step": open.step },
      el("p", { class: "question", id: "quiz-question" }, q.question),
      el("div", { class: "choices", id: "quiz-choices", role: "group" },
        q.choices.map((label, c) => el("button", { type: "button", class: "secondary choice", "data-choice": c,
          onclick: (event) => answerMoment(r, state, openAt, c, event.currentTarget) }, label))),
      q.error ? el("p", { class: "failed", id: "quiz-error", role: "alert" }, q.error) : null,
      everything()));
  }
  const told = quiz.moments[String(openAt)] && quiz.moments[String(openAt)].told;
  const row = (cls, who, act, value, shown, worth) => el("div", { class: `row ${cls}` },
    el("dt", {}, el("span", { class: "who" }, who), " ", act),
    el("dd", {}, el("b", { class: "pts", "data-points": value }, shown), " ",
      el("span", { class: "worth" }, worth)));
  return sheet(false, bar, el("div", { class: `moment-body ${open.praised ? "praise" : "slip"}`,
    id: "moment", "data-step": open.step },
  told ? el("p", { class: "told", id: "quiz-told", role: "status" }, told) : null,
  el("p", { class: "title", id: "moment-title" }, open.title),
  el("p", { class: "hint position", id: "moment-position" }, open.position),
  el("dl", { class: "compare" },
    row("made", `${w("reviewYou")}:`, open.made_act, open.made_points, open.made_shown, open.made_worth),
    row("best", `${open.praised ? w("reviewInstead") : w("reviewDificil")}:`, open.best_act,
      open.best_points, open.best_shown, open.best_worth))), questions ? everything() : null);
}

// A moment's frame as the person saw it: from their seat, their cards then in hand (the one
// they played, and difícil's, marked).
function asSeen(r, frame) {
  const state = r.review;
  if (!state || state.status !== "ready") {
    return r.played === null ? frame : { ...frame, seat: r.played, hand: heldAt(r, r.index) };
  }
  const seen = { ...frame, seat: state.data.seat, hand: heldAt(r, r.index) };
  const openAt = state.data.moments.findIndex((m) => momentFrame(r, m) === r.index);
  const open = openAt >= 0 ? state.data.moments[openAt] : null;
  if (!open) return seen;
  // (the hand they decided in, as it was: not the end of the one before, still on the felt at
  // a deal or a pica-pica duel's start)
  seen.ended = [];
  seen.hand_over = false;
  const ask = asking(state, openAt);  // (asked: nothing marked until they answer, nor known)
  const made = playedCard(open.made), best = ask ? null : playedCard(open.best);
  seen.hand = open.held.map((c) => {
    const marks = [];
    if (ask) return { card: c, name: r.names.get(c) || c, mark: null, note: null };
    if (c === made) marks.push(["made", w("reviewMade")]);
    if (c === best) marks.push(["best", open.praised ? w("reviewOther") : w("reviewBest")]);
    return { card: c, name: r.names.get(c) || c, mark: marks.map((m) => "mark-" + m[0]).join(" ") || null,
      note: marks.map((m) => m[1]).join(" · ") || null };
  });
  return seen;
}
const playedCard = (code) => { const parts = code.split(":"); return parts.length === 3 ? parts[2] : null; };

function goTo(index) {
  const r = replaying;
  r.index = Math.max(0, Math.min(r.data.frames.length - 1, index));
  if (r.index === r.data.frames.length - 1 && r.timer) { clearInterval(r.timer); r.timer = null; }
  drawReplay();
}

function handStart(step) {  // the first frame of the hand `step` frames away (±1)
  const frames = replaying.data.frames;
  let i = replaying.index;
  const hand = frames[i].hand_number;
  if (step < 0) {
    while (i > 0 && frames[i - 1].hand_number === hand) i--;
    if (i === replaying.index && i > 0) {  // already at its start: the hand before
      const before = frames[i - 1].hand_number;
      while (i > 0 && frames[i - 1].hand_number === before) i--;
    }
    return i;
  }
  while (i < frames.length - 1 && frames[i].hand_number === hand) i++;
  return i;
}

// `focus`: the control to give the keyboard's focus to once drawn (else the one that had it).
function drawReplay(first, focus) {
  const r = replaying;
  const frames = r.data.frames;
  const had = document.activeElement && document.activeElement.id;
  const slider = el("input", { type: "range", id: "replay-at", min: 0, max: frames.length - 1,
    value: r.index, "aria-label": w("replay") });
  slider.addEventListener("input", () => goTo(+slider.value));
  const button = (id, text, label, onclick) =>
    el("button", { type: "button", class: "secondary", id, "aria-label": label, title: label, onclick }, text);
  const controls = el("div", { class: "replay", id: "replay" },
    el("div", { class: "tools" },
      button("replay-prev-hand", "⏮", w("prevHand"), () => goTo(handStart(-1))),
      button("replay-back", "◀", w("back"), () => goTo(r.index - 1)),
      r.timer
        ? button("replay-pause", "⏸", w("pause"), () => { clearInterval(r.timer); r.timer = null; drawReplay(); })
        : button("replay-play", "▶️", w("playReplay"), () => {
          r.timer = setInterval(() => goTo(r.index + 1), 900); drawReplay(); }),
      button("replay-step", "▶", w("step"), () => goTo(r.index + 1)),
      button("replay-next-hand", "⏭", w("nextHand"), () => goTo(handStart(1))),
      el("span", { id: "replay-count" }, `${r.index + 1} ${w("of")} ${frames.length}`)),
    slider,
    el("div", { class: "replay-foot" },
      el("button", { type: "button", class: "secondary", id: "replay-exit",
        onclick: () => openTable(r.data.id) }, w("toTable")),
      r.played !== null && !r.review ? reviewButton(() => { loadReview(r); drawReplay(false, "review-close"); }) : null,
      el("p", { class: "hint", id: "seal-check" }, r.seal)));
  const sheet = r.review ? reviewSheet(r) : null;
  $app.classList.toggle("reviewing", !!r.review);
  render(asSeen(r, frames[r.index]), first, controls, sheet);
  const head = document.getElementById("head");
  if (head) head.prepend(el("b", {}, `${w("replay")} #${r.data.id} · `));
  const target = document.getElementById(focus || had || "");
  if (target && target !== document.activeElement && (focus || had)) target.focus({ preventScroll: true });
}

const DECK = [1, 2, 3, 4, 5, 6, 7, 10, 11, 12].flatMap((n) => ["o", "c", "e", "b"].map((s) => `${n}${s}`));
async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
function compare(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
// The seal checked here, not taken on trust: the seed's SHA-256 is the commitment shown from the
// first card, and every deal is the deck sorted by SHA-256("seed:hand:card"), dealt three each.
async function verifySeal(data) {
  if (!data.seed || !window.crypto || !crypto.subtle) return w("sealNone");
  const sealed = hex(await sha256(data.seed)) === data.commitment;
  let good = 0;
  for (let i = 0; i < data.deals.length; i++) {
    const keyed = await Promise.all(DECK.map(async (c) => [await sha256(`${data.seed}:${i + 1}:${c}`), c]));
    keyed.sort((a, b) => compare(a[0], b[0]));
    const order = keyed.map((k) => k[1]);
    const dealt = Array.from({ length: data.players }, (_, p) => order.slice(3 * p, 3 * p + 3).join(" "));
    if (dealt.join("|") === data.deals[i]) good++;
  }
  const all = `${good}/${data.deals.length} · ${data.seal}`;
  return sealed && good === data.deals.length ? `${w("sealOk")} ${all}` : `${w("sealBad")} ${all}`;
}

async function rematch() {
  const view = current && current.view;
  if (!view) return;
  try {
    const data = await api("POST", `/api/table/${view.id}/rematch`, {});
    openTable(data.table);
  } catch (e) { toast(e.message); }
}

// -- a tournament: its bracket drawn (SVG), or a liguilla's table; links to watch and replay ----
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, v);
  for (const child of children.flat(2)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

let tourneyTimer = null;
// A tournament's ties as its format lays them out (`data.page.view`): a drawn bracket, only
// the matches in play and played (an arena), or round by round.
const TOURNEY_VIEWS = { bracket: bracketSvg, live: arenaLive, rounds: roundsList };

async function showTourney(id) {
  leave();
  let data;
  try { data = await api("GET", `/api/tourney/${id}`); }
  catch (e) { deadEnd(e.message); return; }
  if (data.language && data.language !== lang) await loadWords(data.language);
  const parts = [el("h1", {}, data.title), el("p", { class: "hint" }, data.rules)];
  if (data.champion) parts.push(el("p", { id: "champion" }, `${w("champion")}: ${data.champion}`));
  if (data.standings.length) parts.push(standingsTable(data));
  parts.push((TOURNEY_VIEWS[data.page.view] || roundsList)(data));  // (its format's layout)
  leave();
  $app.replaceChildren(el("section", { id: "tourney" }, parts));
  fitNames($app);
  if (data.status === "running" || data.status === "signup") {
    tourneyTimer = setTimeout(() => showTourney(id), 15000);  // results come in: look again
  }
}

function tieTarget(tie) {  // where a tap on a tie goes: its live match, or its last one played
  if (tie.live) return `?table=${tie.live}`;
  if (tie.played.length) return `?replay=${tie.played[tie.played.length - 1]}`;
  return null;
}

function bracketSvg(data) {
  const BOX_W = 156, BOX_H = 46, GAP_X = 26, PAD = 6;
  const first = data.rounds.length ? data.rounds[0].ties.length : 1;
  const slot = BOX_H + 14;
  const height = Math.max(first * slot, slot) + 28;
  const width = data.rounds.length * (BOX_W + GAP_X) + PAD;
  const drawn = [];
  data.rounds.forEach((round, r) => {
    const x = PAD + r * (BOX_W + GAP_X);
    const span = slot * 2 ** r;  // each round's ties sit between the two that feed them
    drawn.push(svg("text", { x, y: 14, class: "round" }, round.name));
    round.ties.forEach((tie, i) => {
      const y = 24 + i * span + (span - BOX_H) / 2;
      if (r > 0) {  // the lines from the two ties that feed this one
        const prevX = x - GAP_X, mid = x - GAP_X / 2;
        const up = 24 + (2 * i) * (span / 2) + (span / 2) / 2;
        const down = 24 + (2 * i + 1) * (span / 2) + (span / 2) / 2;
        drawn.push(svg("path", { class: "wire",
          d: `M${prevX},${up} H${mid} V${down} M${prevX},${down} H${mid} M${mid},${y + BOX_H / 2} H${x}` }));
      }
      const target = tieTarget(tie);
      const status = tie.live ? "live" : tie.winner ? "done" : "wait";
      const line = (name, side, dy) => svg("text", {
        x: x + 8, y: y + dy, class: tie.winner === side ? "name won" : "name" },
        svg("title", {}, name || "?"), svg("tspan", {}, name || "?"));  // (fitNames cuts the tspan)
      const box = svg("g", { class: `tie ${status}` },
        svg("rect", { x, y, width: BOX_W, height: BOX_H, rx: 6 }),
        tie.bye ? [line(tie.a || tie.b, tie.winner, 18), svg("text", { x: x + 8, y: y + 37, class: "note" }, w("bye"))]
          : [line(tie.a, "a", 18), line(tie.b, "b", 38)],
        tie.score ? svg("text", { x: x + BOX_W - 8, y: y + 28, class: "score" }, tie.score) : null,
        tie.live ? svg("text", { x: x + BOX_W - 8, y: y + 12, class: "note" }, w("live")) : null,
        tie.walkover ? svg("text", { x: x + BOX_W - 8, y: y + 44, class: "note" }, w("walkover")) : null);
      if (target) {
        const label = `${tie.a || "?"} – ${tie.b || "?"}: ${tie.live ? w("live") : w("replayShort")}`;
        drawn.push(svg("a", { href: target, "aria-label": label }, box));
      } else drawn.push(box);
    });
  });
  // On a phone the bracket scrolls sideways in its box: it opens on the round in play.
  const playing = data.rounds.findIndex((round) => round.ties.some((tie) => tie.live));
  const box = el("div", { class: "bracket" });
  // It opens at a round's start, never halfway into one (names cut): the round before the one
  // in play too when both fit, else the round in play first.
  if (playing > 0) {
    requestAnimationFrame(() => {
      const column = BOX_W + GAP_X;
      const want = playing * column;
      const room = Math.max(0, box.scrollWidth - box.clientWidth);
      const snapped = Math.floor(Math.min(want, room) / column) * column;
      if (want + PAD + BOX_W - snapped <= box.clientWidth) { box.scrollLeft = snapped; return; }
      if (want > room) box.style.paddingRight = `${want - room}px`;  // (room to scroll to it)
      box.scrollLeft = want;
    });
  }
  box.append(
    svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "group", "aria-label": w("bracket") },
      svg("title", {}, w("bracket")), drawn));
  return box;
}

// A name fits its tie's box: measured as drawn (the page's font, bold for the winner), cut
// with "…" clear of the box's edge and of the score and notes on its line; the whole name
// stays in its title (and in the tie's label).
function fitNames(root) {
  for (const tie of root.querySelectorAll(".bracket g.tie")) {
    const rect = tie.querySelector("rect").getBBox();
    const others = [...tie.querySelectorAll("text:not(.name)")].map((t) => t.getBBox());
    for (const name of tie.querySelectorAll("text.name")) {
      const label = name.querySelector("tspan");
      const full = Array.from(name.querySelector("title").textContent);  // (by code point)
      label.textContent = full.join("");
      const drawn = name.getBBox();
      let right = rect.x + rect.width - 8;
      for (const o of others) {  // a text on the same line, to the right: stop short of it
        const along = drawn.y < o.y + o.height && o.y < drawn.y + drawn.height;
        if (along && o.x > drawn.x) right = Math.min(right, o.x - 6);
      }
      const room = right - drawn.x;
      if (name.getComputedTextLength() <= room) continue;
      let low = 0, high = full.length;  // the most letters that fit with "…"
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        label.textContent = full.slice(0, mid).join("").trimEnd() + "…";
        if (name.getComputedTextLength() <= room) low = mid; else high = mid - 1;
      }
      label.textContent = full.slice(0, low).join("").trimEnd() + "…";
    }
  }
}

const signed = (n) => (n > 0 ? "+" : "") + n;

// The columns a format's standings may have, by the names its declaration gives them
// (`data.page.columns`: a liguilla's played, won, difference; a Swiss's played, points,
// Buchholz, difference; an arena's points, the streak 🔥, games, in play now).
const STANDINGS_COLUMNS = {
  played: ["colPlayed", (r) => r.played],
  won: ["colWon", (r) => r.won],
  points: ["colPts", (r) => r.points],
  buchholz: ["colBuchholz", (r) => r.buchholz ?? 0],
  diff: ["colDiff", (r) => signed(r.diff)],
  streak: ["colStreak", (r) => (r.fire ? "🔥" : "")],
  games: ["colGames", (r) => r.played],
  in_play: ["colInPlay", (r) => (r.playing ? el("span", { title: w("live"), "aria-label": w("live") }, "▶️")
    : r.paused ? "⏸️" : "")],
};

function standingsTable(data) {
  const columns = data.page.columns.map((name) => STANDINGS_COLUMNS[name]);
  const label = { standings: w("standings"), leaderboard: w("leaderboard") }[data.page.board];
  return el("div", { class: "standings-box" }, el("table", { id: "standings", class: data.format, "aria-label": label },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "#"), el("th", { scope: "col" }, w("colName")),
      columns.map(([word]) => el("th", { scope: "col" }, w(word))))),
    el("tbody", {}, data.standings.map((r) => el("tr", { class: r.playing ? "playing" : null },
      el("td", {}, r.place), el("td", { class: "name" }, r.name),
      columns.map(([, value]) => el("td", {}, value(r))))))));
}

function arenaLive(data) {  // an arena: no rounds, only the matches in play (to watch) and played
  const ties = data.rounds.flatMap((round) => round.ties);
  const live = ties.filter((tie) => tie.live);
  const done = ties.filter((tie) => !tie.live && tie.played.length).reverse();
  const line = (tie) => {
    const target = tieTarget(tie);
    const text = `${tie.a} ${tie.score || "vs"} ${tie.b}${tie.live ? " · " + w("live") : ""}`;
    return el("p", {}, target ? el("a", { href: target }, text) : text);
  };
  return el("div", { id: "rounds" },
    live.length ? el("div", { class: "panel", id: "in-play" }, el("b", {}, w("inPlay")), live.map(line)) : null,
    done.length ? el("div", { class: "panel", id: "played" }, el("b", {}, w("playedMatches")), done.map(line)) : null);
}

function roundsList(data) {  // a liguilla: its rounds, each tie a link when there is a table
  return el("div", { id: "rounds" }, data.rounds.map((round) => el("div", { class: "panel" },
    el("b", {}, round.name),
    round.ties.map((tie) => {
      if (tie.bye || tie.b === null) return el("p", {}, `${tie.a} · ${w("bye")}`);  // (a Swiss's)
      const target = tieTarget(tie);
      const text = `${tie.a} ${tie.score || "vs"} ${tie.b}${tie.live ? " · " + w("live") : ""}`;
      return el("p", {}, target ? el("a", { href: target }, text) : text);
    }))));
}

// -- start ----------------------------------------------------------------------------------------
// The Mini App links the page is opened with, as the bot declares them (bot/links.py: each
// kind's prefix and most digits, served inside the page): { name, value } or null, the digits
// kept as text, as links.decode reads a `startapp` payload.
const LINKS = JSON.parse(document.getElementById("links").textContent);
function readLink(param) {
  const kinds = Object.entries(LINKS).sort((a, b) => b[1].prefix.length - a[1].prefix.length);
  for (const [name, { prefix, digits }] of kinds) {
    const rest = param.startsWith(prefix) ? param.slice(prefix.length) : "";
    if (rest.length >= 1 && rest.length <= digits && /^[0-9]+$/.test(rest)) return { name, value: rest };
  }
  return null;
}

(async function start() {
  // (one round trip, not two: the words and, on the local table, who this browser is)
  const asked = initData ? Promise.resolve({}) : api("GET", "/api/local/me").catch(() => ({}));
  await loadWords(lang);
  const startParam = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) ||
    new URLSearchParams(initData).get("start_param") || fragment.get("tgWebAppStartParam") || "";
  const link = readLink(startParam);
  const linked = (name) => (link && link.name === name ? link.value : undefined);
  const toWatch = query.get("replay") || linked("replay");
  const tourney = query.get("tourney") || linked("tourney");
  const table = query.get("table") || linked("table");
  if (initData) {
    if (tourney) showTourney(+tourney);
    else if (toWatch) showReplay(+toWatch, { review: query.get("review") === "1" });
    else if (table) openTable(+table);
    else deadEnd(w("fromGroup"));
    return;
  }
  const me = await asked;
  if (!me.user_id) { showLogin(); return; }  // (the session is a cookie every tab shares)
  if (tourney) showTourney(+tourney);
  else if (toWatch) showReplay(+toWatch, { review: query.get("review") === "1" });
  else if (table) openTable(+table); else showNew();
})();
