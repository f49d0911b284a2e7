// Trial of the Gods (companion) on the dialbox table screen: the round/phase clock, the
// Initiative order with whose turn it is and who passed, every player's public tracks, the
// Olympics (the card, the Fervor track, each Competition's values revealed together, skills
// dice, the ranking and prizes), the last fight, and at the end the four rankings with where
// every VP came from and the winner with the tiebreak step that decided.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, hex, seatOf, seatName, style } = window.Dialbox;
  const PHASES = ["dawn", "adventure", "enemy", "olympics", "sunset"];
  const TITLES = { dawn: "Dawn", adventure: "Adventure", enemy: "Enemy", olympics: "Olympics",
    sunset: "Sunset", end: "End of Game", setup: "Setup" };
  const RANKINGS = ["domination", "exploration", "olympics", "devotion"];
  const UPGRADES = { attack: "Attack +1", discovery: "Discovery +1", fervor: "Fervor +1",
    energy: "Energy +2", vigor_limit: "Vigor Limit +2", blessing: "Blessing" };
  const VIGOR_MAX = 10;

  style("trial-of-the-gods", `
.tog-panel { min-width: min(360px, calc(100vw - 32px)); font-size: clamp(14px, 0.95vw, 19px); }
.tog-panel h2 { margin-top: 14px; }
.tog-clock { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
.tog-rounds { display: flex; gap: 4px; align-items: center; }
.tog-rounds i { width: 1.5em; height: 1.5em; border-radius: 50%; background: var(--panel2);
  display: inline-flex; align-items: center; justify-content: center; font-style: normal;
  font-size: .85em; color: var(--dim); }
.tog-rounds i.done { background: #2f3d4c; color: var(--ink); }
.tog-rounds i.now { background: var(--gold); color: #111; font-weight: 800; }
.tog-phases { display: flex; flex-wrap: wrap; gap: 4px; }
.tog-phase { padding: .25em .8em; border-radius: 999px; background: var(--panel2); color: var(--dim);
  font-weight: 600; }
.tog-phase.past { color: #b7c3cf; }
.tog-phase.now { background: var(--gold); color: #111; box-shadow: 0 0 10px var(--gold); }
.tog-init { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 8px; }
.tog-asking { margin-top: 6px; }
.tog-chip { display: inline-flex; align-items: center; gap: 6px; padding: .25em .75em;
  border-radius: 999px; background: var(--panel2); border: 3px solid transparent; font-weight: 600; }
.tog-chip .n { color: var(--dim); font-size: .8em; }
.tog-chip.active { border-color: var(--gold); background: #3b3317; }
.tog-chip.passed { opacity: .55; text-decoration: line-through; }
.tog-chip.locked { border-color: var(--ok); }
.tog-note { color: var(--dim); font-size: .9em; }
.tog-players { display: grid; gap: 10px;
  grid-template-columns: repeat(auto-fit, minmax(min(100%, 290px), 1fr)); }
.tog-player { background: var(--panel2); border-radius: 10px; padding: 8px 10px; border-left: 8px solid; }
.tog-player.active { box-shadow: 0 0 0 3px var(--gold); }
.tog-player .tog-name { font-weight: 700; font-size: 1.15em; display: flex; gap: 8px;
  align-items: baseline; flex-wrap: wrap; }
.tog-row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-top: 5px; }
.tog-row .k { color: var(--dim); min-width: 6.2em; font-size: .75em; text-transform: uppercase; }
.tog-vigor { display: inline-grid; grid-template-columns: repeat(10, 1fr); gap: 2px; flex: 1 1 180px;
  max-width: 320px; }
.tog-vigor span { height: 1.55em; border-radius: 4px; background: #11181f; font-size: .7em;
  color: var(--dim); display: flex; align-items: center; justify-content: center; position: relative; }
.tog-vigor span.on { background: #c62828; color: #fff; }
.tog-vigor span.over { background: #2a2f36; color: #9aa5b1; }  /* past the limit: greyed */
.tog-vigor span.limit { outline: 3px solid #fff; outline-offset: -3px; }
.tog-cube { display: inline-block; width: .8em; height: .8em; border-radius: 2px; margin-right: 1px; }
.tog-cube.ex { opacity: .35; }
.tog-counts { display: grid; grid-template-columns: repeat(auto-fit, minmax(6.5em, 1fr)); gap: 4px;
  margin-top: 6px; }
.tog-count { background: #161e27; border-radius: 8px; padding: 3px 8px; }
.tog-count .k { display: block; color: var(--dim); font-size: .7em; text-transform: uppercase; }
.tog-count b { font-size: 1.3em; }
.tog-tag { display: inline-block; padding: 1px 8px; border-radius: 999px; background: #2b3947;
  font-size: .85em; }
.tog-tag.gold { background: #3b3317; color: var(--gold); }
.tog-card { background: var(--panel2); border-radius: 10px; padding: 8px 10px; }
.tog-card .t { font-weight: 700; font-size: 1.2em; }
.tog-card ol { margin: 4px 0 0; padding-left: 1.4em; }
.tog-fervor { display: grid; grid-template-columns: minmax(5em, auto) 1fr 3em; gap: 4px 8px;
  align-items: center; }
.tog-fervor .bar { height: 1.1em; }
.tog-fervor b { text-align: right; font-size: 1.2em; }
.tog-scroll { overflow-x: auto; }
table.tog-table { border-collapse: collapse; width: 100%; }
table.tog-table th { color: var(--dim); font-weight: 400; font-size: .8em; text-align: left;
  padding: 4px 8px; }
table.tog-table td { padding: 5px 8px; border-top: 1px solid #2b3845; vertical-align: top; }
table.tog-table td.num { text-align: right; font-weight: 700; font-size: 1.2em; }
table.tog-table tr.winner td { background: #2a2614; }
table.tog-table .small { display: block; color: var(--dim); font-size: .78em; }
.tog-lock { color: var(--dim); font-style: italic; }
.tog-lock.locked { color: #8be39a; font-style: normal; font-weight: 700; }
.tog-die { display: inline-flex; align-items: center; justify-content: center; min-width: 1.8em;
  height: 1.8em; border-radius: 6px; background: #f6f3ea; color: #111; font-weight: 800; margin: 0 2px; }
.tog-die.act { background: #8e24aa; color: #fff; }
.tog-fight { display: grid; grid-template-columns: 1fr auto 1fr; gap: 8px; align-items: center;
  background: var(--panel2); border-radius: 10px; padding: 8px 10px; }
.tog-fight .side { text-align: center; }
.tog-fight .att { font-size: 2em; font-weight: 800; }
.tog-fight .win { color: var(--gold); }
.tog-fight .vs { color: var(--dim); font-weight: 700; }
.tog-winner { margin-top: 10px; padding: 10px 12px; border-radius: 10px; background: #2a2614;
  border: 2px solid var(--gold); font-size: 1.15em; }
.tog-winner .big { font-size: 1.5em; font-weight: 800; color: var(--gold); }
.tog-winner ol { margin: 6px 0 0; padding-left: 1.4em; font-size: .85em; }
/* On a desk or TV screen (screen.css's layouts above 600 px) the board is too tall for its
   box in one column: its parts flow into as many columns as the board's width holds, top to
   bottom then across, each part kept whole; the final rankings span them all, their details
   on one line. A phone keeps the one column it scrolls down. */
.tog-body > :first-child { margin-top: 0; }
.tog-body :is(.tog-clock, .tog-init, .tog-asking, .tog-player, .tog-card, .tog-fervor, .tog-scroll,
  .tog-row, .tog-winner, [data-fight]) { break-inside: avoid; }
.tog-body h2 { break-after: avoid; }
@media (min-width: 601px) {
  .tog-body { column-width: 24em; column-gap: 16px; column-fill: balance; }
  .tog-body > [data-final] { column-span: all; margin-bottom: 6px; }
  .tog-panel h2 { margin: 8px 0 4px; }
  .tog-players { gap: 6px; }
  .tog-player { padding: 6px 8px; }
  .tog-count { padding: 2px 6px; }
  [data-final-table] td[data-ranking] .small { display: inline; }
  [data-final-table] td[data-ranking] .small + .small::before { content: " · "; }
  [data-final-table] td[data-ranking] b { display: block; }
  .tog-body > [data-final] { display: grid; grid-template-columns: minmax(0, 1fr) minmax(12em, 18em);
    gap: 0 12px; align-items: start; }
  .tog-body > [data-final] > h2 { grid-column: 1 / -1; }
  .tog-body > [data-final] > .tog-winner { margin-top: 0; }
  table.tog-table td { padding: 3px 6px; }
}
`);

  const colour = (v, i) => hex(seatOf(v, i).colour);
  const dot = (v, i) => h("span", { class: "dot", style: "background:" + colour(v, i) });
  const who = (v, i) => h("span", {}, dot(v, i), " ", seatName(v, i));
  const arr = (x) => (Array.isArray(x) ? x : []);
  const cap = (s) => String(s || "").charAt(0).toUpperCase() + String(s || "").slice(1);
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;
  const ordinal = (n) => n + ({ 1: "st", 2: "nd", 3: "rd" }[n % 100 > 10 && n % 100 < 14 ? 0 : n % 10] || "th");
  const seatsOf = (b) => Array.from({ length: b.players || arr(b.tracks).length }, (_, i) => i);

  // Seats that have locked the pending decision: the game's own record and the page's prompt.
  function lockedSeats(v, b) {
    const out = new Set(arr(b.pending && b.pending.locked));
    const p = v.prompt;
    if (p && p.asks) for (const a of p.asks) if (a.status === "locked" || a.status === "revealed") out.add(a.seat);
    return out;
  }

  // ------------------------------------------------------------------ clock and Initiative

  function clock(v, b) {
    const rounds = b.rounds || 4, r = b.round || 0, phase = b.phase;
    const at = PHASES.indexOf(phase);
    const over = phase === "end";
    return h("div", { class: "tog-clock", "data-clock": `${r}/${rounds}` },
      h("div", { class: "tog-rounds", "data-rounds": rounds },
        h("span", { class: "tog-note" }, "Round"),
        Array.from({ length: rounds }, (_, k) => h("i", {
          class: k + 1 < r || (over && k + 1 === r) ? "done" : k + 1 === r && !over ? "now" : "",
          "data-round-dot": k + 1 }, String(k + 1))),
        h("b", {}, over ? ` all ${rounds} played` : ` ${r} of ${rounds}`)),
      h("div", { class: "tog-phases" }, PHASES.map((p, k) => h("span", {
        class: "tog-phase" + (p === phase ? " now" : (over || k < at) ? " past" : ""),
        "data-phase-step": p, "data-current": p === phase ? "1" : null }, TITLES[p])),
        over ? h("span", { class: "tog-phase now", "data-phase-step": "end", "data-current": "1" }, TITLES.end) : null));
  }

  function initiative(v, b) {
    const order = arr(b.initiative), passed = new Set(arr(b.passed));
    const adv = b.phase === "adventure";
    const chips = order.map((s, k) => h("span", {
      class: "tog-chip" + (adv && s === b.active ? " active" : "") + (adv && passed.has(s) ? " passed" : ""),
      "data-seat": s, "data-active": adv && s === b.active ? "1" : null,
      "data-passed": adv && passed.has(s) ? "1" : null },
    h("span", { class: "n" }, String(k + 1)), dot(v, s), seatName(v, s),
    adv && s === b.active ? h("span", { class: "tog-tag gold" }, "turn") : null,
    adv && passed.has(s) ? h("span", { class: "tog-tag" }, "passed") : null));
    let line = null;
    if (adv && b.active !== null && b.active !== undefined) line = `${seatName(v, b.active)}'s Adventure turn`;
    if (b.offer) line = `${seatName(v, b.offer[0])} is choosing this round's Olympics card`;
    return h("div", {}, h("div", { class: "tog-init", "data-initiative": order.join(",") },
      h("span", { class: "tog-note" }, "Initiative"), chips,
      line ? h("span", { class: "tog-note", "data-turn": adv ? b.active : null }, "· " + line) : null,
      adv && passed.size ? h("span", { class: "tog-note" }, `· ${passed.size} of ${order.length} passed`) : null),
    asking(v, b));
  }

  // What the pending decision asks, in its prompts' words (the answers stay on the controllers).
  function asking(v, b) {
    const byText = new Map();
    for (const a of arr(b.pending && b.pending.asks)) {
      if (!byText.has(a.text)) byText.set(a.text, []);
      byText.get(a.text).push(a.seat);
    }
    if (!byText.size) return null;
    return h("div", { class: "tog-asking", "data-asking": "1" }, [...byText].map(([text, seats]) =>
      h("div", { "data-ask-seats": seats.join(",") }, h("span", { class: "tog-note" }, "Now "),
        seats.flatMap((s, k) => [k ? ", " : "", who(v, s)]), ": ", h("b", {}, text))));
  }

  // ------------------------------------------------------------------ tracks

  function count(key, label, value, extra) {
    return h("div", { class: "tog-count", "data-track": key, "data-value": value },
      h("span", { class: "k" }, label), h("b", {}, String(value)), extra ? h("span", { class: "tog-note" }, " " + extra) : null);
  }

  function vigorRow(t) {
    const limit = t.vigor_limit;  // null once the Limit Cube left the track
    const squares = Array.from({ length: VIGOR_MAX }, (_, k) => {
      const n = k + 1;
      return h("span", { class: (n <= t.vigor ? "on" : "") + (limit && n > limit ? " over" : "") + (n === limit ? " limit" : ""),
        title: n === limit ? "Limit Cube" : "" }, String(n));
    });
    return h("div", { class: "tog-row", "data-track": "vigor", "data-value": t.vigor,
      "data-limit": limit === null || limit === undefined ? "none" : limit, "data-hand-limit": t.hand_limit },
    h("span", { class: "k" }, "Vigor"), h("span", { class: "tog-vigor" }, squares),
    h("span", {}, h("b", {}, String(t.vigor)), limit ? ` / Limit ${limit}` : " · Limit Cube removed",
      " · Hand Limit ", h("b", { "data-track": "hand_limit" }, String(t.hand_limit))));
  }

  function energyRow(v, i, t) {
    const c = colour(v, i);
    const cubes = (n, cls) => Array.from({ length: Math.min(n, 24) }, () => h("span", { class: "tog-cube " + cls, style: "background:" + c }));
    return h("div", { class: "tog-row", "data-track": "energy", "data-available": t.available, "data-exhausted": t.exhausted },
      h("span", { class: "k" }, "Energy"), h("span", {}, cubes(t.available, ""), cubes(t.exhausted, "ex")),
      h("span", {}, h("b", {}, String(t.available)), " available · ", h("b", {}, String(t.exhausted)), " exhausted",
        h("span", { class: "tog-note" }, ` · ${t.pool} in pool`)));
  }

  function players(v, b) {
    const tracks = arr(b.tracks);
    const order = arr(b.initiative).length ? arr(b.initiative) : seatsOf(b);
    return h("div", { class: "tog-players" }, order.filter((i) => tracks[i]).map((i) => {
      const t = tracks[i];
      const tamed = arr(t.tamed);
      const active = b.phase === "adventure" && b.active === i;
      return h("div", { class: "tog-player" + (active ? " active" : ""), "data-player": i, style: "border-color:" + colour(v, i) },
        h("div", { class: "tog-name" }, dot(v, i), seatName(v, i),
          active ? h("span", { class: "tog-tag gold" }, "turn") : null,
          arr(t.upgrades).map((u) => h("span", { class: "tog-tag", "data-upgrade": u }, UPGRADES[u] || u))),
        vigorRow(t), energyRow(v, i, t),
        h("div", { class: "tog-counts" },
          count("champions", "Champion", t.champions), count("dishonor", "Dishonor", t.dishonor),
          count("companions", "Companions", t.companions), count("temples", "Temples", t.temples),
          count("islands", "Exploration", t.islands, t.fleece ? `(${t.fleece} Fleece)` : "")),
        h("div", { class: "tog-row", "data-track": "tamed", "data-laurels": t.tamed_laurels, "data-count": tamed.length },
          h("span", { class: "k" }, "Tamed"),
          tamed.length ? tamed.map((m) => h("span", { class: "tog-tag", "data-monster": m.name },
            `${m.name} · ${plural(m.laurels, "Laurel")}` + (m.meeple === "removed" ? " (removed)" : m.meeple === "placed" ? " (placed)" : "")))
            : h("span", { class: "tog-note" }, "none"),
          h("span", {}, "Laurels ", h("b", {}, String(t.tamed_laurels)))));
    }));
  }

  // ------------------------------------------------------------------ the Olympics

  // The round the competitions/olympics_result in the view belong to: they stay in the view
  // until the next Olympics begins (its Fervor bonus is dialled with the old ones still there).
  function olympicsRound(b) {
    for (const r of [b.olympics_result, ...arr(b.competitions)]) {
      if (r && r.round !== undefined) return r.round;
    }
    return 0;
  }

  function cardBox(b, name, label) {
    const c = (b.cards || {})[name];
    if (!c) return null;
    return h("div", { class: "tog-card", "data-olympics-card": name },
      h("div", {}, h("span", { class: "tog-note" }, label + " "), h("span", { class: "t" }, name)),
      h("div", {}, "Disciplines: ", h("b", {}, arr(c.disciplines).join(" · ")),
        h("span", { class: "tog-note" }, " · tiebreakers: " + arr(c.tiebreakers).join(", "))),
      h("ol", { class: "tog-prizes" }, arr(c.prizes).map((p) => h("li", {}, p))));
  }

  function fervorTrack(v, fervor, order, label) {
    const vals = order.map((s) => Number(fervor[String(s)] || 0));
    const top = Math.max(30, ...vals);
    return h("div", {}, h("h2", {}, label),
      h("div", { class: "tog-fervor", "data-fervor-track": "1" }, order.flatMap((s, k) => [
        who(v, s),
        h("div", { class: "bar" }, h("div", { style: `width:${Math.min(100, (100 * vals[k]) / top)}%;background:${colour(v, s)}` })),
        h("b", { "data-fervor": s, "data-value": vals[k] }, String(vals[k]))])));
  }

  function playText(p) {
    const vals = p.total !== null && p.total !== undefined ? `sum ${p.total}`
      : Object.entries(p.values || {}).map(([k, n]) => `${k} ${n}`).join(" · ");
    return p.effect !== null && p.effect !== undefined ? `${vals} → Effect` : vals;
  }

  function competitions(v, b, order, live) {
    const list = arr(b.competitions);
    const syms = (b.olympics && b.olympics.disciplines) || [];
    const rows = list.map((c) => h("tr", { "data-competition": c.competition, "data-revealed": "1" },
      h("td", {}, h("b", {}, "#" + c.competition)),
      order.map((s) => {
        const p = (c.plays || {})[String(s)];
        if (!p) return h("td", { "data-seat": s }, "—");
        if (p.fervor === null || p.fervor === undefined) {  // revealed; numbers or Effect?
          return h("td", { "data-seat": s, "data-status": "choosing" },
            h("span", { class: "tog-lock" }, "numbers or Effect?"),
            h("span", { class: "small", "data-values": "1" }, playText(p)));
        }
        return h("td", { "data-seat": s, "data-play-fervor": p.fervor },
          h("b", {}, "+" + p.fervor), " Fervor",
          h("span", { class: "small", "data-values": "1" }, playText(p)),
          p.effect !== null && p.effect !== undefined ? h("span", { class: "small" }, `Olympics Effect: ${p.effect} Fervor`) : null);
      })));
    // The Competition being dialled now: who has locked, never what.
    const ol = b.olympics;
    const p = b.pending;
    if (live && ol && ol.competitions < 3 && p && p.sealed && list.length === ol.competitions) {
      const locked = lockedSeats(v, b);
      const asked = new Set(arr(p.seats));
      rows.push(h("tr", { "data-competition": ol.competitions + 1, "data-revealed": "0", "data-sealed": "1" },
        h("td", {}, h("b", {}, "#" + (ol.competitions + 1))),
        order.map((s) => h("td", { "data-seat": s, "data-lock-seat": s,
          "data-status": locked.has(s) ? "locked" : asked.has(s) ? "dialling" : "—" },
        h("span", { class: "tog-lock" + (locked.has(s) ? " locked" : "") },
          locked.has(s) ? "✔ locked" : asked.has(s) ? "dialling…" : "—")))));
    }
    if (!rows.length) return null;
    return h("div", {}, h("h2", {}, "Competitions" + (syms.length ? " · " + syms.join(" / ") : "") +
      " (revealed together)"),
    h("div", { class: "tog-scroll" }, h("table", { class: "tog-table", "data-competitions": list.length },
      h("tr", {}, h("th", {}, ""), order.map((s) => h("th", {}, who(v, s)))), rows)));
  }

  function skills(v, b, order) {
    const rolls = b.skill_rolls || {};
    const seats = order.filter((s) => rolls[String(s)] !== undefined);
    if (!seats.length) return null;
    return h("div", { class: "tog-row", "data-skills": "1" }, h("span", { class: "k" }, "Skills dice"),
      seats.map((s) => h("span", { "data-skill-seat": s }, who(v, s), ": ",
        arr(rolls[String(s)]).length ? arr(rolls[String(s)]).map((f) => h("span", { class: "tog-die" }, f))
          : h("span", { class: "tog-note" }, "none"), " ")));
  }

  function ranking(v, b) {
    const r = b.olympics_result;
    if (!r) return null;
    const fervor = r.fervor || {};
    const awards = arr(r.awards);
    return h("div", {}, h("h2", {}, "Olympics ranking and prizes"),
      h("div", { class: "tog-scroll" }, h("table", { class: "tog-table", "data-olympics-ranking": arr(r.ranking).join(",") },
        arr(r.ranking).map((s, k) => {
          const a = awards.find((x) => x.seat === s);
          return h("tr", { "data-place": k + 1, "data-seat": s },
            h("td", {}, h("b", {}, ordinal(k + 1))), h("td", {}, who(v, s)),
            h("td", { class: "num" }, String(fervor[String(s)] ?? "")),
            h("td", {}, a ? a.prize : h("span", { class: "tog-note" }, "no prize")));
        }))),
      h("div", { class: "tog-note" }, "New Initiative: " + arr(b.initiative).map((s) => seatName(v, s)).join(", ")));
  }

  function olympics(v, b) {
    const ol = b.olympics;
    const order = arr(b.initiative).length ? arr(b.initiative) : seatsOf(b);
    if (ol) {
      return h("div", { "data-olympics": "live", "data-played": ol.competitions },
        h("h2", {}, `Olympics · round ${b.round} · Competition ${Math.min(ol.competitions + 1, 3)} of 3`),
        cardBox(b, ol.card, "Olympics card"),
        fervorTrack(v, ol.fervor || {}, order, "Fervor track"),
        competitions(v, b, order, true), skills(v, b, order));
    }
    const last = b.olympics_result;
    const list = arr(b.competitions);
    const revealed = arr(b.revealed);
    // this round's card once it is revealed at Dawn (the last revealed card is last round's before)
    const upcoming = revealed.length === b.round && olympicsRound(b) !== b.round
      ? cardBox(b, revealed[revealed.length - 1], `Round ${b.round} Olympics card`) : null;
    if (!last && !list.length) return upcoming ? h("div", { "data-olympics": "card" }, h("h2", {}, "Olympics"), upcoming) : null;
    const ro = olympicsRound(b);
    const fervorOrder = last ? arr(last.ranking) : order;
    return h("div", { "data-olympics": "done", "data-olympics-round": ro },
      upcoming ? h("h2", {}, "Olympics") : null, upcoming,
      h("h2", {}, `Olympics of round ${ro}`),
      cardBox(b, revealed[ro - 1], "Olympics card"),
      last ? fervorTrack(v, last.fervor || {}, fervorOrder, "Final Fervor") : null,
      competitions(v, b, fervorOrder, false), skills(v, b, fervorOrder), ranking(v, b));
  }

  // ------------------------------------------------------------------ fights

  function lastFight(v, b) {
    const f = arr(b.fights)[arr(b.fights).length - 1];
    if (!f) return null;
    const pa = f.player_attack || {}, ea = f.enemy_attack || {}, e = f.enemy || {}, dmg = f.damage || {};
    const win = f.winner;
    const dice = arr(ea.dice).map((d) => (d === "activation"
      ? h("span", { class: "tog-die act", title: "Skill activation", "data-die": "activation" }, "⚡")
      : h("span", { class: "tog-die", "data-die": d }, String(d))));
    const winText = win === "player" ? `${seatName(v, f.seat)} wins` : win === "enemy" ? `${e.name || "the Enemy"} wins` : "a tie: no winner";
    const dmgParts = [`${dmg.regular || 0}`];
    if (dmg.bonus) dmgParts.push(`${dmg.bonus} Bonus`);
    if (dmg.extra) dmgParts.push(`${dmg.extra} extra`);
    return h("div", { "data-fight": arr(b.fights).length, "data-winner-side": win || "none" },
      h("h2", {}, `Last fight · round ${f.round}`),
      h("div", { class: "tog-fight" },
        h("div", { class: "side" }, h("div", {}, who(v, f.seat)),
          h("div", { class: "att" + (win === "player" ? " win" : ""), "data-attack": "player" }, String(pa.total ?? "?")),
          h("div", { class: "tog-note" }, "Attack" + (pa.upgrade ? ` (incl. Upgrade +${pa.upgrade})` : ""))),
        h("div", { class: "vs" }, "vs"),
        h("div", { class: "side" }, h("div", {}, h("b", {}, e.name || "Enemy"), h("span", { class: "tog-note" }, ` ${e.kind || ""}`)),
          h("div", { class: "att" + (win === "enemy" ? " win" : ""), "data-attack": "enemy" }, String(ea.total ?? "?")),
          h("div", { class: "tog-note" }, `Attack ${ea.value ?? "?"} + dice `, dice,
            ea.skill ? ` + Skill ${ea.skill}` : ""))),
      h("div", { class: "tog-row" },
        h("span", { class: "tog-tag gold", "data-fight-winner": win || "none" }, winText),
        h("span", { "data-damage": dmg.total ?? 0 }, "Damage ", h("b", {}, String(dmg.total ?? 0)),
          dmgParts.length > 1 ? ` (${dmgParts.join(" + ")})` : ""),
        f.enemy_state ? h("span", { class: "tog-note" }, `Enemy ${f.enemy_state.before} → ${f.enemy_state.after}`) : null),
      arr(f.notes).length ? h("div", { class: "tog-note" }, arr(f.notes).join(" · ")) : null);
  }

  function enemies(b) {
    const hurt = Object.entries(b.enemies || {});
    if (!hurt.length) return null;
    return h("div", { class: "tog-row", "data-enemies": hurt.length }, h("span", { class: "k" }, "Enemies"),
      hurt.map(([n, s]) => h("span", { class: "tog-tag", "data-enemy": n }, `${n}: ${s}`)));
  }

  // ------------------------------------------------------------------ the end

  function laurelSource(key, t) {
    if (!t) return "";
    if (key === "domination") return "Tamed Monsters";
    if (key === "exploration") return `${t.islands_plain} Islands + 2×${t.islands_fleece} Fleece`;
    if (key === "olympics") return "Champion Tokens";
    if (key === "devotion") return `${t.card_laurels} card Laurels − ${t.animae} Animae`;
    return "";
  }

  function finalTable(v, b) {
    const f = b.final;
    if (!f) return null;
    const rankings = arr(f.rankings);
    const keys = rankings.length ? rankings.map((r) => r.ranking) : RANKINGS;
    const labels = Object.fromEntries(rankings.map((r) => [r.ranking, r.label]));
    const vpTables = Object.fromEntries(rankings.map((r) => [r.ranking, arr(r.vp_table).join("/")]));
    const bySeat = Object.fromEntries(arr(f.players).map((p) => [p.seat, p]));
    const order = arr(f.standings).length ? arr(f.standings) : arr(f.players).map((p) => p.seat);
    const w = f.winner || {};
    const rows = order.map((s, k) => {
      const p = bySeat[s] || { sources: [], vp: 0 };
      const src = Object.fromEntries(arr(p.sources).map((x) => [x.ranking, x]));
      return h("tr", { class: s === w.seat ? "winner" : "", "data-standing": k + 1, "data-seat": s, "data-vp": p.vp },
        h("td", {}, h("b", {}, ordinal(k + 1))),
        h("td", {}, who(v, s), s === w.seat ? h("span", { class: "tog-tag gold" }, "★ winner") : null),
        keys.map((key) => {
          const x = src[key];
          if (!x) return h("td", { "data-ranking": key, "data-seat": s }, "—");
          return h("td", { "data-ranking": key, "data-seat": s, "data-vp": x.vp, "data-position": x.position ?? "none" },
            h("b", {}, `${x.vp} VP`),
            h("span", { class: "small" }, (x.position ? ordinal(x.position) : "not ranked") + " · " + plural(x.laurels, "Laurel")),
            h("span", { class: "small" }, laurelSource(key, p.tally)),
            x.note ? h("span", { class: "small", "data-note": key }, x.note) : null);
        }),
        h("td", { class: "num", "data-total": p.vp }, String(p.vp)));
    });
    const steps = arr(w.steps);
    return h("div", { "data-final": "1" },
      h("h2", {}, "Final rankings: where the Victory Points came from"),
      h("div", { class: "tog-scroll" }, h("table", { class: "tog-table", "data-final-table": "1" },
        h("tr", {}, h("th", {}, ""), h("th", {}, "Player"),
          keys.map((key) => h("th", { "data-ranking-head": key }, (labels[key] || cap(key)) +
            (vpTables[key] ? ` (${vpTables[key]})` : ""))), h("th", {}, "VP")),
        rows)),
      w.seat !== undefined ? h("div", { class: "tog-winner", "data-winner": w.seat, "data-decided-by": w.decided_by },
        h("div", {}, dot(v, w.seat), " ", h("span", { class: "big" }, `${seatName(v, w.seat)} wins`), ` with ${w.vp} VP`),
        h("div", {}, w.decided_by === "vp" ? "Decided by most Victory Points."
          : `Tied on ${w.vp} VP with ${arr(w.tied_for_most).filter((s) => s !== w.seat).map((s) => seatName(v, s)).join(", ")}: ` +
            `decided by ${w.decided_by_label || w.decided_by}.`),
        steps.length ? h("ol", { "data-tiebreak": steps.length }, steps.map((st) => h("li", { "data-step": st.criterion },
          `${cap(st.label || st.criterion)}: ` + arr(st.values).map((x) => `${seatName(v, x.seat)} ${x.value}`).join(", ") +
          ` → ${arr(st.remaining).map((s) => seatName(v, s)).join(", ")}`))) : null) : null);
  }

  // ------------------------------------------------------------------ the board

  function trialBoard(v, b) {
    const pack = b.pack || {};
    return h("div", { class: "panel tog-panel", "data-board": "trial-of-the-gods", "data-phase": b.phase,
      "data-round": b.round, "data-rounds": b.rounds },
    h("div", { class: "board-head" }, h("span", { class: "big" }, "Trial of the Gods"),
      h("span", { class: "badge" }, `${TITLES[b.phase] || b.phase} · round ${b.round} of ${b.rounds}`),
      pack.name ? h("span", { class: "badge" + (pack.sample ? " warn" : "") }, pack.name) : null,
      typeof b.olympics_deck === "number" ? h("span", { class: "badge" }, `${b.olympics_deck} Olympics cards in the deck`) : null,
      b.result && b.result.text ? h("span", { class: "badge ok", "data-result": "1" }, "game over") : null),
    h("div", { class: "tog-body" },  // (in columns on a wide board: see .tog-body)
      clock(v, b), initiative(v, b),
      finalTable(v, b),
      b.olympics ? olympics(v, b) : null,  // the Olympics being played: first
      lastFight(v, b), enemies(b),
      h("h2", {}, "Public tracks"), players(v, b),
      b.olympics ? null : olympics(v, b)));  // this round's card, the last Olympics' results
  }

  (window.DialboxBoards = window.DialboxBoards || {})["trial-of-the-gods"] = trialBoard;
})();
