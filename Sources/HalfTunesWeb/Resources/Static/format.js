// Text for people: sizes, progress, durations; and a small helper that builds elements.

/** A byte count as the page shows it: "812 bytes", "12.3 KB", "1.1 MB". */
export function bytes(count) {
  const one = (value) => (Math.round(value * 10) / 10).toFixed(1);
  if (count < 1000) return `${count} bytes`;
  if (count < 1e6) return `${one(count / 1e3)} KB`;
  if (count < 1e9) return `${one(count / 1e6)} MB`;
  return `${one(count / 1e9)} GB`;
}

/** "12.3% of 1.1 MB", or the bytes so far when the size is not known. */
export function progressText(item) {
  // Started, nothing received yet: what the command line says too.
  if (!item.expectedBytes) return item.receivedBytes ? bytes(item.receivedBytes) : "Starting";
  const percent = Math.min(100, (item.receivedBytes * 100) / item.expectedBytes);
  return `${(Math.round(percent * 10) / 10).toFixed(1)}% of ${bytes(item.expectedBytes)}`;
}

/** A wait before a retry, from seconds: "0.4 s", "12 s", "2 min 5 s". */
export function wait(seconds) {
  if (seconds < 10) return `${(Math.round(Math.max(0, seconds) * 10) / 10).toFixed(1)} s`;
  const whole = Math.ceil(seconds);
  return whole < 120 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** "3:07" from milliseconds; "—" when unknown. */
export function duration(ms) {
  if (ms == null) return "—";
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** "1 track" / "3 tracks". */
export function count(number, one, many) {
  return number === 1 ? `1 ${one}` : `${number} ${many}`;
}

/** An element with attributes (`onclick` becomes a listener) and children. */
export function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

export const $ = (selector) => document.querySelector(selector);

/**
 * The store's rendition of a cover at `px` pixels: its artwork URLs end in `100x100bb.jpg`, and
 * the image server answers any `NxNbb` (the tag writer asks for 600). Other URLs stay as they are.
 */
export function artworkAt(url, px) {
  return url.replace(/\/\d+x\d+bb\.(jpg|png|svg)$/, `/${px}x${px}bb.$1`);
}
