/* The Studio's page script: pan and zoom of the drawing, the step panel, live step states
   and the operator's buttons. Its data comes from the page's JSON block (#studio-data);
   it never writes HTML from data (text only), and calls the API with the session cookie
   and the CSRF header. Without it the page still shows the drawing. */
(function () {
  "use strict";

  var block = document.getElementById("studio-data");
  if (!block) { return; }
  var data = JSON.parse(block.textContent);
  var svg = document.getElementById("drawing-svg");
  var panel = document.getElementById("panel");
  var panelBody = document.getElementById("panel-body");
  var selected = null;

  /* --- small DOM helpers ------------------------------------------------------------- */

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, attributes[name]);
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function text(value) {
    return value === null || value === undefined || value === "" ? "—" : String(value);
  }

  function facts(rows) {
    var list = el("dl");
    rows.forEach(function (row) {
      list.appendChild(el("dt", {}, [row[0]]));
      list.appendChild(el("dd", {}, [text(row[1])]));
    });
    return list;
  }

  function seconds(start, end) {
    if (!start || !end) { return null; }
    return ((Date.parse(end) - Date.parse(start)) / 1000).toFixed(3) + " s";
  }

  function stepGroups() {
    return svg ? svg.querySelectorAll("g.node[data-step-id]") : [];
  }

  function stepGroup(stepId) {
    var found = null;
    stepGroups().forEach(function (group) {
      if (group.getAttribute("data-step-id") === stepId) { found = group; }
    });
    return found;
  }

  /* --- pan and zoom (svg-pan-zoom) --------------------------------------------------- */

  var zoom = null;
  if (svg && typeof window.svgPanZoom === "function") {
    zoom = window.svgPanZoom(svg, {
      zoomEnabled: true, panEnabled: true, controlIconsEnabled: false,
      dblClickZoomEnabled: false, mouseWheelZoomEnabled: true,
      zoomScaleSensitivity: 0.25, minZoom: 0.05, maxZoom: 40, fit: true, center: true
    });
    window.studioZoom = zoom;  /* for tests and the console */
  }

  function zoomAction(name) {
    if (!zoom) { return; }
    if (name === "in") { zoom.zoomIn(); }
    else if (name === "out") { zoom.zoomOut(); }
    else if (name === "fit") { zoom.resize(); zoom.fit(); zoom.center(); }
    else if (name === "reset") { zoom.reset(); }
  }

  document.querySelectorAll("[data-zoom]").forEach(function (button) {
    button.addEventListener("click", function () { zoomAction(button.getAttribute("data-zoom")); });
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) { return; }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "+" || event.key === "=") { zoomAction("in"); event.preventDefault(); }
    else if (event.key === "-" || event.key === "_") { zoomAction("out"); event.preventDefault(); }
    else if (event.key === "Escape") { closePanel(); }
  });

  /* --- the panel ---------------------------------------------------------------------- */

  function closePanel() {
    if (panel) { panel.hidden = true; }
    if (selected) { selected.classList.remove("selected"); }
    selected = null;
  }

  function openPanel(stepId) {
    if (!panel) { return; }
    var group = stepGroup(stepId);
    if (selected && selected !== group) { selected.classList.remove("selected"); }
    selected = group;
    if (group) { group.classList.add("selected"); }
    panel.hidden = false;
    panel.setAttribute("data-step-id", stepId);
    fillPanel(stepId);
  }

  function fillPanel(stepId) {
    panelBody.textContent = "";
    var content = data.page === "run" ? runStepContent(stepId) : definitionStepContent(stepId);
    content.forEach(function (node) { panelBody.appendChild(node); });
  }

  /* A step drawn inside an opened sub-workflow (id "contract/sign") belongs to the child
     run drawn there (data.childRuns: id prefix -> run id); the longest prefix wins. */
  function ownerOf(stepId) {
    var best = "";
    Object.keys(data.childRuns || {}).forEach(function (prefix) {
      if (stepId.indexOf(prefix) === 0 && prefix.length > best.length) { best = prefix; }
    });
    var record = best ? (data.childRecords || {})[data.childRuns[best]] : data.record;
    return { record: record, stepId: stepId.slice(best.length), runId: best ? data.childRuns[best] : data.runId };
  }

  function runStepContent(stepId) {
    var owner = ownerOf(stepId);
    var step = owner.record && (owner.record.steps || []).filter(function (s) {
      return s.stepId === owner.stepId;
    })[0];
    if (!step) { return [el("p", {}, ["No such step in this run."])]; }
    var rows = owner.runId === data.runId ? [] : [["child run", owner.runId]];
    var nodes = [el("h2", {}, [stepId]), facts(rows.concat([
      ["kind", step.kind], ["state", step.state], ["iteration", step.iteration],
      ["attempt", step.attempt], ["waiting for", step.waitingFor],
      ["started", step.startedAt], ["finished", step.finishedAt],
      ["took", seconds(step.startedAt, step.finishedAt)]
    ]))];
    var decision = decisionButtons(step, owner.record);
    if (decision) { nodes.push(decision); }
    nodes.push(el("h3", {}, ["Attempts (" + step.attempts.length + ")"]));
    if (step.attempts.length) {
      var rows = step.attempts.map(function (a, index) {
        return el("tr", { "class": "attempt" }, [
          el("td", {}, [String(index + 1)]), el("td", {}, [text(a.attemptId)]),
          el("td", {}, [text(a.outcome)]), el("td", {}, [text(seconds(a.startedAt, a.endedAt))]),
          el("td", {}, [text(a.error)])
        ]);
      });
      nodes.push(el("table", { "class": "attempts" }, [
        el("thead", {}, [el("tr", {}, ["#", "attempt", "outcome", "took", "error"].map(
          function (h) { return el("th", {}, [h]); }))]),
        el("tbody", {}, rows)
      ]));
    } else {
      nodes.push(el("p", {}, ["No attempt yet."]));
    }
    if (step.error) {
      nodes.push(el("h3", {}, ["Error"]), el("pre", { "class": "problem" }, [step.error]));
    }
    if (step.output !== null && step.output !== undefined) {
      nodes.push(el("h3", {}, ["Output"]), el("pre", { "class": "output" },
                                              [JSON.stringify(step.output, null, 2)]));
    }
    return nodes;
  }

  function definitionStepContent(stepId) {
    var fields = (data.steps || {})[stepId];
    if (!fields) { return [el("p", {}, ["No such step."])]; }
    var nodes = [el("h2", {}, [stepId])];
    var mark = (data.marks || {})[stepId];
    if (mark) { nodes.push(el("p", { "class": "mark " + mark }, [mark.replace("diff-", "")])); }
    nodes.push(facts(Object.keys(fields).filter(function (k) { return k !== "id"; }).map(
      function (k) { return [k, typeof fields[k] === "object" ? JSON.stringify(fields[k]) : fields[k]]; })));
    var changed = (data.changes || {})[stepId];
    if (changed) {
      nodes.push(el("h3", {}, ["Changed fields"]), el("table", { "class": "changes" }, [
        el("thead", {}, [el("tr", {}, ["field", "before", "after"].map(
          function (h) { return el("th", {}, [h]); }))]),
        el("tbody", {}, Object.keys(changed).map(function (name) {
          return el("tr", {}, [el("td", {}, [name]),
                               el("td", {}, [text(JSON.stringify(changed[name][0]))]),
                               el("td", {}, [text(JSON.stringify(changed[name][1]))])]);
        }))
      ]));
    }
    return nodes;
  }

  function openTask(stepId, record) {
    return (record.tasks || []).filter(function (t) {
      return t.stepId === stepId && t.status === "open";
    })[0];
  }

  function decisionButtons(step, record) {
    if (!data.canOperate || step.kind !== "Human" || step.state !== "Waiting") { return null; }
    var task = openTask(step.stepId, record);
    if (!task) { return null; }
    var box = el("div", { "class": "decide" });
    ["approve", "reject"].forEach(function (decision) {
      var button = el("button", { type: "button", "data-decision": decision },
                      [decision === "approve" ? "Approve" : "Reject"]);
      button.addEventListener("click", function () {
        box.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
        post("/tasks/" + encodeURIComponent(task.taskId) + "/complete", { decision: decision })
          .then(refresh, showProblem);
      });
      box.appendChild(button);
    });
    return box;
  }

  function showProblem(error) {
    if (!panel || panel.hidden) {
      var line = document.getElementById("problem");
      if (line) { line.textContent = String(error.message || error); line.hidden = false; }
      return;
    }
    panelBody.insertBefore(el("p", { "class": "problem", role: "alert" },
                              [String(error.message || error)]), panelBody.firstChild);
  }

  if (svg) {
    var down = null;
    svg.addEventListener("pointerdown", function (event) { down = [event.clientX, event.clientY]; });
    svg.addEventListener("click", function (event) {
      var moved = down && Math.abs(event.clientX - down[0]) + Math.abs(event.clientY - down[1]) > 5;
      var group = event.target.closest ? event.target.closest("g.node[data-step-id]") : null;
      if (group && !moved) { openPanel(group.getAttribute("data-step-id")); }
    });
    svg.addEventListener("keydown", function (event) {
      var group = event.target.closest ? event.target.closest("g.node[data-step-id]") : null;
      if (group && (event.key === "Enter" || event.key === " ")) {
        event.preventDefault();
        openPanel(group.getAttribute("data-step-id"));
      }
    });
  }
  document.querySelectorAll("[data-close]").forEach(function (button) {
    button.addEventListener("click", closePanel);
  });

  /* --- the API ------------------------------------------------------------------------- */

  function runPath(runId) {
    return "/instances/" + (runId || data.runId).split("/").map(encodeURIComponent).join("/");
  }

  function answer(response) {
    if (response.ok) { return response.json(); }
    return response.json().then(function (body) {
      throw new Error(body.error || ("HTTP " + response.status));
    }, function () { throw new Error("HTTP " + response.status); });
  }

  function get(path) {
    return fetch(data.api + path, { credentials: "same-origin", cache: "no-store" }).then(answer);
  }

  function post(path, body) {
    return fetch(data.api + path, {
      method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": data.csrf },
      body: JSON.stringify(body || {})
    }).then(answer);
  }

  /* --- live states -------------------------------------------------------------------- */

  function restyleStep(group, state) {
    var style = data.styles.steps[state.toLowerCase()];
    if (!style) { return; }
    var classes = group.getAttribute("class").split(/\s+/).filter(function (c) {
      return c.indexOf("state-") !== 0;
    });
    classes.push("state-" + state.toLowerCase());
    group.setAttribute("class", classes.join(" "));
    var outline = group.firstElementChild;
    outline.setAttribute("fill", style.fill);
    outline.setAttribute("stroke", style.stroke);
    outline.setAttribute("stroke-width", String(style.strokeWidth));
    if (style.dashed) { outline.setAttribute("stroke-dasharray", "5 3"); }
    else { outline.removeAttribute("stroke-dasharray"); }
  }

  function restyleEdge(group, state) {
    var style = data.styles.edges[state];
    if (!style) { return; }
    var classes = group.getAttribute("class").split(/\s+/).filter(function (c) {
      return !/^edge-(taken|not-taken|pending)$/.test(c);
    });
    classes.push("edge-" + state);
    group.setAttribute("class", classes.join(" "));
    var path = group.querySelector("path");
    if (path) {
      path.setAttribute("stroke", style.stroke);
      path.setAttribute("stroke-width", String(style.strokeWidth));
      path.setAttribute("marker-end", "url(#" + style.marker + ")");
    }
  }

  function applyRecord(record) {
    data.record = record;
    record.steps.forEach(function (step) {
      var group = stepGroup(step.stepId);
      if (group && !group.classList.contains("state-" + step.state.toLowerCase())) {
        restyleStep(group, step.state);
      }
    });
    var badge = document.getElementById("run-state");
    if (badge) {
      badge.textContent = record.state;
      badge.className = "run-state run-" + record.state.toLowerCase();
    }
    var updated = document.getElementById("run-updated");
    if (updated) { updated.textContent = "updated " + record.updatedAt; }
    var reason = document.getElementById("run-reason");
    if (reason) { reason.textContent = record.reason || ""; reason.hidden = !record.reason; }
    var retry = document.getElementById("retry");
    if (retry) { retry.hidden = !(data.canOperate && record.state === "Failed"); retry.disabled = false; }
    var resume = document.getElementById("resume");
    if (resume) { resume.hidden = !(data.canOperate && record.state === "Suspended"); resume.disabled = false; }
    var cancel = document.getElementById("cancel-run");
    if (cancel) {
      cancel.hidden = !data.canOperate || data.finishedStates.indexOf(record.state) >= 0;
      cancel.disabled = false;
    }
    if (panel && !panel.hidden) { fillPanel(panel.getAttribute("data-step-id")); }
    drawTimeline(record);
    document.body.setAttribute("data-revision", String(record.revision));
  }

  /* Opened sub-workflows: each drawn node's state (the child runs' steps among them), and
     the child runs now drawn, whose records the panel shows. */
  function applyNodes(drawing) {
    (drawing.nodes || []).forEach(function (node) {
      if (node.childRun) { data.childRuns[node.id + "/"] = node.childRun.workflowInstanceId; }
      if (!node.state || node.id.indexOf("/") < 0) { return; }
      var group = stepGroup(node.id);
      if (group && !group.classList.contains("state-" + node.state.toLowerCase())) {
        restyleStep(group, node.state);
      }
    });
  }

  function childRecords() {
    var ids = Object.keys(data.childRuns || {}).map(function (k) { return data.childRuns[k]; });
    return Promise.all(ids.map(function (id) { return get(runPath(id)); })).then(function (found) {
      var records = {};
      found.forEach(function (record) { records[record.workflowInstanceId] = record; });
      data.childRecords = records;
    });
  }

  function applyEdges(drawing) {
    (drawing.edges || []).forEach(function (edge) {
      if (!edge.state || !svg) { return; }
      svg.querySelectorAll("g.edge[data-edge-id]").forEach(function (group) {
        if (group.getAttribute("data-edge-id") === edge.id &&
            !group.classList.contains("edge-" + edge.state)) {
          restyleEdge(group, edge.state);
        }
      });
    });
  }

  var pending = null;
  function refresh() {
    if (pending) { return pending; }
    pending = new Promise(function (resolve) { window.setTimeout(resolve, 60); })
      .then(function () {
        return Promise.all([get(runPath()),
                            get(runPath() + "/graph?format=json" + (data.viewQuery || ""))]);
      })
      .then(function (found) {
        applyNodes(found[1]);
        return childRecords().then(function () { return found; });
      })
      .then(function (found) { pending = null; applyRecord(found[0]); applyEdges(found[1]); },
            function (error) { pending = null; showProblem(error); });
    return pending;
  }

  /* --- the run's timeline: a row per step that started, a bar per attempt ------------- */

  var SVG_NS = "http://www.w3.org/2000/svg";
  var TIMELINE = { label: 200, width: 760, row: 18, bar: 12, top: 24 };
  var timelineSvg = document.getElementById("timeline-svg");

  function svgEl(tag, attributes, content) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, String(attributes[name]));
    });
    if (content !== undefined) { node.textContent = content; }
    return node;
  }

  /* Steps that started, in the order they first did; each attempt is a bar (a step
     without attempts, such as a Timer, one bar over its own start and finish). An
     unfinished bar ends at the record's last update, the timeline being as of then, but
     never before it starts (a run's updatedAt can be a millisecond older than the attempt
     its last transition opened). */
  function timelineRows(record, asOf) {
    var rows = [];
    var until = function (start, ended) { return ended ? Date.parse(ended) : Math.max(asOf, start); };
    record.steps.forEach(function (step) {
      var bars = (step.attempts || []).map(function (a) {
        var start = Date.parse(a.startedAt);
        return { start: start, end: until(start, a.endedAt),
                 state: a.outcome || "running", name: a.attemptId };
      });
      if (!bars.length && step.startedAt) {
        var start = Date.parse(step.startedAt);
        bars = [{ start: start, end: until(start, step.finishedAt),
                  state: step.state.toLowerCase(), name: step.stepId }];
      }
      if (bars.length) { rows.push({ stepId: step.stepId, bars: bars, first: bars[0].start }); }
    });
    rows.sort(function (a, b) {
      return a.first - b.first || (a.stepId < b.stepId ? -1 : a.stepId > b.stepId ? 1 : 0);
    });
    return rows;
  }

  function duration(ms) {
    if (ms < 1000) { return Math.round(ms) + " ms"; }
    if (ms < 120000) { return (ms / 1000).toFixed(1) + " s"; }
    if (ms < 7200000) { return (ms / 60000).toFixed(1) + " min"; }
    return (ms / 3600000).toFixed(1) + " h";
  }

  function drawTimeline(record) {
    if (!timelineSvg) { return; }
    var asOf = Date.parse(record.updatedAt);
    var rows = timelineRows(record, asOf);
    var start = Date.parse(record.createdAt);
    var end = start + 1;
    rows.forEach(function (row) {
      row.bars.forEach(function (bar) { end = Math.max(end, bar.start, bar.end); });
    });
    var scale = TIMELINE.width / (end - start);
    var x = function (t) { return TIMELINE.label + (t - start) * scale; };
    timelineSvg.textContent = "";
    var height = TIMELINE.top + rows.length * TIMELINE.row + 4;
    timelineSvg.setAttribute("viewBox", "0 0 " + (TIMELINE.label + TIMELINE.width + 60) + " " + height);
    timelineSvg.setAttribute("height", String(height));
    for (var tick = 0; tick <= 4; tick += 1) {
      var at = TIMELINE.label + tick * TIMELINE.width / 4;
      timelineSvg.appendChild(svgEl("line", { x1: at, x2: at, y1: TIMELINE.top - 6, y2: height,
                                              "class": "timeline-tick" }));
      timelineSvg.appendChild(svgEl("text", { x: at, y: TIMELINE.top - 10, "class": "timeline-axis" },
                                    "+" + duration(tick * (end - start) / 4)));
    }
    rows.forEach(function (row, index) {
      var y = TIMELINE.top + index * TIMELINE.row;
      var group = svgEl("g", { "class": "timeline-row", "data-timeline-step": row.stepId });
      group.appendChild(svgEl("text", { x: TIMELINE.label - 8, y: y + TIMELINE.bar - 2,
                                        "class": "timeline-label" }, row.stepId));
      row.bars.forEach(function (bar) {
        var style = data.styles.steps[bar.state] || data.styles.steps.running;
        /* at least 2 px wide, and inside the axis: a short bar at its end is drawn
           ending there */
        var barWidth = Math.max(2, (bar.end - bar.start) * scale);
        var barX = Math.min(x(bar.start), TIMELINE.label + TIMELINE.width - barWidth);
        var rect = svgEl("rect", { x: barX, y: y, height: TIMELINE.bar, rx: 2,
                                   width: barWidth,
                                   fill: style.fill, stroke: style.stroke,
                                   "class": "timeline-bar", "data-state": bar.state });
        rect.appendChild(svgEl("title", {}, row.stepId + " · " + text(bar.name) + " · " +
                               bar.state + " · " + duration(bar.end - bar.start)));
        group.appendChild(rect);
      });
      timelineSvg.appendChild(group);
    });
  }

  if (timelineSvg && data.record) {
    drawTimeline(data.record);
    timelineSvg.addEventListener("click", function (event) {
      var row = event.target && event.target.closest ? event.target.closest("[data-timeline-step]") : null;
      if (row) { openPanel(row.getAttribute("data-timeline-step")); }
    });
  }

  /* --- the run's history (the table under the drawing) -------------------------------- */

  var historyRows = document.getElementById("history-rows");

  function historyRow(entry) {
    var history = data.history;
    var since = history.start ? "+" + ((Date.parse(entry.at) - Date.parse(history.start)) / 1000)
      .toFixed(3) + " s" : "+0.000 s";
    if (!history.start) { history.start = entry.at; }
    var step = entry.stepId ? [el("button", { type: "button", "class": "link",
                                              "data-history-step": entry.stepId },
                                  [entry.stepId])] : [];
    return el("tr", { "data-seq": String(entry.seq) }, [
      el("td", {}, [String(entry.seq)]), el("td", {}, [entry.at]), el("td", {}, [since]),
      el("td", {}, [entry.kind]), el("td", {}, step), el("td", {}, [entry.detail || ""])
    ]);
  }

  function addHistory(entries) {
    var history = data.history;
    entries.forEach(function (entry) {
      if (entry.seq <= history.last) { return; }
      historyRows.appendChild(historyRow(entry));
      history.last = entry.seq;
    });
    /* the count is the run's events when the page was built, or the rows, if more */
    history.count = Math.max(history.count, historyRows.children.length);
    var count = document.getElementById("history-count");
    if (count) {
      count.textContent = "(" + history.count + " event" + (history.count === 1 ? "" : "s") + ")";
    }
  }

  function moreHistory(button) {
    button.disabled = true;
    var history = data.history;
    get(runPath() + "/events?after=" + history.last + "&limit=" + history.page).then(function (page) {
      addHistory(page.items);
      if (page.items.length < history.page) { history.complete = true; button.hidden = true; }
      button.disabled = false;
    }, function (error) { button.disabled = false; showProblem(error); });
  }

  if (historyRows && data.history) {
    historyRows.addEventListener("click", function (event) {
      var target = event.target;
      if (target && target.hasAttribute && target.hasAttribute("data-history-step")) {
        openPanel(target.getAttribute("data-history-step"));
      }
    });
    var moreButton = document.getElementById("history-more");
    if (moreButton) {
      moreButton.addEventListener("click", function () { moreHistory(moreButton); });
    }
  }

  function follow() {
    if (typeof window.EventSource !== "function") { return; }
    var live = document.getElementById("live");
    var source = new EventSource(data.api + "/events/stream?after=" + data.lastSeq);
    var onEvent = function (event) {
      var message = JSON.parse(event.data);
      var id = message.workflowInstanceId;
      var drawn = Object.keys(data.childRuns || {}).some(function (k) { return data.childRuns[k] === id; });
      if (id === data.runId && historyRows && data.history && data.history.complete) {
        addHistory([message]);
      }
      if (id === data.runId || drawn) { refresh(); }
    };
    source.addEventListener("message", onEvent);
    data.eventKinds.forEach(function (kind) { source.addEventListener(kind, onEvent); });
    source.addEventListener("open", function () {
      if (live) { live.textContent = "live"; live.classList.add("on"); }
    });
    source.addEventListener("error", function () {
      if (live) { live.textContent = "live: reconnecting"; live.classList.remove("on"); }
    });
    window.studioEvents = source;
  }

  if (data.page === "run") {
    var retryButton = document.getElementById("retry");
    if (retryButton) {
      retryButton.addEventListener("click", function () {
        retryButton.disabled = true;
        post(runPath() + "/retry", {}).then(refresh, showProblem);
      });
    }
    /* An operator verb on the run at its current revision; the page follows the result
       (refresh), and the button comes back if the verb is refused. */
    var verbButton = function (id, verb, extra, question) {
      var button = document.getElementById(id);
      if (!button) { return; }
      button.addEventListener("click", function () {
        if (question && !window.confirm(question())) { return; }
        button.disabled = true;
        var body = Object.assign({ expectedRevision: data.record.revision }, extra);
        post(runPath() + "/" + verb, body)
          .then(refresh, function (error) { button.disabled = false; showProblem(error); });
      });
    };
    verbButton("resume", "resume", {});
    verbButton("cancel-run", "cancel", { reason: "cancelled in the Studio" }, function () {
      return "Cancel run " + data.runId + "? Its waiting child runs and timers are " +
             "cancelled too; this cannot be undone.";
    });
    follow();
  }
})();
