// stick's page: filter the rooms as one types; keep the list of rooms,
// a room's roster and its feed live (fragments the hub sends over
// Server-Sent Events, swapped in without moving the reader's focus); and
// count leases down. The page reads fine without this script.
(function () {
  "use strict";

  // swap replaces the content of box with the fragment html, unless its
  // signature (data-sig of its first element) is the one shown already.
  // The element that has the focus inside box gets it back, found again
  // by its link or id, so a reader moving through the list keeps its
  // place.
  var swap = function (box, html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var next = tpl.content.firstElementChild;
    var now = box.firstElementChild;
    if (!next || (now && now.getAttribute("data-sig") === next.getAttribute("data-sig"))) { return false; }
    var active = document.activeElement;
    var key = null;
    if (active && box.contains(active)) {
      key = active.getAttribute("href") ? "[href=\"" + CSS.escape(active.getAttribute("href")) + "\"]" :
        (active.id ? "#" + CSS.escape(active.id) : null);
    }
    box.replaceChildren(tpl.content);
    if (key) {
      var again = box.querySelector(key);
      if (again) { again.focus({ preventScroll: true }); }
    }
    tick();
    return true;
  };

  // news says a short change in the live region el (role=status), for
  // screen readers: the roster and the list are swapped whole at every
  // change, and read again whole they would drown what changed.
  var news = function (el, text) {
    if (!el || !text) { return; }
    el.textContent = "";
    window.setTimeout(function () { el.textContent = text; }, 50);
  };

  // rowsOf maps each room of the list (its link) to what a reader
  // follows of it: its state, holder and next.
  var rowsOf = function (box) {
    var rows = {};
    box.querySelectorAll("tbody tr").forEach(function (row) {
      var link = row.querySelector("th a");
      var cells = row.querySelectorAll("td");
      if (!link || cells.length < 3) { return; }
      rows[link.getAttribute("href")] = [cells[0].textContent, cells[1].textContent, cells[2].textContent].join("|");
    });
    return rows;
  };

  // The list of rooms: the filter, and its live stream.
  var filter = document.querySelector("input[data-filter=rooms]");
  var roomsBox = document.getElementById("rooms-live");
  var apply = function () {
    var table = document.getElementById("rooms");
    if (!filter || !table) { return; }
    var count = document.getElementById("rooms-count");
    var rows = table.querySelectorAll("tbody tr");
    var q = filter.value.trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (row) {
      var hit = q === "" || (row.getAttribute("data-search") || "").indexOf(q) >= 0;
      row.hidden = !hit;
      if (hit) { shown++; }
    });
    if (count) { count.textContent = shown + " of " + (count.getAttribute("data-total") || rows.length) + " rooms shown"; }
  };
  if (filter) { filter.addEventListener("input", apply); }
  var roomsLive = roomsBox && roomsBox.getAttribute("data-live");
  if (roomsLive && window.EventSource) {
    var roomsStatus = document.getElementById("rooms-status");
    var rooms = new EventSource(roomsLive);
    var roomsNews = document.getElementById("rooms-news");
    rooms.addEventListener("rooms", function (msg) {
      var before = rowsOf(roomsBox);
      if (!swap(roomsBox, msg.data)) { return; }
      apply();
      var after = rowsOf(roomsBox);
      var changed = 0;
      Object.keys(after).forEach(function (k) { if (before[k] !== after[k]) { changed++; } });
      if (changed > 0) { news(roomsNews, changed === 1 ? "1 room changed" : changed + " rooms changed"); }
    });
    rooms.addEventListener("signedout", function (msg) {
      rooms.close();
      if (roomsStatus) { roomsStatus.textContent = msg.data + " The list no longer changes by itself."; }
    });
    rooms.addEventListener("error", function () {
      if (rooms.readyState === EventSource.CLOSED && roomsStatus) {
        roomsStatus.textContent = "The hub refused the live list: sign in again, then reload the page.";
      }
    });
  }

  // A room: its feed and its roster, over one stream.
  var feed = document.getElementById("feed");
  var rosterBox = document.getElementById("roster");
  var live = feed && feed.getAttribute("data-live");
  if (live && window.EventSource) {
    var status = document.getElementById("live-status");
    var source = new EventSource(live);
    var say = function (text) { if (status) { status.textContent = text; } };
    source.addEventListener("open", function () { say("Live: new events appear here as they happen."); });
    // An error while the stream is down makes EventSource reconnect by
    // itself; a refused reconnection (401: the credential failed) closes
    // it for good.
    source.addEventListener("error", function () {
      say(source.readyState === EventSource.CLOSED ?
        "The hub refused the live feed: sign in again, then reload the page." : "Reconnecting…");
    });
    // The reader's credential no longer stands: the hub ended the
    // stream, and reconnecting would only be refused.
    source.addEventListener("signedout", function (msg) {
      source.close();
      say(msg.data);
    });
    source.addEventListener("stick", function (msg) {
      if (document.getElementById("e" + msg.lastEventId)) { return; }
      var nearEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
      var tpl = document.createElement("template");
      tpl.innerHTML = msg.data;
      var item = tpl.content.firstElementChild;
      feed.appendChild(tpl.content);
      if (item) { answered(item); }
      if (nearEnd) { window.scrollTo(0, document.body.scrollHeight); }
    });
    var rosterNews = document.getElementById("roster-news");
    var holderOf = function () {
      var body = rosterBox && rosterBox.firstElementChild;
      return body ? body.getAttribute("data-holder") || "" : "";
    };
    source.addEventListener("roster", function (msg) {
      if (!rosterBox) { return; }
      var before = holderOf();
      if (!swap(rosterBox, msg.data)) { return; }
      var now = holderOf();
      if (now !== before) { news(rosterNews, now ? now + " now holds the stick" : "Nobody holds the stick now"); }
    });
    source.addEventListener("closed", function () {
      source.close();
      say("The room was closed. Reload the page to read its conclusion.");
    });
  }

  // answered marks the question a new answer answers, when the page
  // shows it: answered, by the new answer.
  var answered = function (item) {
    var q = item.getAttribute("data-answers");
    var question = q && document.getElementById("e" + q);
    var line = question && question.querySelector(".qa-status");
    if (!line) { return; }
    var open = line.querySelector(".badge-open");
    var link = document.createElement("a");
    link.href = "#" + item.id;
    link.textContent = "#" + item.getAttribute("data-seq");
    if (open) {
      var badge = document.createElement("span");
      badge.className = "badge badge-answered";
      badge.textContent = "answered";
      var by = document.createElement("span");
      by.className = "muted";
      by.textContent = " by ";
      var rest = line.querySelector(".answer-link");
      line.replaceChildren(badge, by, link);
      if (rest) { line.append(" ", rest); }
      return;
    }
    var answers = line.querySelectorAll("a[href^=\"#e\"]");
    var lastAnswer = answers[answers.length - 1];
    if (lastAnswer) { lastAnswer.after(", ", link); }
  };

  // Count the roster's deadlines down, every second.
  var pad = function (n) { return n < 10 ? "0" + n : "" + n; };
  var left = function (ms) {
    var s = Math.floor(ms / 1000);
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    if (h > 0) { return h + "h" + pad(m) + "m"; }
    if (m > 0) { return m + "m" + pad(s % 60) + "s"; }
    return (s % 60) + "s";
  };
  var tick = function () {
    document.querySelectorAll(".countdown[data-until]").forEach(function (el) {
      var until = Date.parse(el.getAttribute("data-until"));
      if (isNaN(until)) { return; }
      var ms = until - Date.now();
      el.textContent = ms > 0 ? " · " + left(ms) + " left" : " · ran out";
    });
  };
  tick();
  if (rosterBox) { window.setInterval(tick, 1000); }

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
