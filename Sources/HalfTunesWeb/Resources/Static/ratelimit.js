// The speed limit: one cap on all the server's downloads together (GET/POST /api/limit-rate),
// read when the page loads and set from its select; running downloads follow at once.
import { $ } from "./format.js";
import { api, showError } from "./api.js";
import { announce } from "./announce.js";

/** Wires the select; call once. */
export async function setUpRateLimit() {
  const select = $("#rate-limit");
  try {
    const { bytesPerSecond } = await api("GET", "/api/limit-rate");
    choose(select, bytesPerSecond || 0);
  } catch (error) {
    showError(`Cannot read the speed limit: ${error.message}`);
  }
  select.addEventListener("change", async () => {
    try {
      const { bytesPerSecond } = await api("POST", `/api/limit-rate?bytesPerSecond=${select.value}`);
      choose(select, bytesPerSecond || 0);
      announce(bytesPerSecond ? `Downloads limited to ${select.selectedOptions[0].textContent}` : "No speed limit");
    } catch (error) {
      showError(`Cannot set the speed limit: ${error.message}`);
    }
  });
}

/** Selects the option for a cap, adding one when the server's cap is none of them (set with --limit-rate). */
function choose(select, bytesPerSecond) {
  const value = String(bytesPerSecond);
  if (![...select.options].some((option) => option.value === value)) {
    const kb = bytesPerSecond / 1000;
    const label = kb >= 1000 ? `${(kb / 1000).toFixed(1)} MB/s` : `${kb.toFixed(0)} KB/s`;
    select.append(new Option(label, value));
  }
  select.value = value;
}
