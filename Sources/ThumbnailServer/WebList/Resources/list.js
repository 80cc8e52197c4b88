// The web list: a feed of any length as a virtualised list (or grid) whose rows own their loads.
//
// Only the rows on screen and `overscan` rows beyond each edge are in the DOM; they are reused as
// the list scrolls (item i always goes to slot i mod the pool's size, so a row that stays on screen
// keeps its element). A row asks for its thumbnail once it has shown its item for `dwell` ms,
// fetches it with an AbortController (the abort closes the connection, and the server cancels the
// work), and shows it from a blob URL. Every binding has a generation: a completion for an earlier
// one is dropped, so a reused row never shows another item's picture. Feed items arrive a window at
// a time from /feed.json and only a few windows are kept; thumbnails are kept as blobs within a
// byte budget, so the page's memory stays flat however far it scrolls.
"use strict";

const settings = {
  overscan: 2,             // rows kept in the DOM beyond each edge of the viewport
  dwell: 80,               // ms a row shows its item before it asks for the thumbnail
  pageSize: 100,           // items a /feed.json request asks for
  keptPages: 4,            // windows of items kept; the others are asked for again when needed
  prefetchScreens: 1,      // screens ahead prefetched, at low priority, once scrolling pauses
  prefetchPause: 150,      // ms without scrolling before the prefetch starts
  prefetchesAtOnce: 2,     // prefetches in flight at once, beside the rows' own loads
  keptBytes: 8 << 20,      // thumbnails kept for rows scrolled back to: at most these bytes,
  keptCount: 200,          // and this many (each costs the page's heap its URL and a Blob)
  rowMargin: 16,           // a list row's height beyond its thumbnail's box, CSS px
};

/// What went wrong with a load: the server's short text, or the browser's.
class LoadFailure extends Error {}

/// The feed's items, a window of `pageSize` at a time, the `keptPages` most recently used kept.
class FeedItems {
  constructor(view, onWindow) {
    this.view = view;          // "list" or "grid": which thumbnails' URLs the items carry
    this.onWindow = onWindow;  // called with a window's index when it arrives or fails
    this.windows = new Map();  // index → items, in order of use
    this.requests = new Map(); // index → promise
    this.failures = new Map(); // index → message
    this.count = 0;
  }

  /// Loads the first window, which says how many items there are.
  async start() {
    const listing = await this.fetchWindow(0);
    this.title = listing.title;
    this.count = listing.count;
    this.box = listing.box;
    this.keep(0, listing.items);
  }

  /// Item `index`, or undefined while its window is on its way (then asked for).
  item(index) {
    const window = Math.floor(index / settings.pageSize);
    const items = this.windows.get(window);
    if (items === undefined) {
      this.request(window);
      return undefined;
    }
    this.windows.delete(window);
    this.windows.set(window, items);
    return items[index - window * settings.pageSize];
  }

  /// Why item `index`'s window could not be loaded, if it could not.
  failure(index) { return this.failures.get(Math.floor(index / settings.pageSize)); }

  /// Asks for window `window` again after a failure.
  retry(index) {
    const window = Math.floor(index / settings.pageSize);
    if (this.failures.delete(window)) this.request(window);
  }

  request(window) {
    if (this.requests.has(window) || this.failures.has(window)) return;
    const request = this.fetchWindow(window).then(
      (listing) => this.keep(window, listing.items),
      (error) => this.failures.set(window, error.message),
    ).finally(() => {
      this.requests.delete(window);
      this.onWindow(window);
    });
    this.requests.set(window, request);
  }

  keep(window, items) {
    this.windows.set(window, items);
    for (const old of this.windows.keys()) {
      if (this.windows.size <= settings.keptPages) break;
      this.windows.delete(old);
    }
  }

  async fetchWindow(window) {
    const offset = window * settings.pageSize;
    const response = await fetch(`feed.json?offset=${offset}&limit=${settings.pageSize}&view=${this.view}`);
    if (!response.ok) throw new LoadFailure(`the feed could not be read (${response.status})`);
    return response.json();
  }
}

/// Thumbnails kept (their blobs, and the sources' sizes the server sent), least recently used
/// first out, within `budget` bytes and `capacity` thumbnails.
class KeptThumbnails {
  constructor(budget, capacity) {
    this.budget = budget;
    this.capacity = capacity;
    this.bytes = 0;
    this.thumbnails = new Map();
  }

