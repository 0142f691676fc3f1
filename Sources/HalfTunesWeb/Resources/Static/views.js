// The album and artist views (#/album/ID, #/artist/ID): the results table shows the album's songs
// in order (or the artist's, newest first) under a header, rows as for a search. Links to them
// are history entries: the browser's Back returns to what was shown, focus on the link followed.
import { $, artworkAt, count, element } from "./format.js";
import { api, showError } from "./api.js";
import { announce } from "./announce.js";
import { tracks } from "./tracks.js";
import { shownIds, showResults } from "./results.js";

let press = null;
let saved = null; // the search's view, while a view replaces it: { ids, status, more }
let shown = null; // the view shown: "album/ID", "artist/ID", or null for the search's

/** Whether an album or artist view is shown (the table is not a search's). */
export const showsView = () => shown !== null;

/** Sets up the views; `pressed(key, item)` runs a row's button. */
export function setUpViews(pressed) {
  press = pressed;
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-view]");
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    go(link.getAttribute("href"), link);
  });
  window.addEventListener("popstate", () => route(true));
  $("#view-back").addEventListener("click", () => {
    if (history.state && history.state.fromPage) history.back();
    else go(location.pathname + location.search);
  });
  $("#download-all").addEventListener("click", downloadAll);
  if (location.hash) route(false);
}

/** Leaves a view for the search's (a new search from an album's view). */
export function leaveView() {
  if (!shown) return;
  history.pushState(null, "", location.pathname + location.search);
  showSearchView(false);
}

/** Follows a link to a view: the entry left keeps where focus was, for Back. */
function go(href, from) {
  history.replaceState({ ...(history.state || {}), focus: from ? focusKey(from) : null }, "");
  history.pushState({ fromPage: true }, "", href);
  route(false);
}

/** A selector that finds the link again once its view is shown anew. */
function focusKey(link) {
  const row = link.closest("tr[data-track-id]");
  const kind = link.dataset.view;
  return row ? `#results tr[data-track-id="${row.dataset.trackId}"] a[data-view="${kind}"]` : `#view-header a[data-view="${kind}"]`;
}

async function route(back) {
  const match = location.hash.match(/^#\/(album|artist)\/(\d+)$/);
  const focus = back && history.state ? history.state.focus : null;
  if (match) await showView(match[1], Number(match[2]));
  else showSearchView(true);
  const target = focus && document.querySelector(focus);
  if (target) target.focus();
}

function showSearchView(restore) {
  if (!shown) return;
  shown = null;
  $("#view-header").hidden = true;
  $("#results-heading").textContent = "Results";
  if (saved && restore) {
    $("#results-status").textContent = saved.status;
    $("#more-results").hidden = saved.more;
    showResults(saved.ids, press);
  }
  saved = null;
}

async function showView(kind, id) {
  if (!shown) saved = { ids: shownIds(), status: $("#results-status").textContent, more: $("#more-results").hidden };
  shown = `${kind}/${id}`;
  $("#more-results").hidden = true;
  $("#results-status").textContent = kind === "album" ? "Opening the album…" : "Opening the artist…";
  try {
    const answer = await api("GET", kind === "album" ? `/api/album/${id}` : `/api/artist/${id}?limit=50`);
    if (shown !== `${kind}/${id}`) return; // another view was asked for meanwhile
    showError("");
    for (const item of answer.results) tracks.set(item.id, Object.assign(tracks.get(item.id) || {}, item));
    const words = kind === "album" ? albumHeader(answer.album, answer.results) : artistHeader(answer.artist, answer.results);
    $("#results-status").textContent = words;
    showResults(answer.results.map((item) => item.id), press);
    $("#view-header").hidden = false;
    $("#results-heading").focus();
    announce(`${$("#results-heading").textContent}: ${words}`);
  } catch (error) {
    $("#results-status").textContent = kind === "album" ? "The album could not be opened." : "The artist could not be opened.";
    showError(error.message);
  }
}

function albumHeader(album, songs) {
  $("#results-heading").textContent = album.name;
  const cover = album.artworkURL
    ? element("img", { src: artworkAt(album.artworkURL, 160), srcset: `${artworkAt(album.artworkURL, 320)} 2x`,
      alt: `Cover of ${album.name}`, width: "160", height: "160" })
    : "";
  const by = album.artistId
    ? element("a", { href: `#/artist/${album.artistId}`, "data-view": "artist" }, album.artist) : album.artist;
  const facts = [album.year, album.genre].filter(Boolean).join(" · ");
  $("#view-art").replaceChildren(cover);
  $("#view-facts").replaceChildren("by ", by, facts ? ` · ${facts}` : "");
  $("#download-all").hidden = !songs.some((song) => song.downloadable);
  const offered = count(songs.length, "song", "songs");
  return album.trackCount > songs.length ? `${offered} of its ${album.trackCount} tracks offered.` : `${offered}.`;
}

function artistHeader(artist, songs) {
  $("#results-heading").textContent = artist.name;
  $("#view-art").replaceChildren();
  $("#view-facts").replaceChildren(artist.genre || "");
  $("#download-all").hidden = true;
  return `${count(songs.length, "song", "songs")}, newest first.`;
}

/** Download all: every song of the album shown with a preview that is not downloaded or under way. */
async function downloadAll() {
  const waiting = shownIds().map((id) => tracks.get(id))
    .filter((item) => item.downloadable && item.state === "notDownloaded");
  if (!waiting.length) return announce("Every song of the album is downloaded or under way.");
  announce(`Downloading ${count(waiting.length, "song", "songs")} of ${$("#results-heading").textContent}.`);
  for (const item of waiting) await press("download", item);
}
