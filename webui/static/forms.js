/* The form pages' small behaviours (the new-game form, a refused form's answer). The pages
   allow no inline script (Content-Security-Policy), so they live here. */
"use strict";

(() => {
  // After a refused form, the reason is read first. A wrong join code stays in its field,
  // selected: typed over, or corrected where one digit was wrong; the field takes the focus,
  // and says the reason (it is described by it).
  const retype = document.querySelector("input[data-retype]");
  if (retype) {
    retype.focus();
    retype.select();
  } else document.getElementById("form-error")?.focus();

  // A refused form's answer goes back to the form, with what was typed.
  for (const button of document.querySelectorAll("[data-back]")) {
    button.addEventListener("click", () => history.back());
  }

  const players = document.querySelector("#new-game [name=players]");
  const names = document.querySelector("#new-game [name=names]");
  // The names typed, apart as the server reads them (its separators: the field's data-split)
  const typedNames = () => names.value.split(new RegExp(names.dataset.split))
    .map((s) => s.trim()).filter(Boolean);

  // More names typed than players: the players are as many as the names (up to the most the
  // game takes: the field's max, the server's number), and what follows the players (the
  // dealer's list, the usual stock) follows them, as the names are typed. The rule is the
  // server's (games.parse_setup, for the API as for this form): this only shows it before
  // Start. Fewer names leave the number as it is: the seats left over are "Player N".
  if (players && names) {
    names.addEventListener("input", () => {
      const n = Math.min(typedNames().length, +players.max);
      if (n > (+players.value || 0)) {
        players.value = String(n);
        players.dispatchEvent(new Event("input"));
      }
    });
  }

  // Who will play, said under the names as they are typed: a seat left without a name plays
  // as "Player 3", is dealt cards and has turns (the game waits for it), so "3 players: Mormor,
  // Jens and Player 3" shows it before Start. The form is not refused: a host may mean it.
  const who = document.getElementById("who-plays");
  if (who && players && names) {
    const tell = () => {
      const n = Math.max(0, Math.min(+players.max, Math.floor(+players.value || 0)));
      const given = typedNames();
      const seats = Array.from({ length: n }, (_, k) => given[k]
        ? document.createTextNode(given[k])
        : Object.assign(document.createElement("strong"), { textContent: who.dataset.player.replace("{n}", k + 1) }));
      if (!seats.length) { who.replaceChildren(); return; }
      const list = [];
      seats.forEach((seat, k) => {
        if (k) list.push(k === seats.length - 1 ? who.dataset.and : ", ");
        list.push(seat);
      });
      const [before, after] = (n === 1 ? who.dataset.one : who.dataset.many).replace("{n}", n).split("{names}");
      who.replaceChildren(before, ...list, after ?? "");
    };
    players.addEventListener("input", tell);
    names.addEventListener("input", tell);
    tell();
  }

  // Sten's dealer is one of the players named (the last, as the players change, until one
  // is chosen; the next game's deal passes on by itself).
  const sel = document.getElementById("dealer");
  if (sel && players && names) {
    let chosen = sel.dataset.typed || "";  // a refused form's choice is kept
    sel.addEventListener("change", () => { chosen = sel.value; });
    const fill = () => {
      const n = Math.max(0, Math.min(+players.max, +players.value || 0));
      const given = typedNames();
      const keep = chosen || String(n);
      sel.replaceChildren(...Array.from({ length: n }, (_, k) =>
        new Option(given[k] || sel.dataset.player.replace("{n}", k + 1), String(k + 1))));
      sel.value = +keep >= 1 && +keep <= n ? keep : String(n);
    };
    players.addEventListener("input", fill);
    names.addEventListener("input", fill);
    fill();
  }

  // Start tapped again while the form is on its way (a slow network, a photo of the road)
  // sends nothing: a second copy made a second table. The page says at once that it works
  // ("Reading the road photo…": sent and read, a photo took 2-7 s, and the page stood still,
  // so Start was tapped again), its button greyed. Unanswered after 30 s, or shown again by
  // the back button (the browser may keep the page as it was), the form may be sent again.
  const form = document.getElementById("new-game");
  if (form) {
    const button = form.querySelector("button[type=submit]");
    const status = document.getElementById("start-status");
    let sentAt = 0, again = 0;
    const ready = () => {
      sentAt = 0;
      clearTimeout(again);
      button.disabled = false;
      status.textContent = "";
    };
    form.addEventListener("submit", (e) => {
      if (Date.now() - sentAt < 30000) { e.preventDefault(); return; }
      sentAt = Date.now();
      const photo = form.querySelector("[name=road_photo]");
      const road = form.querySelector("[name=road]");
      const reads = photo && photo.files.length && !(road && road.value.trim());
      status.textContent = reads ? status.dataset.photo : status.dataset.start;
      button.disabled = true;  // the form goes as it is; Enter in a field sends nothing more
      clearTimeout(again);
      again = setTimeout(() => { button.disabled = false; }, 30000);
      if (reads) {  // sent by the page, saying how much of the photo has gone
        e.preventDefault();
        sendRoadPhoto(new FormData(form), ready);
      }
    });
    window.addEventListener("pageshow", ready);
  }

  // A road photo sent with the form, how much of it has gone said under Start, then that it
  // is read. The answer is what the browser would have shown: the table's page, or the form
  // again saying what was wrong.
  async function sendRoadPhoto(body, ready) {
    const status = document.getElementById("start-status");
    const said = (percent) => {
      status.textContent = percent < 100
        ? status.dataset.sending.replace("{percent}", percent) : status.dataset.photo;
    };
    said(0);
    let answer;
    try {
      answer = await sendPhoto(form.action, body, said);
    } catch {  // not sent: the server gone or the connection cut
      ready();
      status.textContent = status.dataset.notSent;
      return;
    }
    if (answer.status < 400 && answer.responseURL !== form.action) {
      location.assign(answer.responseURL);  // the table made: its page
      return;
    }
    document.open();  // the form again, as the browser shows a refused form's answer
    document.write(answer.responseText);
    document.close();
  }

  // A Skip-Bo stock left empty is the usual one for the players chosen: its placeholder says
  // how many cards that is.
  const stock = document.querySelector("#new-game [name=stock]");
  if (players && stock) {
    const usual = JSON.parse(stock.dataset.usual);
    const say = () => { stock.placeholder = usual[players.value] ?? ""; };
    players.addEventListener("input", say);
    say();
  }

  // A solo player's tokens matter only with one player.
  const solo = document.getElementById("solo-tokens");
  if (players && solo) {
    const show = () => { solo.hidden = players.value !== "1"; };
    players.addEventListener("input", show);
    show();
  }
})();
