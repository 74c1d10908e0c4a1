/* The top bar's language menu (a <details>) closes as a menu does: on a tap outside it, or
   on Escape (its button takes the focus back). Left open, it stood over the board: the
   turn, and a third of the piles. Every page has the menu, so every page loads this. */
"use strict";

(() => {
  const menu = document.querySelector("details.langs");
  if (!menu) return;
  // pointerdown, not click: a tap on a part of the page that is no control sends no click
  // on some phones; the tap itself still does what it does
  document.addEventListener("pointerdown", (e) => {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !menu.open) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
})();