  has(url) { return this.thumbnails.has(url); }

  get(url) {
    const thumbnail = this.thumbnails.get(url);
    if (thumbnail !== undefined) {
      this.thumbnails.delete(url);
      this.thumbnails.set(url, thumbnail);
    }
    return thumbnail;
  }

  put(url, thumbnail) {
    if (thumbnail.blob.size > this.budget / 4) return;
    this.remove(url);
    this.thumbnails.set(url, thumbnail);
    this.bytes += thumbnail.blob.size;
    for (const [old, kept] of this.thumbnails) {
      if (this.bytes <= this.budget && this.thumbnails.size <= this.capacity) break;
      this.thumbnails.delete(old);
      this.bytes -= kept.blob.size;
    }
  }

  remove(url) {
    const thumbnail = this.thumbnails.get(url);
    if (thumbnail === undefined) return;
    this.thumbnails.delete(url);
    this.bytes -= thumbnail.blob.size;
  }
}

/// Thumbnail requests: loads of one URL share one fetch, aborted when the last one sharing it
/// cancels. What arrives is kept in `kept`.
class ThumbnailLoads {
  constructor(kept, accept) {
    this.kept = kept;
    this.accept = accept;
    this.flights = new Map();
    this.stats = { requests: 0, prefetches: 0, aborted: 0, completed: 0, failed: 0 };
  }

  /// A load of `url` for one user: `{promise, cancel}`.
  start(url, priority) {
    let flight = this.flights.get(url);
    if (flight === undefined) {
      const controller = new AbortController();
      flight = { controller, users: 0, promise: this.fetch(url, controller.signal, priority) };
      this.flights.set(url, flight);
      const settled = flight;
      settled.promise.catch(() => {}).finally(() => {
        if (this.flights.get(url) === settled) this.flights.delete(url);
      });
    }
    flight.users += 1;
    let cancelled = false;
    const shared = flight;
    return {
      promise: shared.promise,
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        shared.users -= 1;
        if (shared.users === 0 && this.flights.get(url) === shared) {
          this.flights.delete(url);
          shared.controller.abort();
        }
      },
    };
  }

  async fetch(url, signal, priority) {
    this.stats.requests += 1;
    if (priority === "low") this.stats.prefetches += 1;
    try {
      const response = await fetch(url, { signal, priority, headers: { Accept: this.accept } });
      if (!response.ok) {
        const text = (await response.text()).trim();
        throw new LoadFailure(`${text || "failed"} (${response.status})`);
      }
      const thumbnail = { blob: await response.blob(), sourceSize: response.headers.get("X-Source-Size") };
      this.kept.put(url, thumbnail);
      this.stats.completed += 1;
      return thumbnail;
    } catch (error) {
      if (error.name === "AbortError") this.stats.aborted += 1;
      else this.stats.failed += 1;
      throw error;
    }
  }
}

/// One row of the list (a cell of the grid): shows item `index` in states loading, loaded, failed.
class Row {
  constructor(list) {
    this.list = list;
    this.index = -1;
    this.generation = 0;
    this.item = undefined;
    this.load = null;
    this.timer = 0;
    this.objectURL = null;

    this.element = document.createElement("div");
    this.element.className = "row";
    this.element.hidden = true;
    const frame = this.element.appendChild(document.createElement("div"));
    frame.className = "frame";
    this.placeholder = frame.appendChild(document.createElement("div"));
    this.placeholder.className = "placeholder";
    this.placeholder.hidden = true;
    this.image = frame.appendChild(document.createElement("img"));
    this.image.alt = "";
    const text = this.element.appendChild(document.createElement("div"));
    text.className = "text";
    this.title = text.appendChild(document.createElement("div"));
    this.title.className = "title";
    this.meta = text.appendChild(document.createElement("div"));
    this.meta.className = "meta";
    this.retryButton = this.element.appendChild(document.createElement("button"));
    this.retryButton.className = "retry";
    this.retryButton.textContent = "Retry";
    this.retryButton.addEventListener("click", () => this.retry());
    this.element.addEventListener("click", () => list.select(this.index));
  }

