// The results table: one row per track, built once per search and then updated in place (text,
// progress value, buttons), so focus and screen-reader position survive every event.
import { $, artworkAt, duration, element, progressText, wait } from "./format.js";
import { setButtons } from "./controls.js";
import { tracks } from "./tracks.js";

let resultIds = [];
const rows = new Map(); // track id → row element

const cell = (className, ...children) => element("td", { role: "cell", class: className }, ...children);

function buttonsFor(item) {
  const early = item.receivedBytes > 0 ? ["play"] : []; // a download with bytes on disk plays at once
  switch (item.state) {
    case "notDownloaded": return item.downloadable ? ["download"] : [];
    case "queued": return ["pause", "cancel"];
    case "downloading": return ["pause", "cancel", ...early];
    case "paused": return ["resume", "cancel", ...early];
    case "failed": return ["retry", "cancel"];
    case "downloaded": return ["play"];
    default: return [];
  }
}

function statusText(item) {
  switch (item.state) {
    case "notDownloaded": return item.downloadable ? "" : "No preview";
    case "queued": return "Queued";
    case "downloading":
      // Waiting to try again after an attempt failed (a server busy, a connection reset).
      if (item.retry) return `Retrying in ${wait(item.retry.after)}: ${item.retry.reason}`;
      return progressText(item);
    case "paused": return "Paused";
    case "failed": return `Failed: ${item.reason || "unknown error"}`;
    case "downloaded": return "In library";
    default: return "";
  }
}

/** The track's page in the store, beside its preview (the store's terms expect the link). */
export function storeLink(item) {
  if (!item.storeURL) return "";
  return element("a", { href: item.storeURL, target: "_blank", rel: "noopener", class: "store-link",
    "aria-label": `${item.name} in the store` }, "Store");
}

/** A link to the album's or the artist's view, when the catalog gave its id; else the name. */
function viewLink(kind, id, name) {
  if (!id || !name) return name || "—";
  return element("a", { href: `#/${kind}/${id}`, "data-view": kind, class: "view-link" }, name);
}

function build(item, press) {
  const art = item.artworkURL
    ? element("img", {
      src: artworkAt(item.artworkURL, 48), srcset: `${artworkAt(item.artworkURL, 96)} 2x`,
      alt: `Cover of ${item.album || item.name}`, width: "48", height: "48",
    })
    : "";
  const bar = element("progress", { max: "100", "aria-label": `Progress of ${item.name}` });
  const label = element("span", { class: "progress-label" });
  const status = element("div", { class: "state" }, bar, label);
  const buttons = element("div", { class: "actions" }, storeLink(item));
  const row = element("tr", { role: "row", "data-track-id": item.id },
    cell("art", art), cell("title", item.name), cell("artist", viewLink("artist", item.artistId, item.artist)),
    cell("album", viewLink("album", item.collectionId, item.album)),
    cell("duration", duration(item.durationMs)), cell("status", status), cell("controls", buttons));
  row.press = (key) => press(key, tracks.get(item.id));
  return row;
}

/** Brings a row up to date with its item, in place. */
export function updateRow(item) {
  const row = rows.get(item.id);
  if (!row) return;
  const bar = row.querySelector("progress");
  const label = row.querySelector(".progress-label");
  const showsProgress = ["queued", "downloading", "paused"].includes(item.state);
  bar.hidden = !showsProgress;
  if (item.expectedBytes) bar.value = Math.min(100, (item.receivedBytes * 100) / item.expectedBytes);
  else bar.removeAttribute("value");
  const text = statusText(item);
  if (label.textContent !== text) {
    label.textContent = text;
    label.title = text; // one line on the page (a long reason is cut): all of it on hover
  }
  label.classList.toggle("in-library", item.state === "downloaded");
  label.classList.toggle("failed", item.state === "failed");
  setButtons(row.querySelector(".actions"), buttonsFor(item), item.name, row.press);
}

/** Shows these tracks (ids in `tracks`), in order; `press(key, item)` runs a row's button. */
export function showResults(ids, press) {
  resultIds = [];
  rows.clear();
  $("#results tbody").replaceChildren();
  appendResults(ids, press);
}

/** Adds these tracks' rows after those shown (the next page of a search). */
export function appendResults(ids, press) {
  resultIds = [...resultIds, ...ids];
  $("#results tbody").append(...ids.map((id) => {
    const row = build(tracks.get(id), press);
    rows.set(id, row);
    return row;
  }));
  for (const id of ids) updateRow(tracks.get(id));
  $("#results").hidden = resultIds.length === 0;
}

/** Whether the table shows this track. */
export const showsTrack = (id) => rows.has(id);
/** The ids shown, in order. */
export const shownIds = () => resultIds;
