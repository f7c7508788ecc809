// The graph explorer: search, ranked results with per-channel scores, an entity
// card (properties, aliases, provenance, merges with undo) and a neighbourhood graph
// that grows when a node is clicked. Talks only to the JSON API of this server.
"use strict";

const keyInput = document.getElementById("key");
const statusLine = document.getElementById("status");
const results = document.getElementById("results");
const card = document.getElementById("card");

keyInput.value = sessionStorage.getItem("redstring-key") || "";
keyInput.addEventListener("change", () => sessionStorage.setItem("redstring-key", keyInput.value));

const graph = cytoscape({
  container: document.getElementById("graph"),
  style: [
    { selector: "node", style: { "label": "data(label)", "background-color": "#c23b4e", "font-size": 11, "width": 18, "height": 18 } },
    { selector: "node.focus", style: { "background-color": "#7a1020", "width": 26, "height": 26 } },
    { selector: "edge", style: { "label": "data(label)", "font-size": 9, "curve-style": "bezier", "target-arrow-shape": "triangle", "width": 1.5, "line-color": "#bbb", "target-arrow-color": "#bbb" } },
  ],
  layout: { name: "grid" },
});
window.explorerGraph = graph;

async function api(method, path) {
  const response = await fetch(path, { method, headers: { "Authorization": "Bearer " + keyInput.value } });
  const body = await response.json();
  if (!response.ok) {
    throw new Error(body.detail || response.statusText);
  }
  return body;
}

function text(tag, content, className) {
  const node = document.createElement(tag);
  node.textContent = content;
  if (className) node.className = className;
  return node;
}

function score(value) {
  return value === null || value === undefined ? "-" : value.toFixed(3);
}

document.getElementById("search").addEventListener("submit", async (event) => {
  event.preventDefault();
  const query = document.getElementById("query").value;
  statusLine.textContent = "searching...";
  statusLine.className = "";
  try {
    const found = await api("GET", "/v1/search?k=10&q=" + encodeURIComponent(query));
    const body = results.querySelector("tbody");
    body.replaceChildren();
    found.matches.forEach((match, index) => {
      const row = document.createElement("tr");
      row.dataset.entityId = match.entity.id;
      row.append(text("td", String(index + 1), "num"), text("td", match.entity.name),
        text("td", match.entity.entity_type), text("td", match.score.toFixed(4), "num"),
        text("td", score(match.semantic), "num"), text("td", score(match.lexical), "num"));
      row.addEventListener("click", () => focus(match.entity.id, true));
      body.append(row);
    });
    results.hidden = found.matches.length === 0;
    statusLine.textContent = found.matches.length + " result(s) for " + JSON.stringify(query);
  } catch (error) {
    statusLine.textContent = error.message;
    statusLine.className = "error";
  }
});

async function focus(entityId, fresh) {
  try {
    const shown = await api("GET", "/v1/entities/" + encodeURIComponent(entityId));
    renderCard(shown);
    if (fresh) graph.elements().remove();
    expand(shown);
  } catch (error) {
    statusLine.textContent = error.message;
    statusLine.className = "error";
  }
}

function addNode(id, label) {
  if (graph.getElementById(id).empty()) {
    graph.add({ group: "nodes", data: { id, label } });
  }
}

function expand(shown) {
  const entity = shown.entity;
  addNode(entity.id, entity.name);
  for (const rel of shown.relationships) {
    addNode(rel.source_id, shown.names[rel.source_id] || rel.source_id);
    addNode(rel.target_id, shown.names[rel.target_id] || rel.target_id);
    if (graph.getElementById(rel.id).empty()) {
      graph.add({ group: "edges", data: { id: rel.id, source: rel.source_id, target: rel.target_id, label: rel.relationship_type } });
    }
  }
  graph.nodes().removeClass("focus");
  graph.getElementById(entity.id).addClass("focus");
  // Fit, not centre on the focus: centring pans the fitted graph by up to half the
  // canvas and can push a neighbour out of view, where it cannot be clicked.
  graph.layout({ name: "cose", animate: false, randomize: false, fit: true, padding: 30 }).run();
}

graph.on("tap", "node", (event) => focus(event.target.id(), false));

function renderCard(shown) {
  const entity = shown.entity;
  card.replaceChildren();
  card.dataset.entityId = entity.id;
  card.append(text("h2", entity.name), text("div", entity.entity_type + " · " + entity.id, "muted"));
  const properties = Object.entries(entity.properties);
  if (properties.length) {
    card.append(text("h3", "Properties"));
    const table = document.createElement("table");
    table.className = "properties";
    for (const [name, value] of properties) {
      const row = document.createElement("tr");
      row.append(text("th", name), text("td", typeof value === "string" ? value : JSON.stringify(value)));
      table.append(row);
    }
    card.append(table);
  }
  const aliases = shown.merges.flatMap((merge) => merge.merged_names);
  card.append(text("h3", "Aliases"), text("p", aliases.length ? aliases.join(", ") : "none", "aliases"));
  card.append(text("h3", "Provenance"));
  const sources = document.createElement("ul");
  sources.className = "provenance";
  for (const p of entity.provenance) {
    const span = p.char_start === null || p.char_start === undefined ? "" : " chars " + p.char_start + "-" + p.char_end;
    sources.append(text("li", p.source_id + span + " (" + p.method + (p.model ? ", " + p.model : "") + ")"));
  }
  card.append(sources);
  if (shown.merges.length) {
    card.append(text("h3", "Merges"));
    for (const merge of shown.merges) {
      const line = document.createElement("p");
      line.append(text("span", merge.merged_names.join(", ") + " merged in (" + merge.reason + ") "));
      const undo = text("button", "Undo merge");
      undo.className = "undo";
      undo.dataset.mergeId = merge.merge_id;
      undo.addEventListener("click", async () => {
        try {
          await api("POST", "/v1/merges/" + merge.merge_id + "/undo");
          statusLine.textContent = "undid merge " + merge.merge_id;
          await focus(entity.id, true);
        } catch (error) {
          statusLine.textContent = error.message;
          statusLine.className = "error";
        }
      });
      line.append(undo);
      card.append(line);
    }
  }
  card.hidden = false;
}
