// Trial of the Gods on the dialbox table screen (placeholder: being written).
"use strict";
(() => {
  const { h } = window.Dialbox;
  (window.DialboxBoards = window.DialboxBoards || {})["trial-of-the-gods"] =
    (v, b) => h("div", { class: "panel", "data-board": "trial-of-the-gods" }, "Trial of the Gods");
})();