  /// Shows item `index` at (`x`, `y`); a row already showing it keeps its load.
  bind(index, x, y) {
    this.element.style.transform = `translate(${x}px, ${y}px)`;
    this.element.hidden = false;
    if (index !== this.index) {
      this.unbind();
      this.index = index;
      this.element.dataset.index = index;
    }
    this.element.classList.toggle("selected", index === this.list.selected);
    this.refresh();
  }

  /// Forgets its item: cancels its load and clears its image at once.
  unbind() {
    this.generation += 1;
    clearTimeout(this.timer);
    this.load?.cancel();
    this.load = null;
    this.item = undefined;
    this.image.removeAttribute("srcset");
    if (this.objectURL !== null) URL.revokeObjectURL(this.objectURL);
    this.objectURL = null;
    this.title.textContent = "";
    this.meta.textContent = "";
    this.placeholder.hidden = true;
    this.placeholder.style.transform = "";
    this.setState("loading");
  }

  /// Leaves the DOM's layout until it is bound again.
  hide() {
    this.unbind();
    this.index = -1;
    delete this.element.dataset.index;
    this.element.hidden = true;
  }

  /// Fills in the item once its window has arrived, and starts its load after the dwell.
  refresh() {
    if (this.item !== undefined) return;
    const item = this.list.feed.item(this.index);
    if (item === undefined) {
      const failure = this.list.feed.failure(this.index);
      if (failure !== undefined) this.fail(failure);
      return;
    }
    this.item = item;
    this.title.textContent = item.title;
    this.meta.textContent = this.describe(item);
    this.shapePlaceholder(item);
    const url = this.list.thumbnailURL(item);
    const kept = this.list.kept.get(url);
    if (kept !== undefined) {
      this.show(kept, this.generation);
    } else {
      const generation = this.generation;
      this.timer = setTimeout(() => {
        if (generation === this.generation) this.startLoad(url);
      }, settings.dwell);
    }
  }

  /// The placeholder appears: where the source's size is known, at the size its thumbnail will
  /// show at (fitted into the box at this screen's density, never enlarged), else filling the box.
  /// It is always laid out as the whole box and shaped by a transform, so a reused row taking
  /// another item's shape moves nothing.
  shapePlaceholder(item) {
    if (item.width && item.height && !this.list.grid) {
      const box = this.list.feed.box;
      const density = this.list.density;
      const scale = Math.min(1, (box * density) / Math.max(item.width, item.height));
      const side = (pixels) => Math.max(1, Math.round(pixels * scale)) / density / box;
      this.placeholder.style.transform = `scale(${side(item.width)}, ${side(item.height)})`;
    }
    this.placeholder.hidden = false;
  }

  startLoad(url) {
    const generation = this.generation;
    this.setState("loading");
    this.load = this.list.loads.start(url, "high");
    this.load.promise.then(
      (thumbnail) => {
        if (generation !== this.generation) return;
        this.load = null;
        this.show(thumbnail, generation);
      },
      (error) => {
        if (generation !== this.generation || error.name === "AbortError") return;
        this.load = null;
        this.fail(error.message);
      },
    );
  }

  /// Shows `thumbnail` if the row still shows the item it was loaded for.
  show(thumbnail, generation) {
    if (this.objectURL !== null) URL.revokeObjectURL(this.objectURL);
    this.objectURL = URL.createObjectURL(thumbnail.blob);
    this.meta.textContent = this.describe(this.item, thumbnail.sourceSize);
    this.image.srcset = `${this.objectURL} ${this.list.density}x`;
    this.image.decode().then(
      () => { if (generation === this.generation) this.setState("loaded"); },
      () => { if (generation === this.generation) this.fail("the browser cannot show this image"); },
    );
  }

  fail(message) {
    this.setState("failed");
    this.meta.textContent = message;
  }

  /// Loads again after a failure: the feed's window, or the thumbnail.
  retry() {
    if (this.element.dataset.state !== "failed") return;
    if (this.item === undefined) {
      this.list.feed.retry(this.index);
      this.setState("loading");
      return;
    }
    this.list.kept.remove(this.list.thumbnailURL(this.item));
    this.image.removeAttribute("srcset");
    this.meta.textContent = this.describe(this.item);
    this.startLoad(this.list.thumbnailURL(this.item));
  }

  setState(state) { this.element.dataset.state = state; }

  /// The source's size (from the feed, else from the thumbnail's response), else its URL.
  describe(item, sourceSize) {
    if (item.width) return `${item.width} × ${item.height}`;
    return sourceSize ? sourceSize.replace("x", " × ") : item.source;
  }
}

