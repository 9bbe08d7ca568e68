// @ts-check
// The top bar's menu on a phone: the desk links, the four-colour switch and the language
// take a second row of the bar only when asked for (in Russian or Latvian the links
// scrolled sideways, "Учёба" cut to "Уч", beside the connection and the chat button).
// On a wider screen the button is hidden (style.css) and the bar shows them all.

const bar = document.getElementById("topbar");
const button = document.getElementById("menu-button");

/** Open or close the menu; the button says which. */
function setOpen(open) {
  if (!bar || !button) return;
  bar.classList.toggle("menu-open", open);
  button.setAttribute("aria-expanded", String(open));
}

if (bar && button) {
  button.addEventListener("click", () => setOpen(!bar.classList.contains("menu-open")));
  // A link followed or a language chosen has done what the menu was opened for.
  bar.addEventListener("click", (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest(".desklinks a")) setOpen(false);
  });
  document.getElementById("lang")?.addEventListener("change", () => setOpen(false));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && bar.classList.contains("menu-open")) {
      setOpen(false);
      button.focus();
    }
  });
}
