// The page's markup helper: html`` escapes every interpolated value unless it is markup
// html`` made or raw() vouched for, and the page is written only through setHTML & co.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { appendHTML, html, joinHTML, raw, replaceHTML, SafeHTML, setHTML, textWith } from "../../src/chinese_poker/server/static/js/util.js";
import { timerHTML } from "../../src/chinese_poker/server/static/js/clock.js";
import { profileHTML } from "../../src/chinese_poker/server/static/js/profile.js";
import { useCatalogues } from "../../src/chinese_poker/server/static/js/i18n.js";

const en = JSON.parse(readFileSync(new URL("../../src/chinese_poker/server/static/i18n/en.json", import.meta.url), "utf8"));

const text = (markup) => (assert.ok(markup instanceof SafeHTML), markup.markup);

test("html: text values are escaped, in content and in attributes", () => {
  const name = `<img src=x onerror="alert('1')">&`;
  assert.equal(text(html`<b title="${name}">${name}</b>`),
    `<b title="&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62;&#38;">&#60;img src=x onerror=&#34;alert(&#39;1&#39;)&#34;&#62;&#38;</b>`);
  assert.equal(text(html`<i>${7}</i><i>${-1.5}</i><i>${0}</i><i>${true}</i>`), "<i>7</i><i>-1.5</i><i>0</i><i>true</i>");
});

test("html: a plain string is text even when it looks like markup", () => {
  const built = "<b>bold</b>";
  assert.equal(text(html`<p>${built}</p>`), "<p>&#60;b&#62;bold&#60;/b&#62;</p>");
  // The template's own strings are the author's markup, never escaped.
  assert.equal(text(html`<a href="/x?a=1&b=2">go</a>`), `<a href="/x?a=1&b=2">go</a>`);
});

test("html: nested html`` and raw() are kept as they are, once", () => {
  const inner = html`<b>${"a&b"}</b>`;
  assert.equal(text(html`<p>${inner}</p>`), "<p><b>a&#38;b</b></p>");
  assert.equal(text(html`<p>${html`<i>${inner}</i>`}</p>`), "<p><i><b>a&#38;b</b></i></p>");
  assert.equal(text(html`<p>${raw("<span class=\"card\">A</span>")}</p>`), `<p><span class="card">A</span></p>`);
  assert.equal(String(inner), "<b>a&#38;b</b>");
});

test("html: arrays put their items in order, each escaped unless markup", () => {
  const rows = ["x<y", html`<td>${"1 & 2"}</td>`, ["deep", html`<br>`]];
  assert.equal(text(html`<tr>${rows}</tr>`), "<tr>x&#60;y<td>1 &#38; 2</td>deep<br></tr>");
  assert.equal(text(html`<ul>${[]}</ul>`), "<ul></ul>");
  assert.equal(text(html`<ul>${["a", "b"].map((x) => html`<li>${x}</li>`)}</ul>`), "<ul><li>a</li><li>b</li></ul>");
});

test("html: null and undefined show nothing (an absent optional part), booleans their word", () => {
  assert.equal(text(html`<p>${null}|${undefined}|${""}</p>`), "<p>||</p>");
  assert.equal(text(html`<a aria-selected="${false}"></a><a aria-selected="${true}"></a>`), `<a aria-selected="false"></a><a aria-selected="true"></a>`);
});

test("joinHTML: a separator between the items, each escaped unless markup", () => {
  assert.equal(text(joinHTML(["a<", html`<i>b</i>`, "c"], ", ")), "a&#60;, <i>b</i>, c");
  assert.equal(text(joinHTML([], " & ")), "");
  assert.equal(text(joinHTML(["x", "y"], " & ")), "x &#38; y");
});

test("SafeHTML cannot be changed after it is made", () => {
  const m = html`<b>x</b>`;
  assert.throws(() => { "use strict"; m.markup = "<script>"; }, TypeError);
  assert.equal(m.markup, "<b>x</b>");
});

test("setHTML, replaceHTML and appendHTML write html`` markup and refuse a plain string", () => {
  // A stand-in for an element (no DOM under node): what the writes set or call.
  const el = /** @type {any} */ ({ innerHTML: "old", outerHTML: "old", added: [], insertAdjacentHTML(where, m) { this.added.push([where, m]); } });
  setHTML(el, html`<b>${"<"}</b>`);
  assert.equal(el.innerHTML, "<b>&#60;</b>");
  replaceHTML(el, html`<div id="x"></div>`);
  assert.equal(el.outerHTML, `<div id="x"></div>`);
  appendHTML(el, html`<p>${"a"}</p>`);
  assert.deepEqual(el.added, [["beforeend", "<p>a</p>"]]);
  for (const write of [setHTML, replaceHTML, appendHTML]) {
    assert.throws(() => write(el, /** @type {any} */ ("<b>plain</b>")), /must come from html`` or raw\(\), not a plain string/);
  }
  assert.equal(el.innerHTML, "<b>&#60;</b>");
  assert.equal(el.outerHTML, `<div id="x"></div>`);
  assert.equal(el.added.length, 1);
});

test("textWith: the markup goes where the marker stands, taken literally (no $& patterns)", () => {
  assert.equal(text(textWith("Signed up as \u0000 <ok>", "\u0000", html`<b>${"a$&b$'c"}</b>`)), "Signed up as <b>a$&#38;b$&#39;c</b> &#60;ok&#62;");
  // The profile's id line is built this way: an id with "$&" in it shows as it is.
  useCatalogues({ en }, "en");
  assert.match(String(profileHTML({ id: "p$&1", kind: "human", name: "Ann", families: [], history: {} })), /<code id="profile-id">p\$&#38;1<\/code>/);
});

test("a clock's title and text are escaped like every other catalogue text", () => {
  useCatalogues({ en: { ...en, "clock.title": 'Time "to move" <now>', "clock.left": "{s} s & counting" } }, "en");
  const markup = String(timerHTML({ left: 3.2, limit: 30, bank: 0, inBank: false }, 1));
  assert.match(markup, /title="Time &#34;to move&#34; &#60;now&#62;"/);
  assert.match(markup, /<span class="text">4 s &#38; counting<\/span>/);
  useCatalogues({ en }, "en");
});
