// What the page knows of each track it shows: catalog data and download state, by track id.
// Every change goes through `merge`, which tells the views (they update in place).

/** Track id → item (catalog data + download state). */
export const tracks = new Map();
const listeners = [];

/** Calls `listener(item, stateBefore)` after every merge. */
export function onTrackChange(listener) {
  listeners.push(listener);
}

/** Folds an update (a document, an event's fields) into the track's item. */
export function merge(update) {
  const known = tracks.get(update.id);
  const before = known ? known.state : undefined;
  const item = Object.assign(known || {}, update);
  tracks.set(update.id, item);
  for (const listener of listeners) listener(item, before);
  return item;
}
