// The replay page: the table screen in replay mode (screen.py's /replay/<table>/<n>). It
// fetches the game's journaled states (/api/history/<table>/<n>: the TableView at the start
// and after every step) and draws one at a time with the live screen's own renderers.
"use strict";

(() => {
  const { h } = window.Dialbox;
  const { render } = window.DialboxScreen;
  const body = document.body;
  const table = body.dataset.table;
  const number = Number(body.dataset.number);
  const EVERY = 1200;     // ms per step while playing

  let frames = [];        // [{label, view}], the start first
  let at = 0;
  let timer = null;
  const state = { ready: false, at: 0, steps: 0, error: null };
  window.dialboxReplay = state;

  const counter = h("span", { id: "replay-step", role: "status", "aria-live": "polite" }, "loading…");
  const icon = (c) => h("span", { "aria-hidden": "true" }, c);
  const prev = h("button", { id: "replay-prev", type: "button", disabled: true }, icon("◀ "), "previous");
  const playing = h("span", {}, "play");
  const playIcon = icon("▶ ");
  const play = h("button", { id: "replay-play", type: "button", disabled: true }, playIcon, playing);
  const next = h("button", { id: "replay-next", type: "button", disabled: true }, "next", icon(" ▶"));
  const slider = h("input", { id: "replay-slider", type: "range", min: 0, max: 0, value: 0, "aria-label": "Step", disabled: true });
  const check = h("span", { id: "replay-check", class: "badge" }, "");
  const title = h("span", { id: "replay-title" }, "Game " + number + " of " + table);
  const bar = h("nav", { id: "replay-bar", "aria-label": "Replay controls" },
    h("a", { class: "badge", href: "/history" }, "← all games"), title, check,
    h("div", { class: "controls" }, prev, play, next), slider, counter);
  document.getElementById("top").after(bar);
  const link = document.getElementById("link");
  link.textContent = "replay";
  link.className = "badge warn";

  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    render(frames[at].view);
    const last = frames.length - 1;
    counter.textContent = at === 0 ? "Start (" + last + " steps)" : "Step " + at + " of " + last;
    bar.dataset.step = at;
    slider.value = at;
    prev.disabled = at === 0;
    next.disabled = at === last;
    if (at === last) stop();
    state.at = at;
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playIcon.textContent = "▶ ";
    playing.textContent = "play";
    bar.dataset.playing = "no";
  }

  function start() {
    if (at === frames.length - 1) show(0);
    timer = setInterval(() => show(at + 1), EVERY);
    playIcon.textContent = "❚❚ ";
    playing.textContent = "pause";
    bar.dataset.playing = "yes";
  }

  prev.addEventListener("click", () => { stop(); show(at - 1); });
  next.addEventListener("click", () => { stop(); show(at + 1); });
  play.addEventListener("click", () => (timer === null ? start() : stop()));
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  document.addEventListener("keydown", (e) => {
    // The slider steps by itself, and a focused button takes Space as a click.
    if (!state.ready || e.target instanceof HTMLInputElement) return;
    if (e.target instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter")) return;
    if (e.key === "ArrowLeft") { stop(); show(at - 1); }
    else if (e.key === "ArrowRight") { stop(); show(at + 1); }
    else if (e.key === " ") { e.preventDefault(); play.click(); }
  });

  async function load() {
    const url = "/api/history/" + encodeURIComponent(table) + "/" + number;
    try {
      const r = await fetch(url, { cache: "no-store" });
      const data = await r.json();
      if (!r.ok) throw new Error(data.error || r.statusText);
      frames = [{ view: data.start }, ...data.steps.map((s) => ({ view: s.view }))];
      title.textContent = data.title + " — game " + number + " of " + table;
      check.textContent = data.hash_ok ? "✓ every step reached its journaled state hash" : "unchecked (old journal)";
      check.className = "badge " + (data.hash_ok ? "ok" : "warn");
      slider.max = frames.length - 1;
      for (const el of [prev, play, next, slider]) el.disabled = false;
      state.steps = frames.length - 1;
      state.ready = true;
      show(0);
    } catch (e) {
      state.error = e.message;
      counter.textContent = "The replay cannot be shown: " + e.message;
      document.getElementById("notices").replaceChildren(
        h("div", { class: "notice error", "data-code": "replay" }, "The replay cannot be shown: " + e.message));
    }
  }

  load();
})();
