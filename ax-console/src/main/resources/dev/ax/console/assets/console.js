// Times arrive as <time datetime="ISO">… UTC</time>: show them in the viewer's zone, UTC on hover.
(function () {
  var pad = function (n) { return (n < 10 ? "0" : "") + n; };
  var zone = (function () {
    try {
      var part = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" }).formatToParts(new Date())
        .find(function (p) { return p.type === "timeZoneName"; });
      return part ? " " + part.value : "";
    } catch (e) { return ""; }
  })();
  function localize(root) {
    var times = (root || document).querySelectorAll("time[datetime]:not([data-local])");
    for (var i = 0; i < times.length; i++) {
      var t = times[i];
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) { continue; }
      t.title = t.textContent;
      t.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " "
        + pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) + zone;
      t.setAttribute("data-local", "");
    }
  }
  // Keep a followed log scrolled to its end, unless the reader scrolled up to read.
  var atEnd = true;
  function before(evt) {
    var log = evt.target;
    if (log && log.id === "log") { atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40; }
  }
  function after(evt) {
    var log = evt.target;
    if (log && log.id === "log" && atEnd) { log.scrollTop = log.scrollHeight; }
  }
  if (window.htmx) {
    htmx.onLoad(localize);
    document.body.addEventListener("htmx:sseBeforeMessage", before);
    document.body.addEventListener("htmx:sseMessage", after);
  } else {
    document.addEventListener("DOMContentLoaded", function () { localize(document); });
  }
})();
