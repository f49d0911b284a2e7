// The one DOM helper of dialbox's pages (the table screen, its boards, the history page, the
// phone controller): h(tag, attrs, ...kids) makes an HTML element. Loaded before each page's
// own script, as a classic script, so it is window.dialboxDom for scripts and modules alike.
"use strict";

window.dialboxDom = Object.freeze({
  // attrs: class, style (CSS text), data-*, aria-* and role as attributes, a DOM property
  // where the element has one of that name (href, onclick, tabIndex...), any other name as
  // an attribute (datetime, colspan, for...); null, undefined and false are left out.
  // kids: nodes, strings, numbers and arrays of them to any depth; null, undefined and
  // false are left out.
  h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "style") el.style.cssText = v;
      else if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || !(k in el)) {
        el.setAttribute(k, String(v));
      } else el[k] = v;
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  },
});
