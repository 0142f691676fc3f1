// The library: pages from the listing, kept current with `since` (one request per change), shown
// sorted and filtered, rows updated in place. Play plays the library as shown; Remove hides the
// row at once and deletes the file after a few seconds unless Undo is pressed.
import { $, bytes, count, element } from "./format.js";
import { api, showError } from "./api.js";
import { announce } from "./announce.js";
import { setButtons } from "./controls.js";
import { storeLink } from "./results.js";
import { forget, play } from "./player.js";

const pageSize = 200;
const undoSeconds = 5;
let items = [];                 // the library's items loaded so far, most recent first
let cursor = null;              // the listing's change cursor: `since` asks for what changed after it
let next = null;                // where the next page starts, if there is one
let totals = { count: 0, bytes: 0 };
let pending = null;             // a removal that Undo can still take back: { item, index, timer }
const rows = new Map();         // track id → row element

/** The library as shown: filtered, sorted, without a removal waiting for its Undo. */
export function view() {
  const words = fold($("#library-filter").value).split(/\s+/).filter(Boolean);
  const shown = items.filter((item) => item.id !== pending?.item.id &&
    words.every((word) => fold(`${item.name} ${item.artist} ${item.album || ""}`).includes(word)));
  const byText = (key) => (a, b) => (a[key] || "").localeCompare(b[key] || "", undefined, { sensitivity: "base" });
  switch ($("#library-sort").value) {
    case "title": return shown.sort(byText("name"));
    case "artist": return shown.sort((a, b) => byText("artist")(a, b) || byText("name")(a, b));
    default: return shown; // the listing's own order: most recent first
  }
}

/** Lower case without accents, so "alvarez" finds "Álvarez". */
const fold = (text) => text.normalize("NFD").replace(/\p{Diacritic}/gu, "").toLocaleLowerCase();
const filtering = () => $("#library-filter").value.trim() !== "" || $("#library-sort").value !== "added";

/** The item for a track, when the library holds it. */
export const libraryItem = (id) => items.find((item) => item.id === id);

function buildRow(item) {
  const cell = (className, text) => element("td", { role: "cell", class: className }, text);
  const actions = element("div", { class: "actions" }, storeLink(item));
  const row = element("tr", { role: "row", "data-track-id": item.id },
    cell("title", item.name), cell("artist", item.artist), cell("album", item.album || "—"),
    element("td", { role: "cell", class: "controls" }, actions));
  setButtons(actions, ["play", "remove"], item.name, (key) => {
    const current = libraryItem(item.id) || item;
    if (key === "play") play(current, view());
    else remove(current);
  });
  return row;
}

/** Shows the library as `view()` has it, reusing rows; focus stays where it was. */
export function render() {
  const shown = view();
  const body = $("#library tbody");
  const focused = document.activeElement;
  const wanted = new Set(shown.map((item) => item.id));
  for (const [id, row] of rows) if (!wanted.has(id)) { row.remove(); rows.delete(id); }
  shown.forEach((item, index) => {
    let row = rows.get(item.id);
    if (!row) { row = buildRow(item); rows.set(item.id, row); }
    if (body.children[index] !== row) body.insertBefore(row, body.children[index] || null);
  });
  if (focused && focused !== document.activeElement && focused.isConnected) focused.focus();

  const kept = items.length - (pending ? 1 : 0);
  $("#library").hidden = shown.length === 0;
  $("#library-tools").hidden = kept === 0;
  $("#library-status").hidden = kept !== 0 && shown.length !== 0;
  $("#library-status").textContent = kept === 0 ? "Nothing downloaded yet." : "No tracks match the filter.";
  const all = totals.count - (pending ? 1 : 0);
  const size = totals.bytes - (pending ? pending.item.receivedBytes || 0 : 0);
  const filtered = filtering() && $("#library-filter").value.trim();
  // Filtered, the size is the shown tracks' own, not the whole library's.
  const shownSize = shown.reduce((sum, item) => sum + (item.receivedBytes || 0), 0);
  $("#library-summary").textContent = !all ? ""
    : filtered ? `${shown.length} of ${count(all, "track", "tracks")}, ${bytes(shownSize)}`
    : `${count(all, "track", "tracks")}, ${bytes(Math.max(0, size))}`;
  $("#library-more").hidden = !next || filtering();
}

function take(listing) {
  if (listing.libraryCount != null) totals = { count: listing.libraryCount, bytes: listing.libraryBytes || 0 };
  if (listing.cursor != null) cursor = listing.cursor;
}

