// hive serve's pages: they work without this script (every answer is a
// plain form); with it they follow the run live through server-sent
// events and show the chosen agent's output.
(function () {
  "use strict";
  var body = document.body;
  var main = document.getElementById("main");
  var pending = null;

  // busy: the human is typing an answer; the page is not replaced under them.
  function busy() {
    var a = document.activeElement;
    if (a && (a.tagName === "TEXTAREA" || a.tagName === "INPUT")) return true;
    var areas = main ? main.querySelectorAll("textarea") : [];
    for (var i = 0; i < areas.length; i++) if (areas[i].value) return true;
    return false;
  }

  function reload() {
    pending = null;
    if (busy()) { pending = setTimeout(reload, 1000); return; }
    fetch(location.pathname, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.getElementById("main");
        if (next && main) {
          var out = document.getElementById("output");
          var keep = out ? out.textContent : null;
          main.innerHTML = next.innerHTML;
          var o2 = document.getElementById("output");
          if (o2 && keep !== null && following) o2.textContent = keep;
          wire();
        }
      })
      .catch(function () {});
  }

  function schedule() { if (!pending) pending = setTimeout(reload, 150); }

  var run = body.getAttribute("data-run");
  if (window.EventSource) {
    var es = new EventSource("/api/events");
    var live = document.getElementById("live");
    es.onopen = function () { if (live) live.hidden = false; };
    es.onerror = function () { if (live) live.hidden = true; };
    es.addEventListener("run", function (e) {
      try { var d = JSON.parse(e.data); } catch (err) { return; }
      if (!run || d.key === run) schedule();
    });
    es.addEventListener("reset", schedule);
  }

  // The output of the agent chosen, refreshed while it is shown.
  var following = null, timer = null;
  function poll() {
    if (!following) return;
    fetch(following, { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (t) {
        var o = document.getElementById("output");
        if (!o) return;
        var end = o.scrollTop + o.clientHeight >= o.scrollHeight - 8;
        o.textContent = t;
        if (end) o.scrollTop = o.scrollHeight;
      })
      .catch(function () {});
  }
  function wire() {
    var links = document.querySelectorAll("a[data-output]");
    for (var i = 0; i < links.length; i++) {
      links[i].addEventListener("click", function (e) {
        e.preventDefault();
        following = this.getAttribute("href");
        var of = document.getElementById("output-of");
        if (of) of.textContent = this.getAttribute("data-output");
        poll();
        clearInterval(timer);
        timer = setInterval(poll, 1500);
      });
    }
  }
  wire();
})();
