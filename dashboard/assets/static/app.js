// agentlock dashboard: live updates and releases. No framework, no build
// step. Every text that comes from the lock files or the registry is
// rendered by the server (escaped by html/template) or set with
// textContent here: never parsed as HTML from JSON.
"use strict";

(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const view = document.getElementById("view");
  const live = document.getElementById("live");
  const notice = document.getElementById("notice");
  const dialog = document.getElementById("confirm");
  const confirmText = document.getElementById("confirm-text");
  let pending = null; // the lock a person asked to release
  let loading = false;
  let again = false;

  function setLive(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }

  function say(text, kind) {
    notice.textContent = text;
    notice.dataset.kind = kind;
    notice.hidden = false;
  }

  // refresh replaces the view with the server's rendering; changes that
  // arrive meanwhile are coalesced into one more refresh.
  function refresh() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    fetch("view", { credentials: "same-origin", cache: "no-store" })
      .then(function (r) {
        if (!r.ok) throw new Error("the view answered " + r.status);
        return r.text();
      })
      .then(function (html) {
        view.innerHTML = html; // rendered and escaped by html/template
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

  const events = new EventSource("api/events");
  events.onopen = function () {
    setLive("live", "live");
    refresh(); // what changed while disconnected
  };
  events.onerror = function () {
    setLive("error", "disconnected, retrying…");
  };
  events.addEventListener("change", refresh);

  view.addEventListener("click", function (e) {
    const button = e.target.closest("button.release");
    if (!button) return;
    pending = {
      path: button.dataset.path,
      session_id: button.dataset.owner,
      stamp: button.dataset.stamp,
    };
    confirmText.textContent = "Release the lock on " + button.dataset.shown + ", held by " + button.dataset.owner + "?";
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
})();
