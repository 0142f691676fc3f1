// The page's one polite live region: state changes, not progress ticks.
import { $ } from "./format.js";

let clearing = null;

/** Says `text` to assistive technology (and keeps it in the region until the next one). */
export function announce(text) {
  const region = $("#announcer");
  // Emptied first, so the same words twice in a row are still announced.
  region.textContent = "";
  clearTimeout(clearing);
  clearing = setTimeout(() => { region.textContent = text; }, 50);
}

/** What a change of state says, or nothing for a change not worth a word. */
export function stateAnnouncement(item, before) {
  const name = item.name || `Track ${item.id}`;
  if (item.state === before) return null;
  switch (item.state) {
    case "queued": return before === "notDownloaded" || before === undefined ? `Queued ${name}` : null;
    case "downloading": return `Downloading ${name}`;
    case "paused": return `Paused ${name}`;
    case "downloaded": return `${name} downloaded`;
    case "failed": return `${name} failed: ${item.reason || "unknown error"}`;
    case "notDownloaded": return before && before !== "downloaded" ? `Cancelled ${name}` : null;
    default: return null;
  }
}
