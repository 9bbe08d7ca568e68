// @ts-check
// The page's words in the player's language: JSON catalogues in static/i18n/<lang>.json,
// one key per message, "{name}" placeholders, and plural forms as objects keyed by the
// categories of Intl.PluralRules ({one, few, many, other}). English is the fallback for a
// key a catalogue lacks (tests/js/i18n.test.mjs and tests/test_i18n.py hold every
// catalogue to having every key). The language comes from the stored switch ("cp.lang"),
// else the first of navigator.languages we speak, else English.
// No DOM at import (node --test imports this module).

// Its own tiny store (not util.js's): every module imports this one, util.js included.
const store = {
  get(key, fallback) {
    try { const v = globalThis.localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); }
    catch { return fallback; }
  },
  set(key, value) { try { globalThis.localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ } },
};

/** The languages we speak, each named in its own words (what the switch shows). */
export const LANGUAGES = { en: "English", bg: "Български", hr: "Hrvatski", ru: "Русский", lv: "Latviešu" };
export const DEFAULT_LANGUAGE = "en";
const STORE_KEY = "cp.lang";

let current = DEFAULT_LANGUAGE;
const catalogues = {}; // lang -> {key: message}
const listeners = new Set();

/** The language to use: the stored choice, else the browser's first supported one. */
export function pickLanguage(preferred, stored = null) {
  if (stored && LANGUAGES[stored]) return stored;
  for (const tag of preferred || []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES[primary]) return primary;
  }
  return DEFAULT_LANGUAGE;
}

/** The language in use now. */
export const language = () => current;

/** Put catalogues in place without fetching them (node tests, or a page that bundles them). */
export function useCatalogues(byLang, lang = current) {
  Object.assign(catalogues, byLang);
  current = LANGUAGES[lang] ? lang : DEFAULT_LANGUAGE;
}

function pluralForm(lang, forms, n) {
  let cat = "other";
  try { cat = new Intl.PluralRules(lang).select(Number(n)); } catch { /* no Intl: other */ }
  return forms[cat] ?? forms.other;
}

function lookup(lang, key, vars) {
  const cat = catalogues[lang];
  const msg = cat ? cat[key] : undefined;
  if (msg === undefined || msg === null) return undefined;
  if (typeof msg === "object") return pluralForm(lang, msg, vars.n ?? vars.count ?? 0);
  return msg;
}

/**
 * The message ``key`` in the current language with its "{name}" placeholders filled from
 * ``vars``; English when the catalogue lacks it, and the key itself when no catalogue has it
 * (so a missing word shows as its key, never as nothing).
 */
export function t(key, vars = {}) {
  const msg = lookup(current, key, vars) ?? lookup(DEFAULT_LANGUAGE, key, vars) ?? key;
  return String(msg).replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** True when a catalogue in use has the key (for optional words, e.g. a server code). */
export const has = (key) => !!((catalogues[current] && key in catalogues[current]) || (catalogues[DEFAULT_LANGUAGE] && key in catalogues[DEFAULT_LANGUAGE]));

async function fetchCatalogue(lang) {
  if (catalogues[lang]) return catalogues[lang];
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`the ${lang} catalogue could not be loaded (status ${res.status})`);
  catalogues[lang] = await res.json();
  return catalogues[lang];
}

/** Called with the new language after every setLanguage (the page re-renders its screen). */
export function onLanguage(fn) { listeners.add(fn); return () => listeners.delete(fn); }

/**
 * Switch to ``lang`` (one of LANGUAGES), loading its catalogue, remembering the choice
 * across reloads unless ``remember`` is false, and telling the listeners.
 */
export async function setLanguage(lang, { remember = true } = {}) {
  if (!LANGUAGES[lang]) throw new Error(`unknown language "${lang}": use one of ${Object.keys(LANGUAGES).join(", ")}`);
  await fetchCatalogue(DEFAULT_LANGUAGE);
  await fetchCatalogue(lang);
  current = lang;
  if (remember) store.set(STORE_KEY, lang);
  if (globalThis.document) {
    document.documentElement.lang = lang;
    // The line labels' column is as wide as this language's longest line word (style.css).
    const longest = Math.max(...["line.top", "line.middle", "line.bottom"].map((k) => t(k).length));
    document.documentElement.style.setProperty("--line-word-chars", String(longest));
    translateDOM(document);
  }
  for (const fn of listeners) fn(lang);
  return lang;
}

/** The page's first language: the stored switch or the browser's languages. */
export function startLanguage() {
  const nav = globalThis.navigator;
  const preferred = nav ? (nav.languages && nav.languages.length ? nav.languages : [nav.language]) : [];
  return setLanguage(pickLanguage(preferred, store.get(STORE_KEY, null)), { remember: false });
}

/**
 * Fill the static markup: data-i18n="key" sets the text, data-i18n-title / -placeholder /
 * -aria-label set those attributes.
 */
export function translateDOM(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["title", "placeholder", "aria-label"]) {
    const data = `data-i18n-${attr}`;
    for (const el of root.querySelectorAll(`[${data}]`)) el.setAttribute(attr, t(el.getAttribute(data)));
  }
}

/** A number in the current language's digits and separators. */
export function num(n, options = {}) {
  try { return new Intl.NumberFormat(current, options).format(n); } catch { return String(n); }
}
