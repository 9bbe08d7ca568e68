// The desk's service worker: the pages and their files are cached when first loaded, so
// /score and /study open without a network. Pages and files: the network first (fresh
// after an upgrade), the cache when it fails. /api/presets and /api/options (the rules'
// words) likewise; the other /api requests are never cached (a settlement offline is
// queued by the page, see score.js). FILES is the whole graph the pages load, imports of
// imports included (tests/test_js.py walks it, so that it cannot drift).
const CACHE = "desk-v4";
const API = ["/api/presets", "/api/options"];
const FILES = [
  "/score", "/study",
  "/static/style.css", "/static/favicon.svg",
  "/static/desk/desk.css", "/static/desk/common.js", "/static/desk/score.js",
  "/static/desk/study.js", "/static/desk/manifest.webmanifest",
  "/static/js/eval.js", "/static/js/util.js", "/static/js/i18n.js", "/static/js/words.js",
  // The words in every language: the pages pick one as the lobby does (i18n.js).
  "/static/i18n/en.json", "/static/i18n/bg.json", "/static/i18n/hr.json",
  "/static/i18n/ru.json", "/static/i18n/lv.json",
];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  const cached = FILES.includes(url.pathname) || API.includes(url.pathname);
  if (!cached) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const res = await fetch(event.request);
      if (res.ok) await cache.put(url.pathname, res.clone());
      return res;
    } catch (e) {
      const hit = await cache.match(url.pathname);
      if (hit) return hit;
      throw e;
    }
  })());
});