/** The listing, once at start (and after a reconnect): the first page. Returns it. */
export async function loadLibrary() {
  const listing = await api("GET", `/api/downloads?limit=${pageSize}`);
  items = listing.library;
  next = listing.next || null;
  take(listing);
  if (filtering()) await loadRest();
  render();
  return listing;
}

/** Reads the page after the ones loaded and appends it; resolves to the items it added. */
async function nextPage(limit) {
  const listing = await api("GET", `/api/downloads?limit=${limit}&after=${encodeURIComponent(next)}`);
  const known = new Set(items.map((item) => item.id));
  const added = listing.library.filter((item) => !known.has(item.id));
  items = [...items, ...added];
  next = listing.next || null;
  return added;
}

/** Every page after the ones loaded (sorting or filtering needs the whole library). */
async function loadRest() {
  while (next) await nextPage(1000);
}

async function more() {
  if (!next) return;
  try {
    const added = await nextPage(pageSize);
    const hadFocus = document.activeElement === $("#library-more");
    render();
    // The button goes with the last page: focus moves to the first row it brought.
    if (hadFocus && !next && added.length) rows.get(added[0].id)?.querySelector("button")?.focus();
  } catch (error) {
    showError(error.message);
  }
}

// Only what changed since the last listing; one request at a time, and one more if changes came
// while it ran.
let fetching = null;
let again = false;
/** Reads what changed in the library; resolves to the items added. */
export async function refreshChanges(onAdded) {
  if (cursor == null) return loadLibrary();
  if (fetching) { again = true; return fetching; }
  fetching = (async () => {
    do {
      again = false;
      try {
        const changes = await api("GET", `/api/downloads?since=${encodeURIComponent(cursor)}`);
        const gone = new Set([...(changes.removed || []), ...changes.library.map((item) => item.id)]);
        items = [...changes.library, ...items.filter((item) => !gone.has(item.id))];
        take(changes);
        for (const item of changes.library) onAdded(item);
        render();
      } catch (error) {
        showError(error.message);
      }
    } while (again);
    fetching = null;
  })();
  return fetching;
}

function remove(item) {
  if (pending) commit();
  const index = view().findIndex((entry) => entry.id === item.id);
  pending = { item, index, timer: setTimeout(commit, undoSeconds * 1000) };
  render();
  $("#undo-text").textContent = `Removed ${item.name}.`;
  $("#undo-button").setAttribute("aria-label", `Undo removing ${item.name}`);
  $("#undo").hidden = false;
  $("#undo-button").focus();
  announce(`Removed ${item.name}. Undo for ${undoSeconds} seconds.`);
}

function undo() {
  if (!pending) return;
  const { item, timer } = pending;
  clearTimeout(timer);
  pending = null;
  $("#undo").hidden = true;
  render();
  rows.get(item.id)?.querySelector("button")?.focus();
  announce(`Restored ${item.name}`);
}

/** Deletes the file of the removal waiting for its Undo (at once with `keepalive`: the page is going). */
function commit({ keepalive = false } = {}) {
  if (!pending) return;
  const { item, index, timer } = pending;
  clearTimeout(timer);
  pending = null;
  const hadFocus = $("#undo").contains(document.activeElement);
  $("#undo").hidden = true;
  if (hadFocus) {
    const shown = view().filter((entry) => entry.id !== item.id);
    const neighbour = shown[Math.min(index, shown.length - 1)];
    (neighbour && rows.get(neighbour.id)?.querySelector("button") || $("#library-filter")).focus();
  }
  items = items.filter((entry) => entry.id !== item.id);
  totals = { count: Math.max(0, totals.count - 1), bytes: Math.max(0, totals.bytes - (item.receivedBytes || 0)) };
  forget(item.id);
  api("DELETE", `/api/library/${item.id}`, { keepalive })
    .then(() => document.dispatchEvent(new CustomEvent("halftunes:removed", { detail: item })))
    .catch((error) => showError(error.message));
  render();
}

/** Wires the library's controls; call once. */
export function setUpLibrary() {
  $("#library-more").addEventListener("click", more);
  $("#undo-button").addEventListener("click", undo);
  let said = null;
  $("#library-filter").addEventListener("input", async () => {
    try {
      if (next) await loadRest();
    } catch (error) {
      showError(error.message);
    }
    render();
    clearTimeout(said);
    said = setTimeout(() => announce(`${count(view().length, "track", "tracks")} shown`), 600);
  });
  $("#library-sort").addEventListener("change", async () => {
    try {
      if (filtering()) await loadRest();
    } catch (error) {
      showError(error.message);
    }
    render();
  });
  window.addEventListener("pagehide", () => commit({ keepalive: true }));
}
