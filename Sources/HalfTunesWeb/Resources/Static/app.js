// HalfTunes: the tutorial's screen. Search, download with pause/resume/cancel and live progress,
// play what is in the library. State comes from the server; live events keep every tab in step.
// The JSON is the wire schema v1 (see the README): every document and event carries `v`, the
// track `id` and its `state`; errors are `{v, code, message}`.
"use strict";

const token = document.querySelector('meta[name="halftunes-token"]').content;
const tracks = new Map();      // track id → item (catalog data + download state)
let resultIds = [];            // ids in the current results, in order
let libraryItems = [];          // the library's items loaded so far, most recent first
let libraryCursor = null;       // the listing's change cursor: `since` asks for what changed after it
let libraryNext = null;         // where the next page of the library starts, if there is one
let libraryTotals = { count: 0, bytes: 0 };
const pageSize = 200;
let searched = false;           // whether the table shows a search (else the downloads in flight)

const $ = (selector) => document.querySelector(selector);

function bytes(count) {
  const one = (value) => (Math.round(value * 10) / 10).toFixed(1);
  if (count < 1000) return `${count} bytes`;
  if (count < 1e6) return `${one(count / 1e3)} KB`;
  if (count < 1e9) return `${one(count / 1e6)} MB`;
  return `${one(count / 1e9)} GB`;
}

function progressText(item) {
  if (!item.expectedBytes) return bytes(item.receivedBytes || 0);
  const percent = Math.min(100, (item.receivedBytes * 100) / item.expectedBytes);
  return `${(Math.round(percent * 10) / 10).toFixed(1)}% of ${bytes(item.expectedBytes)}`;
}

function duration(ms) {
  if (ms == null) return "—";
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path) {
  const options = { method, headers: {} };
  if (method !== "GET") options.headers["X-HalfTunes-Token"] = token;
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.message || `HTTP ${response.status}`);
  return body;
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function button(label, item, action) {
  return element("button", { type: "button", "aria-label": `${label} ${item.name}`, onclick: action }, label);
}

async function act(method, path, id) {
  try {
    showError("");
    const updated = await api(method, path);
    if (updated && updated.id) merge(updated);
    else if (id && method === "DELETE") merge({ id, state: "notDownloaded", receivedBytes: 0, expectedBytes: null });
  } catch (error) {
    showError(error.message);
  }
}

function actionsFor(item) {
  const cell = element("div", { class: "actions" });
  const id = item.id;
  const progress = () => {
    const bar = element("progress", { max: "100", "aria-label": `Progress of ${item.name}` });
    if (item.expectedBytes) bar.value = (item.receivedBytes * 100) / item.expectedBytes;
    return bar;
  };
  const label = (text) => element("span", { class: "progress-label" }, text);
  // A download with bytes on disk plays at once; the server sends the rest as it arrives.
  const playEarly = () => (item.receivedBytes > 0 ? [button("Play", item, () => play(item))] : []);
  switch (item.state) {
    case "notDownloaded":
      if (item.downloadable) cell.append(button("Download", item, () => act("POST", `/api/downloads/${id}`)));
      else cell.append(label("No preview"));
      break;
    case "queued":
      cell.append(progress(), label("Queued"), button("Pause", item, () => act("POST", `/api/downloads/${id}/pause`)),
        button("Cancel", item, () => act("DELETE", `/api/downloads/${id}`, id)));
      break;
    case "downloading":
      cell.append(progress(), label(progressText(item)), button("Pause", item, () => act("POST", `/api/downloads/${id}/pause`)),
        button("Cancel", item, () => act("DELETE", `/api/downloads/${id}`, id)), ...playEarly());
      break;
    case "paused":
      cell.append(progress(), label("Paused"), button("Resume", item, () => act("POST", `/api/downloads/${id}/resume`)),
        button("Cancel", item, () => act("DELETE", `/api/downloads/${id}`, id)), ...playEarly());
      break;
    case "failed":
      cell.append(label(`Failed: ${item.reason || "unknown error"}`),
        button("Retry", item, () => act("POST", `/api/downloads/${id}/resume`)),
        button("Cancel", item, () => act("DELETE", `/api/downloads/${id}`, id)));
      break;
    case "downloaded":
      cell.append(element("span", { class: "in-library" }, "In library"), button("Play", item, () => play(item)));
      break;
  }
  cell.append(storeLink(item));
  return cell;
}

