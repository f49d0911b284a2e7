// The test-only game's board: one row per seat with its score, and a word from tiny.json.
"use strict";
(() => {
  const { h, hex, seatOf, seatName, style, redraw } = window.Dialbox;
  let words = null;
  const here = (document.currentScript && document.currentScript.src) || location.href;
  fetch(new URL("tiny.json", here)).then((r) => r.json())
    .then((j) => { words = j; redraw(); }).catch(() => {});
  style("tinyboard", ".tiny-row { font-size: 20px; }");

  (window.DialboxBoards = window.DialboxBoards || {}).tinyboard = (v, b) =>
    h("div", { class: "panel", "data-board": "tinyboard" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Tiny Board"),
        h("span", { class: "badge", "data-word": words ? words.word : "" }, words ? words.word : "…"),
        h("span", { class: "badge" }, "round " + b.round)),
      (b.scores || []).map((sc, i) => h("div", { class: "tiny-row", "data-seat": i },
        h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ",
        seatName(v, i) + ": " + sc)));
})();
