// Stadium's board on the dialbox table screen: the Trial track, the Trial in play with its
// talk rule and what is happening in it (wagers, dice, the Rugby cube, the bar), both Teams
// (each known by its name, emblem and pattern, never by a seat's colour) with their Medals and
// points, each Athlete's Energy.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, s, hex, seatOf, seatLabel, style, redraw } = window.Dialbox;

  // Data files beside this one (served by the screen at /games/stadium/<file>.json):
  // one-line summaries of every Trial (the names of revealed Trials, the rules of the one in
  // play for a view without its own summary), and the sample Trial tiles' printed numbers
  // (Pole Vault's rungs, Equestrian's obstacles, Rugby's spaces to the goal, Golf's holes).
  let trials = null, tiles = null;
  const here = (document.currentScript && document.currentScript.src) || location.href;
  const load = (file, keep) => fetch(new URL(file, here))
    .then((r) => (r.ok ? r.json() : null))
    .then((j) => { if (j) { keep(j); redraw(); } })
    .catch(() => {});
  load("trial-summaries.json", (j) => { trials = j; });
  load("sample_tiles.json", (j) => { tiles = j; });

  // A Team is told apart by shape and pattern (and its name), never by a colour: the seats'
  // colours are the players', and a Red seat may well play for the other Team. `name` is the
  // Team's name in the game's texts, for a view that does not name its Teams itself.
  const LOOKS = [{ shape: "star", pattern: "stripes", name: "Starz" }, { shape: "sun", pattern: "dots", name: "Sunz" }];
  const DIE_INK = { white: "f4f4f4", green: "43a047", blue: "1e88e5", yellow: "fdd835", red: "e53935", black: "222222" };

  style("stadium", `
.st-panel .trials { display: grid; grid-template-columns: repeat(10, 1fr); gap: 6px; margin-bottom: 12px; }
.st-panel .trial { border-radius: 8px; padding: 6px; min-height: 70px; font-size: 12px; background: var(--panel2);
  display: flex; flex-direction: column; justify-content: space-between; }
.st-panel .trial.current { outline: 3px solid var(--gold); }
.st-panel .trial.back { background: repeating-linear-gradient(45deg, #1b2530, #1b2530 6px, #212d39 6px, #212d39 12px);
  color: var(--dim); text-transform: capitalize; }
.st-panel .trial .tn { font-weight: 700; font-size: 13px; }
.st-panel .rules { font-size: 18px; padding: 12px; border-radius: 10px; background: #1b2733; margin-bottom: 12px; }
.st-panel .talk { font-weight: 700; }
.st-panel .medals { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-bottom: 12px; }
.st-panel .team { border-radius: 10px; padding: 10px 10px 10px 58px; background: var(--panel2); position: relative;
  min-height: 84px; }
.st-panel .team .st-flag { position: absolute; left: 0; top: 0; bottom: 0; width: 48px; border-radius: 10px 0 0 10px;
  display: flex; align-items: flex-start; justify-content: center; padding-top: 8px; }
.st-panel .team .tname { font-size: 20px; font-weight: 700; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.st-panel .team .mates { font-size: 13px; color: var(--dim); margin-top: 2px; }
.st-panel [data-pattern=stripes] { background: repeating-linear-gradient(135deg, #dfe6ee 0 5px, #4f5c69 5px 10px); }
.st-panel [data-pattern=dots] { background: radial-gradient(circle, #dfe6ee 0 2.6px, transparent 3.2px) 0 0 / 9px 9px, #4f5c69; }
.st-panel .st-emblem { display: inline-block; vertical-align: middle; }
.st-panel .medal { display: inline-block; width: 28px; height: 28px; border-radius: 50%; margin: 4px 4px 0 0;
  text-align: center; line-height: 28px; color: #111; font-weight: 700; font-size: 13px; }
.st-panel .medal.gold { background: var(--gold); } .st-panel .medal.silver { background: var(--silver); }
.st-panel .medal.bronze { background: var(--bronze); }
.st-panel .st-state { margin-top: 10px; display: flex; flex-direction: column; gap: 8px; font-size: 16px; }
.st-panel .st-row { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.st-panel .st-row > .k { font-size: 12px; color: var(--dim); text-transform: uppercase; min-width: 92px; }
.st-panel .st-seat { display: inline-flex; align-items: center; gap: 5px; padding: 2px 10px 2px 6px; border-radius: 999px;
  background: var(--panel2); font-size: 15px; }
.st-panel .st-seat b { font-size: 17px; }
.st-panel .st-die { display: inline-flex; align-items: center; gap: 4px; font-size: 13px; color: var(--dim); }
.st-panel .st-die i { font-style: normal; min-width: 30px; height: 30px; border-radius: 6px; color: #111; font-weight: 800;
  font-size: 17px; text-align: center; line-height: 30px; border: 2px solid #0b1016; padding: 0 3px; }
.st-panel .st-pitch { display: flex; align-items: stretch; gap: 0; }
.st-panel .st-pitch .end { display: flex; flex-direction: column; align-items: center; justify-content: center; gap: 2px;
  width: 110px; font-size: 13px; font-weight: 700; text-align: center; padding: 4px; border-radius: 8px; background: var(--panel2); }
.st-panel .st-pitch .end .sub { font-weight: 400; font-size: 11px; color: var(--dim); }
.st-panel .st-pitch .cell { flex: 1; height: 56px; border-left: 2px solid #3c6b48; background: #1f4a2c;
  display: flex; align-items: center; justify-content: center; color: #9fc5a8; font-size: 12px; position: relative; }
.st-panel .st-pitch .cell.mid { border-left-width: 4px; }
.st-panel .st-cube { width: 30px; height: 30px; border-radius: 5px; background: #f4f4f4; border: 2px solid #111;
  box-shadow: 0 0 12px #fff8; }
.st-panel .st-ladder { display: flex; align-items: flex-end; gap: 10px; height: 150px; padding: 6px 8px 0;
  border-bottom: 3px solid #4f5c69; }
.st-panel .st-ladder .rung { width: 58px; display: flex; flex-direction: column; justify-content: flex-end; align-items: center;
  gap: 4px; font-size: 12px; color: var(--dim); }
.st-panel .st-ladder .post { width: 100%; background: #33414f; border-radius: 4px 4px 0 0; position: relative;
  display: flex; justify-content: center; align-items: flex-start; }
.st-panel .st-ladder .rung.now .post { background: var(--gold); box-shadow: 0 0 12px #f2c14e88; }
.st-panel .st-ladder .rung.past .post { opacity: .4; }
.st-panel .st-ladder .rung b { color: var(--ink); font-size: 18px; }
.st-panel .st-holes { display: flex; gap: 6px; flex-wrap: wrap; }
.st-panel .st-hole { width: 64px; border-radius: 8px; background: #1f4a2c; padding: 4px; text-align: center; font-size: 12px;
  color: #9fc5a8; display: flex; flex-direction: column; align-items: center; gap: 3px; }
.st-panel .st-hole.rolled { outline: 3px solid var(--gold); }
.st-panel .st-hole .flags { display: flex; gap: 3px; min-height: 20px; }
/* A narrow board (a phone: the board is laid out at its box's width before it is fitted):
   the Trial track becomes a compact list (two columns: #1-#5, #6-#10, one line a Trial)
   and the wide parts give up their spare room,
   so the board is drawn near full size rather than shrunk to fit a ten-tile row. */
.st-panel { container-type: inline-size;
  @container (max-width: 640px) {
    & .trials { grid-template-columns: repeat(2, minmax(0, 1fr)); grid-template-rows: repeat(5, auto);
    grid-auto-flow: column; gap: 4px 6px; }
    & .trial { min-height: 0; padding: 4px 8px; flex-direction: row-reverse; justify-content: flex-end;
    align-items: baseline; gap: 8px; }
    & .trial > span:last-child { min-width: 2.2em; color: var(--dim); }
    & .rules { font-size: 15px; padding: 10px; }
    & .medals { gap: 8px; }
    & .team { padding: 8px 8px 8px 44px; min-height: 0; }
    & .team .st-flag { width: 36px; }
    & .team .tname { font-size: 17px; }
    & .st-row > .k { min-width: 0; flex-basis: 100%; }
    & .st-pitch .end { width: 58px; font-size: 11px; padding: 2px; overflow-wrap: anywhere; }
    & .st-pitch .cell { min-width: 0; font-size: 10px; }
    & .st-ladder { gap: 4px; padding: 6px 0 0; }
    & .st-ladder .rung { width: auto; flex: 1 1 0; min-width: 0; }
    & .st-hole { width: 56px; }
    & .fuel { grid-template-columns: minmax(0, 1fr) 70px auto; white-space: normal; }
  }
}
`);

  const cap = (t) => (t ? String(t).charAt(0).toUpperCase() + String(t).slice(1) : "");

  function emblem(ti, size) {
    // The Team's shape: a star or a sun, drawn plain white on the dark panel.
    const look = LOOKS[ti % LOOKS.length], r = size / 2;
    const art = look.shape === "star"
      ? s("polygon", { fill: "#f4f6f8", stroke: "#111", "stroke-width": 1.5, points: Array.from({ length: 10 }, (_, k) => {
          const a = -Math.PI / 2 + (k * Math.PI) / 5, d = k % 2 ? r * 0.42 : r * 0.95;
          return (r + d * Math.cos(a)).toFixed(1) + "," + (r + d * Math.sin(a)).toFixed(1);
        }).join(" ") })
      : s("g", {}, s("circle", { cx: r, cy: r, r: r * 0.5, fill: "#f4f6f8", stroke: "#111", "stroke-width": 1.5 }),
        Array.from({ length: 8 }, (_, k) => {
          const a = (k * Math.PI) / 4;
          return s("line", { x1: r + r * 0.62 * Math.cos(a), y1: r + r * 0.62 * Math.sin(a), x2: r + r * 0.95 * Math.cos(a),
            y2: r + r * 0.95 * Math.sin(a), stroke: "#f4f6f8", "stroke-width": 2.2, "stroke-linecap": "round" });
        }));
    return s("svg", { class: "st-emblem", width: size, height: size, viewBox: `0 0 ${size} ${size}`, "data-shape": look.shape,
      "aria-hidden": "true" }, art);
  }

  function teamsOf(v, b) {
    // The Teams as the view gives them: keys from the Medal boards (in the game's order; keys
    // are machine names, never shown), names from the view (`team_names` or `teams`, a list in
    // the same order or by key), else from the seats' team badges when those are names rather
    // than keys, else the game's own names.
    const keys = Object.keys(b.medals || {});
    const named = b.team_names || b.teams;
    const given = (ti, key) => {
      let name = Array.isArray(named) ? named[ti] : named && typeof named === "object" ? named[key] : null;
      if (name && typeof name === "object") name = name.name || name.title;
      return typeof name === "string" && name ? name : null;
    };
    const list = [0, 1].map((ti) => {
      const key = keys[ti] ?? String(ti);
      return { ti, key, name: given(ti, key), look: LOOKS[ti] };
    });
    const seatTeam = (i) => {
      const t = seatOf(v, i).team;
      const k = list.findIndex((team) => t && (team.key === t || team.name === t));
      return k >= 0 ? k : i % 2;  // (the game seats its first Team on even seats)
    };
    for (const team of list) {
      if (team.name) continue;
      const badges = (v.seats || []).filter((st) => seatTeam(st.seat) === team.ti && st.team && !keys.includes(st.team));
      team.name = badges.length ? badges[0].team : team.look.name;
    }
    return { list, of: seatTeam };
  }

  function talkBadge(talk) {
    if (!talk) return null;
    const cls = talk === "allowed" ? "ok" : talk === "forbidden" ? "bad" : "warn";
    const words = talk === "allowed" ? "Talking allowed" : talk === "forbidden" ? "No talking" : "Talk: " + talk;
    return h("span", { class: "badge talk " + cls, "data-talk": talk }, words);
  }

  // ------------------------------------------------------------ the Trial in play

  function seatChip(v, i, value, attrs) {
    return h("span", { class: "st-seat", "data-seat": i, ...(attrs || {}) },
      h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), seatLabel(v, i),
      value === undefined || value === null ? null : h("b", {}, String(value)));
  }

  const row = (label, attrs, ...kids) => h("div", { class: "st-row", ...attrs }, h("span", { class: "k" }, label), ...kids);
  const seats = (v, list, attr) => (list || []).map((i) => seatChip(v, i, null, attr ? { [attr]: i } : null));
  const teamTag = (team, attrs) => h("span", { class: "st-seat", "data-team-tag": team.key, ...(attrs || {}) }, emblem(team.ti, 18), team.name);

  function trialEvents(v, key) {
    // This Trial's events among the latest ones (from its reveal on, when that is still shown).
    const ev = v.events || [];
    for (let k = ev.length - 1; k >= 0; k--) {
      if (ev[k].kind === "stadium.reveal") return (ev[k].data || {}).trial === key ? ev.slice(k + 1) : [];
    }
    return ev;
  }

  let sampleTiles = true;  // the view's tile set is the bundled sample one (set per draw)
  function printed(key, what) {
    // A number printed on the sample tile in play (the view holds only the Trial's state).
    const t = sampleTiles && tiles && tiles.tiles && tiles.tiles[key];
    return t ? t[what] : undefined;
  }

  function ladder(kind, heights, now, done, label) {
    // Bars of the heights in play, the current one lit: Pole Vault's rungs, Equestrian's obstacles.
    const top = Math.max(...heights, 1);
    return h("div", { class: "st-ladder", "data-ladder": kind }, heights.map((ht, k) => h("div", {
      class: "rung" + (k === now ? " now" : done(k) ? " past" : ""), "data-height": ht, "data-bar": k === now ? ht : null },
      h("b", {}, String(ht)),
      h("div", { class: "post", style: `height:${Math.round(18 + (100 * ht) / top)}px` }),
      label(k))));
  }

  const STATES = {
    rugby(v, b, t, teams) {
      const cube = Number(t.cube || 0);
      const goal = Number(printed("rugby", "spaces_to_goal")) || Math.max(2, Math.abs(cube));
      const cells = [];
      for (let k = -goal + 1; k <= goal - 1; k++) {
        cells.push(h("div", { class: "cell" + (k === 0 ? " mid" : ""), "data-space": k },
          k === cube ? h("div", { class: "st-cube", "data-cube-at": cube, title: "the Rugby cube" }) : (k === 0 ? "centre" : "")));
      }
      const end = (team, at) => h("div", { class: "end", "data-end": team.key, "data-space": at },
        emblem(team.ti, 26), team.name, h("span", { class: "sub" }, "their end"),
        Math.abs(cube) >= goal && Math.sign(cube) === Math.sign(at) ? h("div", { class: "st-cube", "data-cube-at": cube }) : null);
      // (positive: towards the first Team's end, which it reaches to win)
      return [row("Round", {}, String(t.round ?? "–")),
        h("div", { class: "st-pitch", "data-rugby": cube, "data-goal": goal }, end(teams.list[1], -goal), cells, end(teams.list[0], goal))];
    },
    pole_vault(v, b, t) {
      const rungs = printed("pole_vault", "rungs") || [t.rung];
      const now = rungs.indexOf(t.rung);
      const jumped = (ht) => (b.score || []).map((sc, i) => (sc === ht ? i : null)).filter((i) => i !== null);
      return [row("Bar", { "data-bar-at": t.rung }, h("b", {}, "at " + t.rung), t.lowest ? h("span", { class: "badge warn" }, "lowest rung") : null),
        ladder("rungs", rungs, now, (k) => k < now, (k) => h("div", {}, seats(v, jumped(rungs[k]), "data-jumped")))
        , row("Still in", {}, seats(v, t.vaulters, "data-vaulter"))];
    },
    equestrian(v, b, t) {
      const heights = printed("equestrian", "obstacles") || [t.height];
      const now = heights.length > 1 ? (t.obstacle || 1) - 1 : 0;
      return [row("Obstacle", { "data-bar-at": t.height }, h("b", {}, (t.obstacle ?? "–") + " of " + heights.length), "height " + t.height),
        ladder("obstacles", heights, now, (k) => k < now, () => null),
        row("Riding", {}, seats(v, t.riding, "data-rider"))];
    },
    golf(v, b, t, teams) {
      const holes = t.holes || {};
      return [t.golfer !== undefined ? row("Golfer", {}, seatChip(v, t.golfer), "rolled hole " + t.rolled) : null,
        Object.keys(holes).length === 0 ? null : h("div", { class: "st-holes" }, Object.entries(holes).map(([hole, flags]) => h("div", {
          class: "st-hole" + (Number(hole) === t.rolled ? " rolled" : ""), "data-hole": hole },
          "hole " + hole, h("div", { class: "flags" }, teams.list.filter((team) => flags[team.ti])
            .map((team) => h("span", { "data-flag": team.key, title: team.name }, emblem(team.ti, 18)))))))];
    },
    weightlifting(v, b, t) {
      return t.lifter === undefined ? [] : [row("Lifting", {}, seatChip(v, t.lifter, t.weight))];
    },
    archery(v, b, t) {
      const dice = Object.entries(t.dice || {});
      return t.archer === undefined ? [] : [row("Archer", {}, seatChip(v, t.archer)),
        row("Dice", { "data-archery-dice": "" }, dice.map(([c, val]) => h("span", { class: "st-die", "data-die": c },
          h("i", { style: "background:" + hex(DIE_INK[c]) }, String(val)))),
        h("b", {}, "= " + dice.reduce((sum, [, val]) => sum + Number(val), 0)))];
    },
    relay(v, b, t) { return [row("Leg", {}, String(t.leg ?? "–"), seats(v, t.runners, "data-runner"))]; },
    fencing(v, b, t, teams) {
      const lead = teams.list.find((team) => team.key === t.cube);
      return [row("Round", {}, String(t.round ?? "–")), row("Cube", { "data-fencing": t.cube }, lead ? teamTag(lead) : "level")];
    },
    taekwondo(v, b, t) {
      return [row("Round", {}, String(t.round ?? "–")), row("Standing", {}, (t.standing || []).map((i) =>
        seatChip(v, i, b.score ? b.score[i] : null, { "data-standing": i })))];
    },
    basketball(v, b, t, teams) {
      return [row("Round", {}, String(t.round ?? "–")),
        t.ball !== undefined ? row("Ball", { "data-ball": t.ball }, seatChip(v, t.ball)) : null,
        row("Points", {}, teams.list.map((team) => [teamTag(team),
          h("b", { "data-team-points": team.key }, String((t.points || [])[team.ti] ?? 0))]))];
    },
    team_gymnastics(v, b, t, teams) {
      return [row("Medal", {}, h("span", { class: "medal " + t.medal }, cap(t.medal || "").charAt(0)), cap(t.medal),
          t.last !== null && t.last !== undefined ? h("b", { "data-last-bid": t.last }, "last bid " + t.last) : "no bid yet"),
        t.bidder !== undefined ? row("To bid", {}, seatChip(v, t.bidder)) : null,
        row("Announced", {}, teams.list.map((team) => [teamTag(team),
          h("b", { "data-announced": team.key }, String((t.announced || [])[team.ti] ?? "–"))]))];
    },
    anti_doping(v, b, t) { return [row("Tested", {}, seats(v, t.tested, "data-tested"))]; },
  };
  STATES.hundred_meters = STATES.beach_volleyball = (v, b, t) =>
    (t.competitors ? [row("Competing", {}, seats(v, t.competitors, "data-competitor"))] : []);

  function trialState(v, b, t, teams) {
    // What is going on in the Trial: its own state, this Trial's wagers and dice, the scores.
    const parts = [...((STATES[t.key] || (() => []))(v, b, t, teams) || [])];
    const ev = trialEvents(v, t.key);
    const bids = [...ev].reverse().find((e) => e.kind === "stadium.wagers");
    if (bids && bids.data && bids.data.wagers) {
      const w = bids.data.wagers;
      parts.push(row("Wagers", { "data-wagers": "" }, Object.keys(w).map(Number).sort((a, c) => a - c)
        .map((i) => seatChip(v, i, w[i], { "data-wager": w[i] }))));
    }
    const rolls = ev.filter((e) => e.kind === "dice.rolled" && e.data).slice(-6);
    if (rolls.length) {
      parts.push(row("Dice rolled", { "data-rolls": rolls.length }, rolls.map((e) => h("span", {
        class: "st-die", "data-die": e.data.die, "data-roll": e.data.label },
        h("i", { style: "background:" + hex(DIE_INK[e.data.die]) }, String(e.data.label)),
        e.data.seat !== undefined ? seatLabel(v, e.data.seat) : ""))));
    }
    if (t.share_to !== undefined && t.share_left) {
      parts.push(row("Sharing", {}, seatChip(v, t.share_to), t.share_left + " Energy left to share"));
    }
    const scored = (b.score || []).map((sc, i) => (sc === null || sc === undefined ? null : i)).filter((i) => i !== null);
    if (scored.length) parts.push(row("Scores", { "data-scores": "" }, scored.map((i) => seatChip(v, i, b.score[i]))));
    return parts.filter(Boolean).length ? h("div", { class: "st-state", "data-trial-state": t.key }, parts) : null;
  }

  // ------------------------------------------------------------ the board

  function stadiumBoard(v, b) {
    const info = (trials && trials.trials) || {};
    const teams = teamsOf(v, b);
    sampleTiles = !b.components || !b.components.tiles || b.components.tiles === "sample";
    // The Trial in play: `trial` {key, name, talk, summary, ...its state} (older views: `stage` {trial, ...}).
    const t = { ...(b.trial || b.stage || {}) };
    t.key = t.key || t.trial;
    const track = h("div", { class: "trials", "data-board": "stadium" }, (b.track || []).map((key, i) => {
      const known = info[key];
      const revealed = i < b.revealed;
      return h("div", { class: "trial" + (revealed ? "" : " back") + (i === b.revealed - 1 && t.key ? " current" : ""), "data-trial": i },
        h("span", { class: "tn" }, revealed ? (known ? known.name : key) : key), h("span", {}, "#" + (i + 1)));
    }));
    const cur = t.key ? info[t.key] : null;
    const rules = t.key ? h("div", { class: "rules", "data-trial-rules": t.key },
      h("div", { class: "board-head" }, h("span", { class: "big" }, t.name || t.key), talkBadge(t.talk)),
      t.summary || (cur ? cur.rules : ""), trialState(v, b, t, teams)) : null;
    const medals = h("div", { class: "medals" }, teams.list.map((team) => {
      const raw = (b.medals || {})[team.key] || {};
      const m = Array.isArray(raw) ? { gold: raw[0], silver: raw[1], bronze: raw[2] } : raw;
      const icons = [];
      for (const kind of ["gold", "silver", "bronze"]) for (let k = 0; k < (m[kind] || 0); k++)
        icons.push(h("span", { class: "medal " + kind, title: kind + " Medal" }, kind[0].toUpperCase()));
      const mates = (v.seats || []).map((st) => st.seat).filter((i) => teams.of(i) === team.ti);
      return h("div", { class: "team", "data-team": team.key, "data-team-name": team.name, "data-shape": team.look.shape },
        h("div", { class: "st-flag", "data-pattern": team.look.pattern }, emblem(team.ti, 34)),
        h("div", { class: "tname" }, team.name, h("span", { class: "badge" }, ((b.points || [])[team.ti] ?? 0) + " points")),
        h("div", { class: "mates" }, mates.map((i) => seatLabel(v, i)).join(", ")),
        h("div", {}, icons.length ? icons : h("span", { class: "badge" }, "no Medals yet")));
    }));
    const energy = (b.energy || []).map((e, i) => {
      const team = teams.list[teams.of(i)];
      return h("div", { class: "fuel", "data-seat": i, "data-team": team.key },
        h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatLabel(v, i),
          i === b.first ? " ⚑" : ""),
        h("div", { class: "bar", title: team.name }, h("div", { "data-pattern": team.look.pattern, style: `width:${Math.min(100, e * 100 / 30)}%` })),
        h("b", {}, emblem(team.ti, 16), " " + e + "⚡" + (b.score && b.score[i] !== null && b.score[i] !== undefined
          ? " · score " + b.score[i] : "")));
    });
    return h("div", { class: "panel st-panel" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Stadium"),
        h("span", { class: "badge" }, "Trial " + (b.revealed || 0) + " of " + (b.track || []).length)),
      track, rules, medals, h("h2", {}, "Athletes' Energy (bar in the Team's pattern, ⚑ first player)"), energy);
  }

  (window.DialboxBoards = window.DialboxBoards || {}).stadium = stadiumBoard;
})();
