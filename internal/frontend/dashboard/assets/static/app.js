// agentlock dashboard: live updates and releases. No framework, no build
// step. Every text that comes from the lock files or the registry is
// rendered by the server (escaped by html/template) or set with
// textContent here: never parsed as HTML from JSON.
//
// Updates never replace the view: a "change" fetches the server's
// rendering and patches the page in place, element by element (rows are
// matched by their data-key), so that an open section stays open and
// focus and selection stay where they were. A "renew" (heartbeats only)
// moves the ages of the renewed locks without any fetch, and ages tick
// every second between changes.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const view = document.getElementById("view");
  const live = document.getElementById("live");
  const notice = document.getElementById("notice");
  const dialog = document.getElementById("confirm");
  const confirmText = document.getElementById("confirm-text");
  const filters = {
    text: document.getElementById("filter-text"),
    provider: document.getElementById("filter-provider"),
    state: document.getElementById("filter-state"),
  };
  // What the page did, for people debugging it and for the browser tests.
  const stats = (window.agentlockStats = { fetches: 0, patches: 0, renewals: 0, resyncs: 0 });
  let pending = null; // the lock a person asked to release
  let loading = false;
  let again = false;
  let skew = 0; // the browser's clock minus the server's

  // plain shows text from JSON with its control and bidirectional
  // characters escaped, as the server shows them.
  function plain(s) {
    return String(s).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
    });
  }

  function setLive(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  function say(text, kind) {
    notice.textContent = plain(text);
    notice.dataset.kind = kind;
    notice.hidden = false;
  }

  // human formats a duration as the server does (Go's, to 0.1 s under a
  // minute, to the second above).
  function human(ms) {
    if (ms < 0) ms = 0;
    if (ms < 60000) {
      const s = Math.round(ms / 100) / 10;
      return (s === 0 ? "0" : String(s)) + "s";
    }
    let s = Math.round(ms / 1000);
    const h = Math.floor(s / 3600);
    s -= h * 3600;
    const m = Math.floor(s / 60);
    s -= m * 60;
    return (h ? h + "h" + m + "m" : m + "m") + s + "s";
  }

  function readClock() {
    const counts = view.querySelector("section.counts");
    if (counts && counts.dataset.now) skew = Date.now() - Number(counts.dataset.now);
  }

  function timeout() {
    const counts = view.querySelector("section.counts");
    return counts ? Number(counts.dataset.timeout) : 0;
  }

  // tick writes every age and time left from the stamps the page holds.
  function tick() {
    const now = Date.now() - skew;
    const limit = timeout();
    view.querySelectorAll("[data-age]").forEach(function (el) {
      const text = human(now - Number(el.dataset.age));
      if (el.textContent !== text) el.textContent = text;
    });
    view.querySelectorAll("[data-left]").forEach(function (el) {
      const text = human(limit - (now - Number(el.dataset.left)));
      if (el.textContent !== text) el.textContent = text;
    });
  }

  function key(node) {
    return node.nodeType === 1 ? node.getAttribute("data-key") : null;
  }

  // patch makes the live element `from` look like `to` (same tag),
  // keeping every element that is still there.
  function patch(from, to) {
    for (const a of Array.from(from.attributes)) {
      // An open <details> stays as the person left it.
      if (a.name === "open" && from.tagName === "DETAILS") continue;
      if (!to.hasAttribute(a.name)) from.removeAttribute(a.name);
    }
    for (const a of Array.from(to.attributes)) {
      if (a.name === "open" && from.tagName === "DETAILS") continue;
      if (from.getAttribute(a.name) !== a.value) from.setAttribute(a.name, a.value);
    }
    const keyed = new Map();
    for (const c of Array.from(from.childNodes)) {
      const k = key(c);
      if (k !== null) keyed.set(k, c);
    }
    let cursor = from.firstChild;
    for (const want of Array.from(to.childNodes)) {
      const k = key(want);
      let have = null;
      if (k !== null) {
        have = keyed.get(k) || null;
        keyed.delete(k);
      } else if (cursor && key(cursor) === null && cursor.nodeType === want.nodeType && cursor.nodeName === want.nodeName) {
        have = cursor;
      }
      if (have) {
        if (have !== cursor) from.insertBefore(have, cursor);
        else cursor = cursor.nextSibling;
        if (have.nodeType === 1) patch(have, want);
        else if (have.nodeValue !== want.nodeValue) have.nodeValue = want.nodeValue;
      } else {
        from.insertBefore(document.importNode(want, true), cursor);
      }
    }
    // What the new rendering does not have goes.
    while (cursor) {
      const next = cursor.nextSibling;
      if (key(cursor) === null || keyed.has(key(cursor))) from.removeChild(cursor);
      cursor = next;
    }
    keyed.forEach(function (c) {
      if (c.parentNode === from) from.removeChild(c);
    });
  }

  // refresh patches the view with the server's rendering; changes that
  // arrive meanwhile are coalesced into one more refresh.
  function refresh() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    stats.fetches++;
    fetch("view", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (!r.ok) throw new Error("the view answered " + r.status);
        return r.text();
      })
      .then(function (html) {
        const next = document.createElement("template");
        next.innerHTML = html; // rendered and escaped by html/template; inert
        const wrapper = document.createElement("main");
        wrapper.appendChild(next.content);
        for (const a of Array.from(view.attributes)) wrapper.setAttribute(a.name, a.value);
        patch(view, wrapper);
        stats.patches++;
        readClock();
        tick();
        applyFilters();
        fillProviders();
      })
      .catch(function (err) {
        setLive("error", "update failed: " + err.message);
      })
      .finally(function () {
        loading = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  }

  // renew moves the stamps of renewed locks: no fetch, no redraw.
  function renew(e) {
    let data;
    try {
      data = JSON.parse(e.data);
    } catch (err) {
      refresh();
      return;
    }
    stats.renewals++;
    for (const l of data.locks || []) {
      view.querySelectorAll("[data-ref]").forEach(function (el) {
        if (el.dataset.ref !== l.file) return;
        if (el.hasAttribute("data-age")) el.dataset.age = String(l.renewed);
        if (el.hasAttribute("data-left")) el.dataset.left = String(l.renewed);
      });
    }
    tick();
  }

  // Filters: by session or path (text), provider and state. Rows carry
  // what they are filtered on; the server's rendering is not changed.
  function applyFilters() {
    if (!filters.text) return;
    const text = filters.text.value.trim().toLowerCase();
    const provider = filters.provider.value;
    const state = filters.state.value;
    view.querySelectorAll("tr[data-key], ol.events li[data-session]").forEach(function (row) {
      let show = true;
      if (text) {
        const hay = ((row.dataset.session || "") + " " + (row.dataset.path || "") + " " + row.textContent).toLowerCase();
        show = hay.includes(text);
      }
      if (show && provider && row.dataset.provider !== undefined) show = row.dataset.provider === provider;
      if (show && state && row.dataset.state !== undefined) show = row.dataset.state.split(" ").includes(state);
      row.hidden = !show;
    });
  }

  function fillProviders() {
    if (!filters.provider) return;
    const have = new Set(Array.from(filters.provider.options).map(function (o) { return o.value; }));
    view.querySelectorAll("tr[data-provider]").forEach(function (row) {
      const p = row.dataset.provider;
      if (p && !have.has(p)) {
        have.add(p);
        const o = document.createElement("option");
        o.value = p;
        o.textContent = p;
        filters.provider.appendChild(o);
      }
    });
  }

  const form = document.querySelector("form.filters");
  if (form) form.addEventListener("submit", function (e) { e.preventDefault(); });
  for (const name of ["text", "provider", "state"]) {
    if (filters[name]) filters[name].addEventListener("input", applyFilters);
  }

  const events = new EventSource("api/events");
  events.onopen = function () {
    setLive("live", "live");
    refresh(); // what changed while disconnected
  };
  events.onerror = function () {
    setLive("error", "disconnected, retrying…");
  };
  events.addEventListener("change", refresh);
  events.addEventListener("renew", renew);
  events.addEventListener("resync", function () {
    stats.resyncs++;
    refresh();
  });

  view.addEventListener("click", function (e) {
    const button = e.target.closest("button.release");
    if (!button) return;
    pending = {
      path: button.dataset.path,
      session_id: button.dataset.owner,
      stamp: button.dataset.stamp,
    };
    confirmText.textContent = "Release the lock on " + plain(button.dataset.shown) + ", held by " + plain(button.dataset.owner) + "?";
    dialog.showModal();
  });

  dialog.addEventListener("close", function () {
    const req = pending;
    pending = null;
    if (dialog.returnValue !== "release" || !req) return;
    fetch("api/release", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(req),
    })
      .then(function (r) {
        return r.json().then(function (body) {
          if (r.ok) {
            say("Released " + body.path + " (" + body.note + ").", "ok");
          } else {
            say(body.error || "release refused (" + r.status + ")", "error");
          }
        });
      })
      .catch(function (err) {
        say("release failed: " + err.message, "error");
      })
      .finally(refresh);
  });

  readClock();
  fillProviders();
  setInterval(tick, 1000);
})();
