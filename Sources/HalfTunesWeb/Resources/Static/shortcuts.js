// Keyboard shortcuts that leave the browser's own alone: `/` searches, Space plays or pauses,
// Shift+N / Shift+P skip, `?` lists them. None of them fires while typing in a field or with
// Ctrl, Alt or Meta held; Space on a button or link still presses it.
import { $ } from "./format.js";
import { skip, togglePlay } from "./player.js";

function typing(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function pressable(target) {
  return target instanceof HTMLElement &&
    (["BUTTON", "A", "AUDIO", "SUMMARY"].includes(target.tagName) || target.getAttribute("role") === "button");
}

/** Opens the list of shortcuts; focus returns where it was when it closes. */
export function openHelp() {
  const dialog = $("#help");
  if (!dialog.open) dialog.showModal();
}

/** Wires the shortcuts and the help dialog; call once. */
export function setUpShortcuts() {
  $("#help-open").addEventListener("click", openHelp);
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) return;
    if ($("#help").open || typing(event.target)) return;
    if (event.key === "/") {
      event.preventDefault();
      $("#term").focus();
      $("#term").select();
    } else if (event.key === "?") {
      event.preventDefault();
      openHelp();
    } else if (event.key === " " && !pressable(event.target)) {
      event.preventDefault();
      togglePlay();
    } else if (event.key === "N" && event.shiftKey) {
      event.preventDefault();
      skip(1);
    } else if (event.key === "P" && event.shiftKey) {
      event.preventDefault();
      skip(-1);
    }
  });
}
