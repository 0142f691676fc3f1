// The server's JSON API (wire schema v1: every document and event carries `v`, the track `id`
// and its `state`; errors are `{v, code, message}`), and the page's one error box.
import { $ } from "./format.js";

const token = document.querySelector('meta[name="halftunes-token"]').content;

/** Calls the API; resolves to the JSON body (null for 204), rejects with the server's message. */
export async function api(method, path, { keepalive = false } = {}) {
  const options = { method, headers: {}, keepalive };
  if (method !== "GET") options.headers["X-HalfTunes-Token"] = token;
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({ message: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.message || `HTTP ${response.status}`);
  return body;
}

/** Shows a message in the page's alert box; an empty message hides it. */
export function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = !message;
}
