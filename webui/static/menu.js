/* Every page loads this. The top bar's language menu (a <details>) closes as a menu does: on
   a tap outside it, or on Escape (its button takes the focus back). Left open, it stood over
   the board: the turn, and a third of the piles. A photo's file picker (file_picker.html)
   names the file chosen, in place of the browser's own words, and a photo sent says how
   much of it has gone (sendPhoto). */
"use strict";

// A photo sent to ``url`` (``body``: its form) saying how much of it has gone: on a phone's
// slow link a large photo took half a minute and more, the page saying only that it was on
// its way. ``sent(percent)`` is told as it goes (100 once the whole photo is sent and it is
// being read). Resolves to the answer (an XMLHttpRequest: its status, responseText and
// responseURL, redirects followed); rejects where the network failed (the server gone, the
// connection cut): the caller says so in the page's language, as the rejection's own words
// are the script's (English).
function sendPhoto(url, body, sent) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) sent(Math.floor((100 * e.loaded) / e.total));
    });
    xhr.upload.addEventListener("load", () => sent(100));
    xhr.addEventListener("load", () => resolve(xhr));
    xhr.addEventListener("error", () => reject(new TypeError("the photo could not be sent")));
    xhr.send(body);
  });
}

(() => {
  for (const input of document.querySelectorAll("input.file-input")) {
    const name = document.getElementById(`${input.id}-name`);
    const say = () => { name.textContent = input.files.length ? input.files[0].name : name.dataset.none; };
    input.addEventListener("change", say);
    if (input.files.length) say();  // a file the browser kept (the back button)
  }

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
