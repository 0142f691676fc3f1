// HalfTunes: the tutorial's screen. Search, download with pause/resume/cancel and live progress,
// play what is in the library. State comes from the server; live events keep every tab in step.
// Rows are updated in place (focus stays put), state changes are announced in one live region.
import { $, count } from "./format.js";
import { api, showError } from "./api.js";
import { announce, stateAnnouncement } from "./announce.js";
import { merge, onTrackChange, tracks } from "./tracks.js";
import { appendResults, showResults, shownIds, showsTrack, updateRow } from "./results.js";
import { leaveView, setUpViews, showsView } from "./views.js";
import { libraryItem, loadLibrary, refreshChanges, setUpLibrary, view } from "./library.js";
import { play, setUpPlayer } from "./player.js";
import { setUpShortcuts } from "./shortcuts.js";
import { setUpRateLimit } from "./ratelimit.js";

let searched = false; // whether the table shows a search (else the downloads in flight)
const pageSize = 25; // results a page: More results asks for the next
let current = null; // the search shown: { term, query, offset }
const eventsSeen = new Map(); // track id → how many state events came for it

onTrackChange((item, before) => {
  if (showsTrack(item.id)) updateRow(item);
  // Only changes this page has seen happen: not the first sight of a track.
  if (before !== undefined) {
    const words = stateAnnouncement(item, before);
    if (words) announce(words);
  }
});

/** A row's button, pressed. */
async function press(key, item) {
  const id = item.id;
  const calls = {
    download: ["POST", `/api/downloads/${id}`], pause: ["POST", `/api/downloads/${id}/pause`],
    resume: ["POST", `/api/downloads/${id}/resume`], retry: ["POST", `/api/downloads/${id}/resume`],
    cancel: ["DELETE", `/api/downloads/${id}`],
  };
  if (key === "play") {
    const kept = libraryItem(id);
    return kept ? play(kept, view()) : play(item);
  }
  try {
    showError("");
    const [method, path] = calls[key];
    const seen = eventsSeen.get(id) || 0;
    const updated = await api(method, path);
    // An event that came while the request ran is newer than its answer (a download can fail
    // before the answer to Download arrives): then the events have said it all.
    if ((eventsSeen.get(id) || 0) !== seen) return;
    if (updated && updated.id) merge(updated);
    else if (method === "DELETE") merge({ id, state: "notDownloaded", receivedBytes: 0, expectedBytes: null });
  } catch (error) {
    showError(error.message);
  }
}

async function refreshAll() {
  try {
    const listing = await loadLibrary();
    for (const item of [...listing.downloads, ...listing.library]) if (tracks.has(item.id)) merge(item);
    // Before any search (a reload, a new tab), the downloads in flight fill the table, live.
    if (!searched && !showsView() && listing.downloads.length) {
      for (const item of listing.downloads) tracks.set(item.id, item);
      $("#results-status").textContent = `${count(listing.downloads.length, "download", "downloads")} in progress.`;
      showResults(listing.downloads.map((item) => item.id), press);
    }
  } catch (error) {
    showError(error.message);
  }
}

/** The search's query string: the term and the filters chosen. */
function searchQuery(term) {
  const query = new URLSearchParams({ term, limit: String(pageSize) });
  for (const [name, select] of [["in", "#search-in"], ["explicit", "#search-explicit"], ["lang", "#search-lang"]]) {
    if ($(select).value) query.set(name, $(select).value);
  }
  return query;
}

/** One page of a search, its results known to `tracks`; the ids, in order. */
async function page(query, offset) {
  if (offset) query.set("offset", String(offset));
  // URLSearchParams writes a space as `+`, which the server takes as itself: `%20` says a space.
  const { results } = await api("GET", `/api/search?${query.toString().replace(/\+/g, "%20")}`);
  showError("");
  for (const item of results) tracks.set(item.id, Object.assign(tracks.get(item.id) || {}, item));
  return results.map((item) => item.id);
}