// The track's page in the store, beside its preview (the store's terms expect the link).
function storeLink(item) {
  if (!item.storeURL) return "";
  return element("a", { href: item.storeURL, target: "_blank", rel: "noopener", class: "store-link",
    "aria-label": `${item.name} in the store` }, "Store");
}

function resultRow(item) {
  const art = item.artworkURL ? element("img", { src: item.artworkURL, alt: `Cover of ${item.album || item.name}` }) : "";
  return element("tr", { "data-track-id": item.id },
    element("td", {}, art), element("td", {}, item.name), element("td", {}, item.artist),
    element("td", {}, item.album || "—"), element("td", {}, duration(item.durationMs)),
    element("td", {}, actionsFor(item)));
}

function renderResults() {
  const body = $("#results tbody");
  body.replaceChildren(...resultIds.map((id) => resultRow(tracks.get(id))));
  $("#results").hidden = resultIds.length === 0;
}

function renderRow(id) {
  const row = document.querySelector(`#results tr[data-track-id="${id}"]`);
  if (row && tracks.has(id)) row.replaceWith(resultRow(tracks.get(id)));
}

function updateProgress(id) {
  const item = tracks.get(id);
  const row = document.querySelector(`#results tr[data-track-id="${id}"]`);
  if (!row || !item || item.state !== "downloading") return renderRow(id);
  const bar = row.querySelector("progress");
  const label = row.querySelector(".progress-label");
  if (!bar || !label) return renderRow(id);
  if (item.receivedBytes > 0 && ![...row.querySelectorAll("button")].some((b) => b.textContent === "Play")) return renderRow(id);
  if (item.expectedBytes) bar.value = (item.receivedBytes * 100) / item.expectedBytes;
  label.textContent = progressText(item);
}

function renderLibrary() {
  const body = $("#library tbody");
  body.replaceChildren(...libraryItems.map((item) => element("tr", { "data-track-id": item.id },
    element("td", {}, item.name), element("td", {}, item.artist), element("td", {}, item.album || "—"),
    element("td", {}, element("div", { class: "actions" },
      button("Play", item, () => play(item)),
      button("Remove", item, () => act("DELETE", `/api/library/${item.id}`, item.id)), storeLink(item))))));
  $("#library").hidden = libraryItems.length === 0;
  $("#library-status").hidden = libraryItems.length !== 0;
  const { count, bytes: size } = libraryTotals;
  $("#library-summary").textContent = count ? `${count === 1 ? "1 track" : `${count} tracks`}, ${bytes(size)}` : "";
  $("#library-more").hidden = !libraryNext;
}

function merge(update) {
  const item = Object.assign(tracks.get(update.id) || {}, update);
  tracks.set(update.id, item);
  renderRow(update.id);
  return item;
}

function takeTotals(listing) {
  if (listing.libraryCount != null) libraryTotals = { count: listing.libraryCount, bytes: listing.libraryBytes || 0 };
  if (listing.cursor != null) libraryCursor = listing.cursor;
}

// The listing, once at start (and after a reconnect or a `reload` event): downloads in flight
// and the first page of the library. After that, events and `since` keep it current.
async function refreshLibrary() {
  try {
    const listing = await api("GET", `/api/downloads?limit=${pageSize}`);
    libraryItems = listing.library;
    libraryNext = listing.next || null;
    takeTotals(listing);
    for (const item of [...listing.downloads, ...listing.library]) if (tracks.has(item.id)) merge(item);
    // Before any search (a reload, a new tab), the downloads in flight fill the table, live.
    if (!searched && listing.downloads.length) {
      for (const item of listing.downloads) tracks.set(item.id, item);
      resultIds = listing.downloads.map((item) => item.id);
      const count = resultIds.length === 1 ? "1 download" : `${resultIds.length} downloads`;
      $("#results-status").textContent = `${count} in progress.`;
      renderResults();
    }
    renderLibrary();
  } catch (error) {
    showError(error.message);
  }
}

