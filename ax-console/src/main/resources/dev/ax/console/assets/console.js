// Times are rendered by the server in the zone this script reports in the ax_tz cookie (the browser's own zone); a
// page rendered before the cookie was set shows the server's zone, and says which, and the next page is right.
(function () {
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var current = document.cookie.split("; ").filter(function (c) { return c.indexOf("ax_tz=") === 0; })[0];
    if (zone && current !== "ax_tz=" + encodeURIComponent(zone)) {
      document.cookie = "ax_tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax"
        + (location.protocol === "https:" ? "; secure" : "");
    }
  } catch (e) { /* no Intl: the server's zone, which every page names */ }
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
    document.body.addEventListener("htmx:sseBeforeMessage", before);
    document.body.addEventListener("htmx:sseMessage", after);
  }
})();