async function search(term) {
  searched = true;
  leaveView();
  current = { term, query: searchQuery(term), offset: 0 };
  const asked = current;
  $("#more-results").hidden = true;
  $("#results-status").textContent = `Searching for “${term}”…`;
  try {
    const ids = await page(new URLSearchParams(asked.query), 0);
    if (current !== asked) return;
    const found = ids.length ? `${count(ids.length, "song", "songs")} found for “${term}”.`
      : `No songs found for “${term}”.`;
    $("#results-status").textContent = found;
    announce(found);
    showResults(ids, press);
    $("#more-results").hidden = ids.length < pageSize;
  } catch (error) {
    $("#results-status").textContent = "The search failed.";
    showError(error.message);
  }
}

/** More results: the next page, without the songs already shown. */
async function more() {
  const asked = current;
  if (!asked) return;
  const button = $("#more-results");
  button.disabled = true;
  try {
    asked.offset += pageSize;
    const ids = await page(new URLSearchParams(asked.query), asked.offset);
    if (current !== asked || showsView()) return;
    const shown = new Set(shownIds());
    const fresh = ids.filter((id) => !shown.has(id));
    appendResults(fresh, press);
    const total = shownIds().length;
    $("#results-status").textContent = `${count(total, "song", "songs")} found for “${asked.term}”.`;
    announce(fresh.length ? `${count(fresh.length, "more song", "more songs")}: ${total} in all.` : "No more songs.");
    button.hidden = ids.length < pageSize;
    // Focus stays on the button while there is more; else it goes to the first new row.
    if (button.hidden) {
      const next = fresh.length && document.querySelector(`#results tr[data-track-id="${fresh[0]}"] button, #results tr[data-track-id="${fresh[0]}"] a`);
      (next || $("#results-heading")).focus();
    }
  } catch (error) {
    asked.offset -= pageSize;
    showError(error.message);
  } finally {
    button.disabled = false;
  }
}

const libraryChanged = () => refreshChanges((item) => { if (tracks.has(item.id)) merge(item); });

function connectEvents() {
  const events = new EventSource("/api/events");
  events.onmessage = (message) => {
    const event = JSON.parse(message.data);
    // This tab fell behind and lost events: the server ends the stream (EventSource reconnects,
    // and the listing is read again then).
    if (event.event === "reload") return;
    const item = tracks.get(event.id);
    if (event.event !== "progress") eventsSeen.set(event.id, (eventsSeen.get(event.id) || 0) + 1);
    if (event.event === "progress") {
      if (item) {
        const update = { id: event.id, receivedBytes: event.receivedBytes, expectedBytes: event.expectedBytes, retry: null };
        if (item.state === "queued") update.state = "downloading";
        merge(update);
      }
      return;
    }
    // An attempt failed and the download tries again later: the row says so until the next event.
    if (event.event === "retrying") {
      if (item) merge({ id: event.id, state: "downloading", retry: { reason: event.reason, after: event.retryAfter || 0 } });
      return;
    }
    // A failure comes as a `state` event and then a `failed` one with the reason: the second says it.
    if (event.event === "state" && event.state === "failed") return;
    if (item) {
      const update = { id: event.id, state: event.state, retry: null };
      if (event.reason) update.reason = event.reason;
      if (event.state === "notDownloaded") Object.assign(update, { receivedBytes: 0, expectedBytes: null });
      merge(update);
    }
    if (event.state === "downloaded" || event.state === "notDownloaded") libraryChanged();
    if (event.state === "failed" && event.reason) showError(`Download failed: ${event.reason}`);
  };
  events.onopen = () => refreshAll();
}

$("#search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const term = $("#term").value.trim();
  if (term) search(term);
});
document.addEventListener("halftunes:removed", (event) => {
  const { id } = event.detail;
  if (tracks.has(id)) merge({ id, state: "notDownloaded", receivedBytes: 0, expectedBytes: null });
});

$("#more-results").addEventListener("click", more);

setUpPlayer();
setUpViews(press);
setUpLibrary();
setUpShortcuts();
setUpRateLimit();
connectEvents();