// Only what changed in the library since the last listing; one request at a time, and one more
// if changes came while it ran.
let fetchingChanges = null;
let changesAgain = false;
async function refreshChanges() {
  if (libraryCursor == null) return refreshLibrary();
  if (fetchingChanges) { changesAgain = true; return fetchingChanges; }
  fetchingChanges = (async () => {
    do {
      changesAgain = false;
      try {
        const changes = await api("GET", `/api/downloads?since=${encodeURIComponent(libraryCursor)}`);
        const gone = new Set([...(changes.removed || []), ...changes.library.map((item) => item.id)]);
        libraryItems = [...changes.library, ...libraryItems.filter((item) => !gone.has(item.id))];
        takeTotals(changes);
        for (const item of changes.library) if (tracks.has(item.id)) merge(item);
        renderLibrary();
      } catch (error) {
        showError(error.message);
      }
    } while (changesAgain);
    fetchingChanges = null;
  })();
  return fetchingChanges;
}

async function moreLibrary() {
  if (!libraryNext) return;
  try {
    const listing = await api("GET", `/api/downloads?limit=${pageSize}&after=${encodeURIComponent(libraryNext)}`);
    const known = new Set(libraryItems.map((item) => item.id));
    libraryItems = [...libraryItems, ...listing.library.filter((item) => !known.has(item.id))];
    libraryNext = listing.next || null;
    renderLibrary();
  } catch (error) {
    showError(error.message);
  }
}

function play(item) {
  const player = $("#player");
  player.src = `/library/${item.id}`;
  $("#now-playing").textContent = `Playing: ${item.name} — ${item.artist}`;
  player.play().catch((error) => showError(`Cannot play ${item.name}: ${error.message}`));
}

async function search(term) {
  searched = true;
  $("#results-status").textContent = `Searching for “${term}”…`;
  try {
    const { results } = await api("GET", `/api/search?term=${encodeURIComponent(term)}&limit=50`);
    showError("");
    for (const item of results) tracks.set(item.id, item);
    resultIds = results.map((item) => item.id);
    const count = results.length === 1 ? "1 song" : `${results.length} songs`;
    $("#results-status").textContent = results.length ? `${count} found for “${term}”.` : `No songs found for “${term}”.`;
    renderResults();
  } catch (error) {
    $("#results-status").textContent = "The search failed.";
    showError(error.message);
  }
}

function connectEvents() {
  const events = new EventSource("/api/events");
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    // This tab fell behind and lost events: the server ends the stream (EventSource reconnects,
    // and the listing is read again then).
    if (event.event === "reload") return;
    const item = tracks.get(event.id);
    if (event.event === "progress") {
      if (item) {
        Object.assign(item, { receivedBytes: event.receivedBytes, expectedBytes: event.expectedBytes });
        if (item.state === "queued") { item.state = "downloading"; renderRow(event.id); } else updateProgress(event.id);
      }
      return;
    }
    if (item) {
      const update = { id: event.id, state: event.state };
      if (event.reason) update.reason = event.reason;
      if (event.state === "notDownloaded") Object.assign(update, { receivedBytes: 0, expectedBytes: null });
      merge(update);
    }
    if (event.state === "downloaded" || event.state === "notDownloaded") refreshChanges();
    if (event.state === "failed" && event.reason) showError(`Download failed: ${event.reason}`);
  };
  events.onopen = () => refreshLibrary();
}

$("#search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const term = $("#term").value.trim();
  if (term) search(term);
});

$("#library-more").addEventListener("click", moreLibrary);

connectEvents();
