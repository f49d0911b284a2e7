// Blind Bid's board on the table screen: scores, face-down cards and the last cards turned.
(window.DialboxBoards = window.DialboxBoards || {}).blindbid = function (v, b) {
  const el = document.createElement("div");
  el.setAttribute("data-board", "blindbid");
  const hands = (b.hands || []).map((h) => (typeof h === "number" ? h : h.length));
  el.textContent = "Round " + b.round + " · scores " + (b.scores || []).join(" / ")
    + " · cards in hand " + hands.join(" / ")
    + " · on the table " + Object.entries(b.table || {}).map(([s, c]) => (Number(s) + 1) + ": " + c).join(", ");
  return el;
};
