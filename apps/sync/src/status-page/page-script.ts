/**
 * The status page's script: plain DOM, no framework. It reads the JSON API like any client,
 * sending the token from session storage as a Bearer header (asked for on the first 401), polls
 * `/v1/sync/status` every 5 s and follows `/v1/changes` by long-polling. Written without template
 * literals, since it lives in one.
 */
export const statusJs = `"use strict";
(function () {
  var TOKEN_KEY = "sds-sync-token";
  var REFRESH_MS = 5000;
  var languageNames = new Map();
  var feedAfter = null;
  var feedItems = [];
  var started = false;

  function byId(id) { return document.getElementById(id); }
  function element(name, text, className) {
    var node = document.createElement(name);
    if (text !== undefined) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  function svg(name, attributes) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", name);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, String(attributes[key])); });
    return node;
  }
  function time(iso) { return iso ? new Date(iso).toLocaleTimeString() : "–"; }
  function number(value) { return Number(value || 0).toLocaleString("en"); }

  function Unauthorized() {}
  function api(path) {
    var token = sessionStorage.getItem(TOKEN_KEY);
    var headers = token ? { authorization: "Bearer " + token } : {};
    return fetch(path, { headers: headers, cache: "no-store" }).then(function (response) {
      if (response.status === 401) throw new Unauthorized();
      return response.json().then(function (body) {
        if (!response.ok && response.status !== 410) throw new Error(path + " answered " + response.status + ": " + (body.error ? body.error.message : ""));
        return { status: response.status, body: body };
      });
    });
  }

  function askForToken(refused) {
    byId("status").hidden = true;
    byId("token-form").hidden = false;
    byId("forget").hidden = true;
    byId("summary").textContent = "Sign in to see the status.";
    byId("token-error").textContent = refused ? "That token was refused." : "";
    byId("token").focus();
  }

  function fillRows(tbody, rows) {
    tbody.replaceChildren.apply(tbody, rows.map(function (cells) {
      var row = element("tr");
      cells.forEach(function (cell) { row.appendChild(element("td", cell.text, cell.className)); });
      return row;
    }));
  }

  function renderLanguages(languages) {
    fillRows(byId("languages").querySelector("tbody"), languages.map(function (entry) {
      var name = languageNames.get(String(entry.languageId));
      return [
        { text: name ? name + " (" + entry.languageId + ")" : "Language " + entry.languageId },
        { text: number(entry.live), className: "number" },
        { text: number(entry.closed), className: "number" },
      ];
    }));
  }

  function barChart(title, runs, value, unit) {
    var width = 640, height = 110, top = 18, bottom = 20, left = 48;
    var max = Math.max.apply(null, runs.map(value).concat([1]));
    var chart = svg("svg", { class: "chart", width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img" });
    var label = svg("title");
    label.textContent = title + ", last " + runs.length + " cycles, oldest first; highest " + number(max) + unit;
    chart.appendChild(label);
    var heading = svg("text", { x: 0, y: 12 });
    heading.textContent = title + " (max " + number(max) + unit + ")";
    chart.appendChild(heading);
    chart.appendChild(svg("line", { x1: left, y1: height - bottom, x2: width, y2: height - bottom, stroke: "#595959" }));
    var slot = (width - left) / Math.max(runs.length, 20);
    runs.forEach(function (run, index) {
      var barHeight = ((height - top - bottom) * value(run)) / max;
      chart.appendChild(svg("rect", {
        x: left + index * slot + 2, y: height - bottom - barHeight, width: Math.max(slot - 4, 1), height: Math.max(barHeight, 1),
        fill: run.status === "failed" ? "#a40000" : "#0b5cad",
      }));
    });
    return chart;
  }

  function renderCycles(runs) {
    var oldestFirst = runs.slice().reverse();
    byId("cycles-charts").replaceChildren(
      barChart("Duration", oldestFirst, function (run) { return run.durationMs; }, " ms"),
      barChart("Upstream requests", oldestFirst, function (run) { return run.counts.upstreamRequests; }, ""),
      barChart("Changes", oldestFirst, function (run) { return run.counts.changes; }, ""),
    );
    fillRows(byId("cycles").querySelector("tbody"), runs.slice(0, 10).map(function (run) {
      return [
        { text: time(run.startedAt) },
        { text: run.status + (run.error ? ": " + run.error : ""), className: run.status },
        { text: number(run.durationMs), className: "number" },
        { text: number(run.counts.upstreamRequests), className: "number" },
        { text: number(run.counts.changes), className: "number" },
      ];
    }));
  }

  function renderClosures(closures) {
    var target = byId("closures");
    if (!closures || !closures.count) {
      target.textContent = "None held.";
      target.className = "";
      return;
    }
    target.className = "warning";
    target.textContent = number(closures.count) + " closures held by the mass-closure guard (absent for " + closures.absentCycles + " of " +
      closures.confirmCycles + " cycles" + (closures.confirmed ? ", " + number(closures.confirmed) + " confirmed" : "") + "). Surveys: " +
      closures.sample.join(", ") + (closures.count > closures.sample.length ? ", …" : "");
  }

  function renderQuarantine(items, total) {
    byId("quarantine-summary").textContent = total ? number(total) + " items in quarantine." : "Nothing in quarantine.";
    byId("quarantine").hidden = items.length === 0;
    fillRows(byId("quarantine").querySelector("tbody"), items.map(function (item) {
      return [
        { text: item.surveyId === null ? item.key : "survey " + item.surveyId },
        { text: item.source },
        { text: number(item.timesSeen), className: "number" },
        { text: time(item.lastSeenAt) },
      ];
    }));
  }

  function render(status) {
    var store = status.store;
    byId("summary").textContent = number(store.live) + " live and " + number(store.closed) + " closed surveys on " + store.kind +
      "; feed at sequence " + number(store.latestSequence) + "; this replica " + (status.replica.leader ? "leads" : "follows") +
      (status.replica.running ? " and is syncing now" : "") + ".";
    renderLanguages(status.languages || []);
    renderCycles(status.runs || []);
    renderClosures(status.closures);
    renderQuarantine(status.quarantine || [], store.quarantined);
  }

  function renderFeed(state) {
    byId("feed").replaceChildren.apply(byId("feed"), feedItems.map(function (change) {
      var item = element("li", change.type + " survey " + change.surveyId + " at " + time(change.occurredAt));
      item.value = change.sequence;
      return item;
    }));
    byId("feed-state").textContent = state;
  }

  function followFeed() {
    api("/v1/changes?limit=100&wait=25&after=" + feedAfter).then(function (reply) {
      if (reply.status === 410) {
        feedAfter = null;
        return api("/v1/sync/status").then(function (status) { feedAfter = status.body.store.latestSequence; renderFeed("Fell behind the feed's retention; following from now."); });
      }
      feedItems = reply.body.changes.slice().reverse().concat(feedItems).slice(0, 50);
      feedAfter = reply.body.next;
      renderFeed("Following the feed: at sequence " + number(feedAfter) + ", checked " + new Date().toLocaleTimeString() + ".");
      return undefined;
    }).then(followFeed, function (error) {
      if (error instanceof Unauthorized) return askForToken(true);
      renderFeed("The feed could not be read (" + error.message + "); retrying.");
      setTimeout(followFeed, REFRESH_MS);
      return undefined;
    });
  }

  function refresh() {
    return api("/v1/sync/status").then(function (reply) {
      byId("token-form").hidden = true;
      byId("status").hidden = false;
      byId("forget").hidden = !sessionStorage.getItem(TOKEN_KEY);
      render(reply.body);
      if (feedAfter === null) {
        feedAfter = Math.max(0, reply.body.store.latestSequence - 20);
        followFeed();
      }
      return true;
    });
  }

  function start() {
    if (started) return;
    started = true;
    api("/v1/collections").then(function (reply) {
      (reply.body.collections || []).forEach(function (collection) {
        if (collection.name !== "languages" || !collection.body) return;
        (collection.body.Languages || []).forEach(function (language) { languageNames.set(String(language.Id), language.Name); });
      });
    }).catch(function () { return undefined; }).then(function () {
      return refresh();
    }).then(function () {
      setInterval(function () { refresh().catch(function () { return undefined; }); }, REFRESH_MS);
    }, function (error) {
      started = false;
      if (error instanceof Unauthorized) return askForToken(sessionStorage.getItem(TOKEN_KEY) !== null);
      byId("summary").textContent = "The status could not be read: " + error.message;
      return undefined;
    });
  }

  byId("token-form").addEventListener("submit", function (event) {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, byId("token").value.trim());
    byId("token").value = "";
    start();
  });
  byId("forget").addEventListener("click", function () {
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });
  start();
})();
`;