/// Fetches the rows ahead, in the direction of the last scroll, once scrolling pauses; cancelled
/// when the direction changes.
class Prefetcher {
  constructor(list) {
    this.list = list;
    this.loads = new Map(); // url → load in flight
    this.queue = [];
    this.timer = 0;
  }

  /// Scrolling moved on: what is no longer ahead is cancelled, and the rest waits for the next pause.
  scrolled() {
    this.keepOnly(new Set(this.list.aheadURLs()));
    this.queue = [];
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), settings.prefetchPause);
  }

  start() {
    const urls = this.list.aheadURLs().filter((url) => !this.list.kept.has(url));
    this.keepOnly(new Set(urls));
    this.queue = urls.filter((url) => !this.loads.has(url));
    this.next();
  }

  keepOnly(wanted) {
    for (const [url, load] of this.loads) {
      if (!wanted.has(url)) {
        load.cancel();
        this.loads.delete(url);
      }
    }
  }

  next() {
    while (this.loads.size < settings.prefetchesAtOnce && this.queue.length > 0) {
      const url = this.queue.shift();
      const load = this.list.loads.start(url, "low");
      this.loads.set(url, load);
      load.promise.catch(() => {}).finally(() => {
        if (this.loads.get(url) !== load) return;
        this.loads.delete(url);
        load.cancel();
        this.next();
      });
    }
  }

  cancel() {
    clearTimeout(this.timer);
    for (const load of this.loads.values()) load.cancel();
    this.loads.clear();
    this.queue = [];
  }
}

/// The list: lays rows out over the viewport's scroll position and keeps the selection.
class VirtualList {
  constructor(feed, loads, kept, grid) {
    this.feed = feed;
    this.loads = loads;
    this.kept = kept;
    this.grid = grid;
    this.density = Math.min(2, Math.max(1, Math.ceil(window.devicePixelRatio || 1)));
    this.viewport = document.getElementById("viewport");
    this.spacer = document.getElementById("spacer");
    this.position = document.getElementById("position");
    this.rows = [];
    this.selected = 0;
    this.lastTop = 0;
    this.direction = 1;
    this.prefetcher = new Prefetcher(this);
    this.viewport.addEventListener("scroll", () => this.scrolled(), { passive: true });
    new ResizeObserver(() => this.layOut()).observe(this.viewport);
  }

  /// The thumbnail for this screen's density: the 1× or 2× URL, as `srcset` would choose.
  thumbnailURL(item) {
    return item.thumbnails[Math.min(item.thumbnails.length, this.density) - 1];
  }

  /// Measures the viewport and sizes the pool: the rows it shows, and the overscan.
  layOut() {
    const width = this.viewport.clientWidth;
    this.rowHeight = this.grid ? this.feed.box : this.feed.box + settings.rowMargin;
    this.columns = this.grid ? Math.max(1, Math.floor(width / this.feed.box)) : 1;
    this.visibleRows = Math.ceil(this.viewport.clientHeight / this.rowHeight) + 1;
    const poolSize = (this.visibleRows + 2 * settings.overscan) * this.columns;
    while (this.rows.length > poolSize) {
      const row = this.rows.pop();
      row.hide();
      row.element.remove();
    }
    while (this.rows.length < poolSize) {
      const row = new Row(this);
      this.rows.push(row);
      this.spacer.appendChild(row.element);
    }
    this.spacer.style.height = `${Math.ceil(this.feed.count / this.columns) * this.rowHeight}px`;
    this.render();
  }

  scrolled() {
    const top = this.viewport.scrollTop;
    const direction = top > this.lastTop ? 1 : top < this.lastTop ? -1 : this.direction;
    if (direction !== this.direction) this.prefetcher.cancel();
    this.direction = direction;
    this.lastTop = top;
    this.render();
    this.prefetcher.scrolled();
  }

