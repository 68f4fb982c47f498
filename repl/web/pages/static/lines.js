// Highlights the lines a fragment names: #L12 (CSS :target does that
// alone) and #L12-L14, a range. The page works without it.
(function () {
  "use strict";
  function mark() {
    var old = document.querySelectorAll(".srcline.target");
    for (var i = 0; i < old.length; i++) old[i].classList.remove("target");
    var m = /^#L(\d+)(?:-L?(\d+))?$/.exec(location.hash);
    if (!m) return;
    var from = parseInt(m[1], 10), to = m[2] ? parseInt(m[2], 10) : from;
    if (to < from || to - from > 10000) return;
    var first = null;
    for (var n = from; n <= to; n++) {
      var el = document.getElementById("L" + n);
      if (!el) continue;
      el.classList.add("target");
      if (!first) first = el;
    }
    if (first && m[2]) first.scrollIntoView();
  }
  window.addEventListener("hashchange", mark);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
