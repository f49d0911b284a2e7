// Stadium's board on the dialbox table screen: the Trial track, the Trial in play with its
// talk rule, both Teams' Medals and points, each Athlete's Energy.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, hex, seatOf, seatName, style, redraw } = window.Dialbox;
  const TEAM_COLOURS = { blue: "1e88e5", red: "e53935" };

  // One-line summaries of every Trial (trial-summaries.json beside this file, served by the
  // screen at /games/stadium/trial-summaries.json): the names of revealed Trials on the track,
  // and the rules of the Trial in play for a view that carries no summary of its own.
  let trials = null;
  const here = (document.currentScript && document.currentScript.src) || location.href;
  fetch(new URL("trial-summaries.json", here))
    .then((r) => (r.ok ? r.json() : null))
    .then((j) => { if (j) { trials = j; redraw(); } })
    .catch(() => {});

  style("stadium", `
.trials { display: grid; grid-template-columns: repeat(10, 1fr); gap: 6px; margin-bottom: 12px; }
.trial { border-radius: 8px; padding: 6px; min-height: 70px; font-size: 12px; background: var(--panel2);
  display: flex; flex-direction: column; justify-content: space-between; }
.trial.current { outline: 3px solid var(--gold); }
.trial.back { background: repeating-linear-gradient(45deg, #1b2530, #1b2530 6px, #212d39 6px, #212d39 12px);
  color: var(--dim); text-transform: capitalize; }
.trial .tn { font-weight: 700; font-size: 13px; }
.rules { font-size: 18px; padding: 12px; border-radius: 10px; background: #1b2733; margin-bottom: 12px; }
.talk { font-weight: 700; }
.medals { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-bottom: 12px; }
.team { border-radius: 10px; padding: 10px; background: var(--panel2); border-left: 8px solid; }
.team .tname { font-size: 18px; font-weight: 700; }
.medal { display: inline-block; width: 28px; height: 28px; border-radius: 50%; margin: 4px 4px 0 0;
  text-align: center; line-height: 28px; color: #111; font-weight: 700; font-size: 13px; }
.medal.gold { background: var(--gold); } .medal.silver { background: var(--silver); }
.medal.bronze { background: var(--bronze); }
`);

  function talkBadge(talk) {
    if (!talk) return null;
    const cls = talk === "allowed" ? "ok" : talk === "forbidden" ? "bad" : "warn";
    const words = talk === "allowed" ? "Talking allowed" : talk === "forbidden" ? "No talking" : "Talk: " + talk;
    return h("span", { class: "badge talk " + cls, "data-talk": talk }, words);
  }

  function teamColour(v, i) {
    const team = seatOf(v, i).team || (i % 2 ? "red" : "blue");
    return TEAM_COLOURS[team] || "888888";
  }

  function stadiumBoard(v, b) {
    const info = (trials && trials.trials) || {};
    // The Trial in play: `trial` {key, name, talk, summary} (older views: `stage` {trial, ...}).
    const t = b.trial || b.stage || {};
    const stage = { trial: t.key || t.trial, name: t.name, talk: t.talk, summary: t.summary };
    const track = h("div", { class: "trials", "data-board": "stadium" }, (b.track || []).map((key, i) => {
      const known = info[key];
      const revealed = i < b.revealed;
      return h("div", { class: "trial" + (revealed ? "" : " back") + (i === b.revealed - 1 && stage.trial ? " current" : ""), "data-trial": i },
        h("span", { class: "tn" }, revealed ? (known ? known.name : key) : key), h("span", {}, "#" + (i + 1)));
    }));
    const cur = stage.trial ? info[stage.trial] : null;
    const rules = stage.trial ? h("div", { class: "rules", "data-trial-rules": stage.trial },
      h("div", { class: "board-head" }, h("span", { class: "big" }, stage.name || stage.trial), talkBadge(stage.talk)),
      stage.summary || (cur ? cur.rules : "")) : null;
    const medals = h("div", { class: "medals" }, ["blue", "red"].map((t, ti) => {
      const raw = (b.medals || {})[t] || {};
      const m = Array.isArray(raw) ? { gold: raw[0], silver: raw[1], bronze: raw[2] } : raw;
      const icons = [];
      for (const kind of ["gold", "silver", "bronze"]) for (let k = 0; k < (m[kind] || 0); k++)
        icons.push(h("span", { class: "medal " + kind }, kind[0].toUpperCase()));
      return h("div", { class: "team", "data-team": t, style: "border-color:" + hex(TEAM_COLOURS[t]) },
        h("div", { class: "tname" }, t === "blue" ? "Blue Starz" : "Red Sunz", " ",
          h("span", { class: "badge" }, ((b.points || [])[ti] ?? 0) + " points")),
        h("div", {}, icons.length ? icons : h("span", { class: "badge" }, "no Medals yet")));
    }));
    const energy = (b.energy || []).map((e, i) => h("div", { class: "fuel", "data-seat": i },
      h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i),
        i === b.first ? " ⚑" : ""),
      h("div", { class: "bar" }, h("div", { style: `width:${e * 100 / 30}%;background:${hex(teamColour(v, i))}` })),
      h("b", {}, e + "⚡" + (b.score && b.score[i] !== null && b.score[i] !== undefined
        ? " · score " + b.score[i] : ""))));
    return h("div", { class: "panel" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Stadium"),
        h("span", { class: "badge" }, "Trial " + (b.revealed || 0) + " of " + (b.track || []).length)),
      track, rules, medals, h("h2", {}, "Athletes' Energy (team colour bar, ⚑ first player)"), energy);
  }

  (window.DialboxBoards = window.DialboxBoards || {}).stadium = stadiumBoard;
})();