  /// Binds every slot to the item it shows at this scroll position.
  render() {
    const firstRow = Math.max(0, Math.floor(this.viewport.scrollTop / this.rowHeight) - settings.overscan);
    const first = firstRow * this.columns;
    const end = Math.min(this.feed.count, first + this.rows.length);
    const bound = new Set();
    for (let index = first; index < end; index += 1) {
      const slot = index % this.rows.length;
      bound.add(slot);
      const column = index % this.columns;
      const x = this.grid ? column * this.feed.box : 0;
      this.rows[slot].bind(index, x, Math.floor(index / this.columns) * this.rowHeight);
    }
    this.rows.forEach((row, slot) => { if (!bound.has(slot) && row.index !== -1) row.hide(); });
    const top = Math.floor(this.viewport.scrollTop / this.rowHeight) * this.columns;
    const last = Math.min(this.feed.count, top + (this.visibleRows - 1) * this.columns);
    this.position.textContent = this.feed.count === 0
      ? "no items" : `${(top + 1).toLocaleString()}–${last.toLocaleString()} of ${this.feed.count.toLocaleString()}`;
  }

  /// A window of items arrived (or failed): its rows fill in.
  windowArrived() {
    for (const row of this.rows) if (row.index !== -1) row.refresh();
  }

  /// The thumbnails of the screen beyond the rows bound, in the direction of the last scroll.
  aheadURLs() {
    const count = settings.prefetchScreens * this.visibleRows * this.columns;
    const bound = this.rows.map((row) => row.index).filter((index) => index !== -1);
    if (bound.length === 0) return [];
    const start = this.direction > 0 ? Math.max(...bound) + 1 : Math.min(...bound) - count;
    const urls = [];
    for (let index = Math.max(0, start); index < Math.min(this.feed.count, start + count); index += 1) {
      const item = this.feed.item(index);
      if (item !== undefined) urls.push(this.thumbnailURL(item));
    }
    return this.direction > 0 ? urls : urls.reverse();
  }

  /// Moves the selection to `index` and scrolls it into view.
  select(index) {
    if (this.feed.count === 0) return;
    this.selected = Math.max(0, Math.min(this.feed.count - 1, index));
    const y = Math.floor(this.selected / this.columns) * this.rowHeight;
    const top = this.viewport.scrollTop;
    if (y < top) this.viewport.scrollTop = y;
    else if (y + this.rowHeight > top + this.viewport.clientHeight) {
      this.viewport.scrollTop = y + this.rowHeight - this.viewport.clientHeight;
    }
    this.render();
  }

  /// Retries every failed row in the DOM.
  retry() {
    for (const row of this.rows) if (row.index !== -1) row.retry();
  }

  key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const moves = { j: this.columns, ArrowDown: this.columns, k: -this.columns, ArrowUp: -this.columns };
    if (event.key in moves) this.select(this.selected + moves[event.key]);
    else if (event.key === "g" || event.key === "Home") this.select(0);
    else if (event.key === "G" || event.key === "End") this.select(this.feed.count - 1);
    else if (event.key === "r") this.retry();
    else return;
    event.preventDefault();
  }
}

/// The Accept header for thumbnails: WebP when this browser decodes it.
async function thumbnailAccept() {
  const image = new Image();
  image.src = "data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA";
  try {
    await image.decode();
    return "image/webp,image/png,image/jpeg;q=0.9";
  } catch {
    return "image/png,image/jpeg;q=0.9";
  }
}

async function main() {
  const grid = new URLSearchParams(location.search).get("view") === "grid";
  document.body.classList.toggle("grid", grid);
  document.getElementById(grid ? "grid-view" : "list-view").setAttribute("aria-current", "page");
  let list;
  const feed = new FeedItems(grid ? "grid" : "list", () => list?.windowArrived());
  try {
    await feed.start();
  } catch (error) {
    document.getElementById("position").textContent = `The feed could not be read: ${error.message}`;
    return;
  }
  if (feed.title) {
    document.getElementById("title").textContent = feed.title;
    document.title = feed.title;
  }
  const style = document.documentElement.style;
  style.setProperty(grid ? "--cell" : "--box", `${feed.box}px`);
  style.setProperty("--row", `${feed.box + settings.rowMargin}px`);
  const kept = new KeptThumbnails(settings.keptBytes, settings.keptCount);
  list = new VirtualList(feed, new ThumbnailLoads(kept, await thumbnailAccept()), kept, grid);
  list.layOut();
  document.addEventListener("keydown", (event) => list.key(event));
  list.viewport.focus();
  // For tests and the curious: the list, its settings and its request counts.
  window.thumbnailList = { list, settings, stats: list.loads.stats };
}

main();
