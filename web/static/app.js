// stick's page: filter the rooms as one types, and append a room's new
// events as they happen. The page reads fine without this script.
(function () {
  "use strict";

  var filter = document.querySelector("input[data-filter=rooms]");
  var table = document.getElementById("rooms");
  if (filter && table) {
    var count = document.getElementById("rooms-count");
    var rows = table.querySelectorAll("tbody tr");
    var apply = function () {
      var q = filter.value.trim().toLowerCase();
      var shown = 0;
      rows.forEach(function (row) {
        var hit = q === "" || (row.getAttribute("data-search") || "").indexOf(q) >= 0;
        row.hidden = !hit;
        if (hit) { shown++; }
      });
      if (count) { count.textContent = shown + " of " + rows.length + " rooms shown"; }
    };
    filter.addEventListener("input", apply);
  }

  var feed = document.getElementById("feed");
  var live = feed && feed.getAttribute("data-live");
  if (live && window.EventSource) {
    var status = document.getElementById("live-status");
    var source = new EventSource(live);
    var say = function (text) { if (status) { status.textContent = text; } };
    source.addEventListener("open", function () { say("Live: new events appear here as they happen."); });
    source.addEventListener("error", function () { say("Reconnecting…"); });
    source.addEventListener("stick", function (msg) {
      if (document.getElementById("e" + msg.lastEventId)) { return; }
      var nearEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
      var tpl = document.createElement("template");
      tpl.innerHTML = msg.data;
      feed.appendChild(tpl.content);
      if (nearEnd) { window.scrollTo(0, document.body.scrollHeight); }
    });
    source.addEventListener("closed", function () {
      source.close();
      say("The room was closed. Reload the page to read its conclusion.");
    });
  }

  // The document's edit form: Ctrl+Enter (Cmd+Enter) saves.
  var docText = document.getElementById("doc-content");
  if (docText && docText.form) {
    document.querySelectorAll(".doc-edit .js-only").forEach(function (el) { el.hidden = false; });
    docText.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
        ev.preventDefault();
        if (docText.form.requestSubmit) { docText.form.requestSubmit(); } else { docText.form.submit(); }
      }
    });
  }
})();
