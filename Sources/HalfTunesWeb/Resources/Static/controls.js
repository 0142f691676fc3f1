// A row's buttons, kept in place: a state change adds and removes buttons around the ones that
// stay, and focus never sits on a removed one. It moves to the pressed button's successor
// (Download → Pause, Pause → Resume, Resume → Pause, Cancel → Download), else to the row's first.
import { element } from "./format.js";

/** The order buttons appear in, whatever the state. */
const order = ["download", "pause", "resume", "retry", "cancel", "play", "remove"];
const labels = { download: "Download", pause: "Pause", resume: "Resume", retry: "Retry", cancel: "Cancel",
  play: "Play", remove: "Remove" };
const successor = { download: "pause", pause: "resume", resume: "pause", retry: "pause", cancel: "download" };

/**
 * Makes `box` hold the buttons named in `wanted` (keys of `labels`), reusing the ones it has.
 * `press(key)` runs on a click. Returns the buttons in order.
 */
export function setButtons(box, wanted, name, press) {
  const keys = order.filter((key) => wanted.includes(key));
  const existing = new Map([...box.querySelectorAll(":scope > button")].map((b) => [b.dataset.action, b]));
  const focused = box.contains(document.activeElement) ? document.activeElement.dataset.action : null;
  // New buttons go before the next one that stays, so no kept button (nor focus) ever moves.
  keys.forEach((key, index) => {
    if (existing.has(key)) return;
    const button = element("button", { type: "button", "data-action": key, "aria-label": `${labels[key]} ${name}` },
      labels[key]);
    button.addEventListener("click", () => press(key));
    const after = keys.slice(index + 1).map((next) => existing.get(next)).find(Boolean);
    box.insertBefore(button, after || box.querySelector(":scope > a") || null);
    existing.set(key, button);
  });
  if (focused && !keys.includes(focused)) {
    const target = existing.get(successor[focused]) && keys.includes(successor[focused])
      ? existing.get(successor[focused]) : existing.get(keys[0]);
    if (target) target.focus();
  }
  for (const [key, button] of existing) if (!keys.includes(key)) button.remove();
  return keys.map((key) => existing.get(key));
}
