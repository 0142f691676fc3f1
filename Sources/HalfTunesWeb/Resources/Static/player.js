// The player: a queue (the library as it is sorted and filtered when Play is pressed), Next and
// Previous, the next track when one ends, and the Media Session (title, artist, artwork; the
// keyboard's media keys).
import { $, artworkAt } from "./format.js";
import { announce } from "./announce.js";
import { showError } from "./api.js";

let queue = [];   // items, in play order
let position = -1;

const player = () => $("#player");

/** The item playing (or paused), if any. */
export const current = () => (position >= 0 ? queue[position] : null);

/** Plays `item`; the player then goes on through `list` (which holds it) when it ends. */
export function play(item, list = [item]) {
  queue = list.some((entry) => entry.id === item.id) ? [...list] : [item];
  position = queue.findIndex((entry) => entry.id === item.id);
  start();
}

function start() {
  const item = current();
  if (!item) return;
  const audio = player();
  audio.src = `/library/${item.id}`;
  $("#now-playing").textContent = `Playing: ${item.name} — ${item.artist}`;
  announce(`Playing ${item.name} by ${item.artist}`);
  updateTransport();
  describe(item);
  audio.play().catch((error) => {
    if (error.name !== "AbortError") showError(`Cannot play ${item.name}: ${error.message}`);
  });
}

/** Moves `step` tracks along the queue (1: next, -1: previous); false when there is none. */
export function skip(step) {
  const target = position + step;
  if (target < 0 || target >= queue.length) return false;
  position = target;
  start();
  return true;
}

/** Plays or pauses what is loaded; with nothing loaded, nothing happens. */
export function togglePlay() {
  const audio = player();
  if (!audio.src) return;
  if (audio.paused) audio.play().catch((error) => showError(error.message));
  else audio.pause();
}

/** Takes a removed track out of the queue; stops it if it is the one playing. */
export function forget(id) {
  const index = queue.findIndex((entry) => entry.id === id);
  if (index < 0) return;
  if (index === position) {
    player().pause();
    player().removeAttribute("src");
    player().load();
    $("#now-playing").textContent = "Nothing playing.";
    queue = [];
    position = -1;
  } else {
    queue.splice(index, 1);
    if (index < position) position -= 1;
  }
  updateTransport();
}

function updateTransport() {
  $("#previous").disabled = position <= 0;
  $("#next").disabled = position < 0 || position >= queue.length - 1;
  if ("mediaSession" in navigator) {
    navigator.mediaSession.setActionHandler("previoustrack", position > 0 ? () => skip(-1) : null);
    navigator.mediaSession.setActionHandler("nexttrack", position < queue.length - 1 ? () => skip(1) : null);
  }
}

function describe(item) {
  if (!("mediaSession" in navigator) || typeof MediaMetadata === "undefined") return;
  const artwork = item.artworkURL ? [{ src: artworkAt(item.artworkURL, 512), sizes: "512x512" }] : [];
  navigator.mediaSession.metadata = new MediaMetadata({
    title: item.name, artist: item.artist, album: item.album || "", artwork });
}

/** Wires the player's buttons and events; call once. */
export function setUpPlayer() {
  const audio = player();
  $("#previous").addEventListener("click", () => skip(-1));
  $("#next").addEventListener("click", () => skip(1));
  audio.addEventListener("ended", () => {
    if (!skip(1)) $("#now-playing").textContent = "Nothing playing.";
  });
  if ("mediaSession" in navigator) {
    navigator.mediaSession.setActionHandler("play", () => audio.play());
    navigator.mediaSession.setActionHandler("pause", () => audio.pause());
    audio.addEventListener("play", () => { navigator.mediaSession.playbackState = "playing"; });
    audio.addEventListener("pause", () => { navigator.mediaSession.playbackState = "paused"; });
  }
  updateTransport();
}
