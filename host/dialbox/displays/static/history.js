// The history page: every game of the table's journal (/api/history), the latest first.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  const { h } = window.dialboxDom;  // (dom.js)

  function date(t) {
    // Epoch seconds (or an ISO date); null if neither.
    const d = typeof t === "number" ? new Date(t * 1000) : new Date(t);
    return Number.isNaN(d.getTime()) ? null : d;
  }

  function when(t) {
    // In the browser's own locale and time zone.
    const d = date(t);
    if (d === null) return "—";
    return h("time", { datetime: d.toISOString() },
      d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }));
  }

  function player(p, winners) {
    const name = p.kind === "bot" ? p.colour + " (bot)" : p.kind === "empty" ? p.colour + " (empty)"
      : p.name ? p.name + " (" + p.colour + ")" : p.colour;
    const won = winners.includes(p.seat);
    return h("li", { class: "player " + p.kind + (won ? " won" : ""), "data-seat": p.seat },
      won ? h("span", { "aria-label": "winner" }, "★ ") : null, name);
  }

  function result(g) {
    if (g.result && g.result.text) return g.result.text;
    return g.finished ? "ended without a result" : "in progress";
  }

  function row(g) {
    const winners = (g.result && g.result.winners) || [];
    const href = "/replay/" + encodeURIComponent(g.table) + "/" + g.number;
    return h("tr", { "data-table": g.table, "data-number": g.number, "data-game": g.game },
      h("td", { class: "when" }, when(g.started)),
      h("td", {}, g.table),
      h("td", {}, g.number),
      h("td", { class: "title" }, g.title, g.how && g.how !== "config" ? h("span", { class: "badge" }, g.how) : null),
      h("td", {}, h("ul", { class: "players" }, g.players.map((p) => player(p, winners)))),
      h("td", { class: "result" + (g.finished ? "" : " open") }, result(g)),
      h("td", {}, g.steps),
      h("td", {}, h("a", { class: "replay", href, "aria-label": "Replay game " + g.number + " of " + g.table + ", " + g.title }, "replay ▶")));
  }

  async function load() {
    const status = $("history-status");
    let games;
    try {
      const r = await fetch("/api/history", { cache: "no-store" });
      const body = await r.json();
      if (!r.ok) throw new Error(body.error || r.statusText);
      games = body;
    } catch (e) {
      status.textContent = "The journal cannot be read: " + e.message;
      status.className = "notice error";
      window.dialboxHistory = { error: e.message };
      return;
    }
    games.sort((a, b) => b.started - a.started || (a.table < b.table ? -1 : 1) || b.number - a.number);
    $("history").querySelector("tbody").replaceChildren(...games.map(row));
    $("history").hidden = !games.length;
    status.textContent = games.length === 1 ? "1 game." : games.length ? games.length + " games." : "No game yet.";
    window.dialboxHistory = { games: games.length };
  }

  load();
})();
