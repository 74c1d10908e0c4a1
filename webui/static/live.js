/* Kortbord live pages: follow the table over server-sent events, make moves by tapping. */
"use strict";

const Kortbord = (() => {
  let cfg, snap, T, selected = null, source = null, sending = false, joinOpened = false;
  let sent = null, untaken = null, pickedWhileSending = false;
  const TOAST_LINES = 3;  // messages shown at once, the oldest going first
  const ANSWER_MS = 10000;  // a change not answered by then is given up (the page says so)
  const $ = (id) => document.getElementById(id);
  const el = (...a) => Board.el(...a);

  // "{name}s" said of a name ending in s, x or z (webui/i18n.py: POSSESSIVE_AFTER_S)
  const AFTER_S = { da: "'", sv: "" }[document.documentElement.lang];

  function t(key, fields) {
    // "{n} cards" with n = 1 has its own sentence ("cards_one") where the page has one
    if (fields && fields.n === 1 && T[`${key}_one`]) key = `${key}_one`;
    let s = T[key] || key;
    for (const [k, v] of Object.entries(fields || {})) {
      if (AFTER_S !== undefined && /[sxz]$/i.test(String(v))) s = s.replaceAll(`{${k}}s`, `{${k}}${AFTER_S}`);
      s = s.replaceAll(`{${k}}`, v);
    }
    return s;
  }

  function player(seat) {
    return snap.table.players[seat] || { name: `#${seat + 1}`, colour: "#666" };
  }

  const ctx = {
    t, player,
    play: (move) => act("moves", { move }),
    playMany: (moves) => act("moves", { moves }),
    // a card picked while a change is on its way was picked for after it (kept if it may)
    select: (key) => { selected = key; pickedWhileSending = sending && key !== null; render(); },
    note: (msg) => toast(msg, true),  // why a tap did nothing
    selected: () => selected,
    handOnBoard: () => handOnBoard(),
  };

  function base() { return cfg.api; }

  // Resolves to true (done), false (refused: the toast says why) or null (not judged: a change
  // is already on its way, the server was not reached, or the table had moved on; the
  // toast says which).
  // Every change names the position the page showed: the server refuses it if the table has
  // moved on (a tap that arrives twice, another device that was quicker).
  //
  // One change at a time: a tap made while one is on its way is not sent. The same tap again
  // (a double tap) is that change, so nothing is said; another tap is said not taken, and
  // not sent after the answer either: it was aimed at a page about to change (the turn
  // passes, a pile grows), and the live update often redraws the page before the answer
  // comes, so the second half of a double tap may land on another button than it meant.
  // Undo (or redo) tapped again is said not taken too: it may mean a second undo, which
  // would take back a move the page has not shown yet, so it is the user's to tap again.
  async function act(what, body) {
    const asked = JSON.stringify([what, body || {}]);
    if (sending) {
      if (asked !== sent || what === "undo" || what === "redo") notTaken(what, body);
      return null;
    }
    sent = asked;
    untaken = null;
    sending = true;
    document.body.classList.add("sending");
    const timer = new AbortController();
    const giveUp = setTimeout(() => timer.abort(), ANSWER_MS);
    try {
      const r = await fetch(`${base()}/${what}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ...(body || {}), position: snap.position }), signal: timer.signal,
      });
      const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
      if (!r.ok) {
        toast(withUntaken(cap(data.error || `HTTP ${r.status}`)), true);
        catchUp();  // refused: perhaps this page missed a change (a dropped live connection)
        // not judged: made on a position left behind, too many tries, the server's trouble
        if (data.moved || r.status === 429 || r.status >= 500) return null;
        return false;  // refused by the game (409), or not a change it can read
      }
      if (!pickedWhileSending) selected = null;
      accept(data);
      return true;
    } catch (e) {
      // Cut off, it was not sent; else it may have been taken with its answer lost on the
      // way: the board tells (a second tap is refused if the first one was taken).
      const cut = !navigator.onLine || document.body.classList.contains("offline");
      toast(withUntaken(t(cut ? "not_sent" : "no_answer")), cut || Boolean(untaken));
      catchUp();
      return null;
    } finally {
      clearTimeout(giveUp);
      sending = false;
      pickedWhileSending = false;
      document.body.classList.remove("sending");
    }
  }

  // A tap not taken says so at once, and again beside what the answer says (a refusal's
  // toast would hide it): named by its move's words where it has them.
  function notTaken(what, body) {
    const move = what === "moves" && body && body.move ? JSON.stringify(body.move) : null;
    const shown = move && snap.moves.find((m) => JSON.stringify(m.move) === move);
    if (shown) untaken = t("tap_not_taken_move", { move: shown.label });
    else if (what === "undo" || what === "redo") untaken = t(`${what}_not_taken`);
    else untaken = t("tap_not_taken");
    toast(untaken, true);
  }

  const withUntaken = (text) => (untaken ? `${text} ${untaken}` : text);

  // A mouse's click is a press and a release: an update drawn between them (another device's
  // change, the camera's state) replaced what was pressed, and the click went to no button.
  // What comes while a button is held waits until the click it made is taken (or the button
  // is let go elsewhere; a press that never hears its release lets go after PRESS_HELD_MS).
  let pressed = false, pressTimer = null;
  const waiting = [];
  const PRESS_HELD_MS = 3000;

  function press() {
    pressed = true;
    clearTimeout(pressTimer);
    pressTimer = setTimeout(letGo, PRESS_HELD_MS);
  }

  function letGo() {
    if (!pressed) return;
    pressed = false;
    clearTimeout(pressTimer);
    for (const [s, fresh] of waiting.splice(0)) accept(s, fresh);
  }

  window.addEventListener("pointerdown", press, { capture: true, passive: true });
  window.addEventListener("click", letGo);  // after the control's own handler
  window.addEventListener("pointerup", () => setTimeout(letGo), { capture: true, passive: true });
  for (const kind of ["pointercancel", "blur"]) window.addEventListener(kind, letGo, { passive: true });

  // Whether two snapshots say the same, their keys in any order (the page's own came sorted)
  function same(a, b) {
    if (a === b) return true;
    if (!a || !b || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }

  function catchUp() {
    fetch(base()).then((s) => (s.ok ? s.json() : null)).then((s) => s && accept(s)).catch(() => {});
  }

  // A snapshot of the version shown is the same snapshot (the server caches one per version):
  // drawing it again would only replace the buttons under a finger about to tap them. An
  // older one (a live update overtaken by a change's answer) would turn the board back.
  // fresh: a new connection's first snapshot, the table as it is now. From a server started
  // again it is taken whatever its version (its clock behind gives lower ones). From this run
  // of the server it may be older than a change's answer that came first (the connection
  // opened, then a tap's answer overtook its first snapshot): the board went back a move, and
  // the next tap was refused. Most often it is the table the page shows (its first live
  // update, a reconnection that missed nothing), and drawn again it replaced the card a
  // finger had just come down on: the tap was lost.
  function accept(s, fresh) {
    if (pressed) { waiting.push([s, fresh]); return; }
    if (snap && !(fresh && s.run !== snap.run)) {
      if (s.version < snap.version) return;
      if (s.version === snap.version && (!fresh || same(s, snap))) return;
    }
    // A tapped card stays picked through updates that change no move (the camera's state,
    // a notice): only a new move, an undo or the next game makes it stale; one picked while
    // the move before it was on its way was picked for after it, and stays while it has a move.
    if (selected && (s.moves_made !== snap.moves_made || s.table.number !== snap.table.number)) {
      const after = pickedWhileSending && s.table.number === snap.table.number;
      if (!(after && s.moves.some((m) => Board.srcKey(m.move) === selected))) {
        if (after) toast(t("pick_gone"), true);
        selected = null;
        pickedWhileSending = false;
      }
    }
    snap = s;
    render();
  }

  // The toast's live region is on the page from the start, so its first message is said too;
  // a refusal stays long enough to be read. Each message is a line of its own with its own
  // time: two said at once (a tap not taken, then a picked card let go) are both read, the
  // later under the earlier. A message said again, or said again with more (a refusal that
  // adds the tap not taken), takes the place of the line it repeats.
  function toast(msg, bad) {
    let box = $("toast");
    if (!box) { box = el("div", { id: "toast", class: "toast", role: "status" }); document.body.append(box); }
    for (const old of box.querySelectorAll(".toast-line")) {
      if (String(msg).includes(old.dataset.msg)) dropLine(box, old);
    }
    const line = el("div", { class: "toast-line" + (bad ? " bad" : "") });
    line.dataset.msg = String(msg);
    line.replaceChildren(...spokenNodes(msg));
    box.append(line);
    const lines = box.querySelectorAll(".toast-line");
    if (lines.length > TOAST_LINES) dropLine(box, lines[0]);
    line.timer = setTimeout(() => dropLine(box, line), bad ? 10000 : 4000);
    showLines(box);
  }

  function dropLine(box, line) {
    clearTimeout(line.timer);
    line.remove();
    showLines(box);
  }

  function showLines(box) {
    const lines = box.querySelectorAll(".toast-line");
    const bad = box.querySelector(".toast-line.bad");
    box.className = "toast" + (lines.length ? " show" : "") + (bad ? " bad" : "");
  }

  // ---- keyboard focus: kept through a redraw ---------------------------------------------
  // The board, the hand and the moves are drawn anew on every change; the control that had
  // the focus is found again by what it is (its id, or its box and key, code, kind and text).
  function focusKey(e) {
    if (!e || e === document.body || !e.closest) return null;
    if (e.id) return { id: e.id };
    const box = e.closest("[id]");
    if (!box) return null;
    const same = (x) => x.tagName === e.tagName && x.dataset.key === e.dataset.key
      && x.dataset.code === e.dataset.code && x.dataset.kind === e.dataset.kind
      && x.textContent === e.textContent;
    return { box: box.id, same, nth: [...box.querySelectorAll(e.tagName)].filter(same).indexOf(e) };
  }

  function refocus(k) {
    if (!k || (document.activeElement && document.activeElement !== document.body)) return;
    let target = k.id ? $(k.id) : null;
    const box = k.box ? $(k.box) : null;
    const focusable = "button:not([disabled]), a[href], summary, [tabindex]";
    if (box) {
      const found = [...box.querySelectorAll(focusable)].filter(k.same);
      // gone (the card was played): the box's first control; still on turn, the hand
      const onTurn = snap.seat !== null && snap.to_move === snap.seat;
      target = found[Math.max(0, k.nth)] || found[0] || box.querySelector(focusable)
        || (onTurn && $("hand") ? $("hand").querySelector("button") : null);
    }
    // a control in a closed box (the road's, after it was used) cannot take the focus
    if (!target || !target.matches(focusable) || !target.getClientRects().length) target = $("turn-chip");
    if (!target) return;
    target.focus({ preventScroll: true });
    const r = target.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) target.scrollIntoView({ block: "nearest" });
  }

  // ---- boxes opened or closed by the user: kept through a redraw ---------------------------
  // Every update redraws the page (a move, a camera's picture): a box the user opened or
  // closed ("Every move you can make", the road's) is drawn as they left it, a box they left alone as the
  // page opens it. Read off the page before each redraw, not from "toggle" events: a tap
  // opens a box at once but its event comes a moment later, and an update drawn in between
  // closed the box just opened.
  const boxesLeft = new Map();  // a box's name: open, as the user left it

  function keepBoxes() {
    for (const box of document.querySelectorAll("details[data-keep]")) {
      if (box.open !== (box.dataset.drawnOpen === "true")) boxesLeft.set(box.dataset.keep, box.open);
    }
  }

  // A <details> named ``name``, open as the user left it, or else as ``byDefault`` says.
  function keptBox(name, byDefault, attrs, ...kids) {
    const open = boxesLeft.has(name) ? boxesLeft.get(name) : Boolean(byDefault);
    return el("details", { ...attrs, "data-keep": name, "data-drawn-open": String(open), open }, ...kids);
  }

  // ---- rendering -----------------------------------------------------------------------
  function render() {
    const focused = focusKey(document.activeElement);
    draw();
    refocus(focused);
    layJoinBox();
  }

  // The players' codes sized first: their size moves the join line the link is shown for.
  function layJoinBox() {
    evenCodes();
    placeJoinJump();
  }

  // The players' QR codes, one size: a card widened by its name ("Anne-Kristine", kept
  // whole) drew its code larger than the others' (100 px beside 88); each is drawn as large
  // as the narrowest card has room for (app.css: --qr). Measured open, as laid out by itself.
  function evenCodes() {
    const grid = document.querySelector(".join-box[open] .qr-grid");
    if (!grid || !grid.querySelector("img")) return;
    grid.style.removeProperty("--qr");
    const room = Math.min(...[...grid.querySelectorAll("img")].map((i) => i.getBoundingClientRect().width));
    if (room > 0) grid.style.setProperty("--qr", `${Math.floor(room)}px`);
  }

  function joinBoxKept() {
    document.querySelector(".join-box")?.addEventListener("toggle", layJoinBox);
    window.addEventListener("resize", layJoinBox);
    window.addEventListener("load", layJoinBox);  // the page's fonts in: the names' widths
  }

  // The table's join code and its own QR code (a late player's, another device's) stand
  // under the players' codes, beside each other: on a laptop's first screen, but where what
  // stands above them (a Stigespill road still to lay out, a hint) puts them under it, a
  // link under the box's heading says they are there and takes the page to them.
  function placeJoinJump() {
    const jump = document.querySelector(".join-jump"), line = $("join-line");
    if (!jump || !line) return;
    jump.hidden = true;  // measured without it: the link itself puts them lower
    jump.hidden = !(line.closest("details").open && line.getBoundingClientRect().bottom + scrollY > innerHeight);
  }

  function joinJump() {
    const jump = document.querySelector(".join-jump");
    if (!jump) return;
    jump.querySelector("a").addEventListener("click", (e) => {
      e.preventDefault();  // no #join-line kept in the address (a reload would scroll there)
      $("join-line").scrollIntoView({ block: "center" });
    });
  }

  // Text with cards in it, shown as it is ("Anna laid 7♥") and said in the page's words
  // ("Anna laid 7 of hearts"): a screen reader names a symbol in its own voice ("7 black
  // heart suit"), whatever the page's language.
  function spokenNodes(text) {
    const said = Board.saidText(text);
    if (said === text) return whole(text);
    return [el("span", { "aria-hidden": "true" }, whole(text)), el("span", { class: "sr-only", text: said })];
  }

  // Text whose players' names keep their hyphens on one line ("Åse-Marie"): Board.keptWhole
  const whole = (text) => Board.keptWhole(text, snap.table.players);

  // Set a live region's text only when it changes: a screen reader says it again otherwise.
  function say(node, text) {
    if (!node || node.dataset.said === text) return;
    node.dataset.said = text;
    node.replaceChildren(...spokenNodes(text));
  }

  // The referee's sentences start in lower case (they are parts of others too): shown alone,
  // a sentence starts with a capital.
  const cap = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);

  // A button whose text shows cards ("Anna lays 7♥") names them for a screen reader in words
  // ("Anna lays 7 of hearts"), where the name still holds what is shown (a voice control
  // user says that): else the text stays its name, its symbols said by the screen reader.
  const plain = (text) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  const spokenLabel = (text) => {
    const said = Board.saidText(text);
    return said !== text && ` ${plain(said)} `.includes(` ${plain(text)} `) ? said : null;
  };

  // One device for everyone: the hand of the player on turn stays covered until that player
  // taps, so the others (who just passed the device) do not see it.
  let handSeat = null, handShown = false, curtain = false;

  function curtained() {
    if (cfg.mode !== "table" || !snap.table.open || !Array.isArray(snap.view.hand) || snap.over
      || snap.to_move < 0) return false;
    if (snap.to_move !== handSeat) { handSeat = snap.to_move; handShown = false; }
    return !handShown;
  }

  // Skip-Bo on a phone (the page one column), on one device or on a player's own phone: the
  // hand stands in its player's seat on the board, under their stock and discard piles, that
  // seat under the building piles, and what to tap and the hint under the hand. Below the
  // board it stood a screen and more under the piles, so each card took a scroll down to pick
  // it and up to lay it. The hand's box is the board's to place (``ctx.handOnBoard``), and
  // goes back beside the moves where it is not placed; so does the hint. At a game's end on
  // one device "Next game" stands where the hand stood.
  const ONE_COLUMN = window.matchMedia("(max-width: 899.98px)");
  // ...Home: where the page had each box the board may take in (homeOf)
  let handBoxEl = null, handHome = null, handHead = null, hintEl = null, hintHome = null;
  let seatTip = null, seatDo = null, undoRow = null, undoHome = null;
  // a player's own phone at a real table: "Take back my move"
  let undoMine = null, undoMineHome = null;

  // Where the page had ``e``: [its parent, what followed it]
  const homeOf = (e) => e && [e.parentNode, e.nextSibling];
  // ``e`` back where the page had it, once the board (drawn anew) no longer holds it
  function putBack(e, home) { if (!e.isConnected) home[0].insertBefore(e, home[1]); }

  function handOnBoard() {
    if (snap.table.game !== "skipbo" || !ONE_COLUMN.matches) return null;
    if (cfg.mode === "player") return [handBoxEl, seatTip];
    if (cfg.mode !== "table" || !snap.table.open) return null;
    if (snap.over) return seatDo;
    return Array.isArray(snap.view.hand) ? [handBoxEl, seatTip] : null;
  }

  function draw() {
    keepBoxes();
    boardTopWas = $("board").getBoundingClientRect().top;  // where the board stood (keepPromptSpace)
    document.body.dataset.version = snap.version;
    document.body.dataset.moves = snap.moves_made;
    curtain = curtained();
    renderTurn();
    // covered, the board offers no move either: its playable places would tell the hand
    seatTip = el("div", { class: "seat-tip" });  // fresh places on the board: see handOnBoard
    seatDo = el("div", { class: "pile-do" });
    Board.render($("board"), curtain ? { ...snap, moves: [] } : snap, ctx);
    // not placed on the board: back beside the moves, the hint first (the table page's hand
    // stands before it)
    if (seatTip.isConnected) seatTip.append(hintEl);
    else putBack(hintEl, hintHome);
    const handBox = handPlace();
    // one device: Undo and Redo under the hint, below the hand (the taps that lay a card land
    // on the piles above it), shown there once there is something to take back
    if (undoRow) {
      const inSeat = seatTip.isConnected;
      if (inSeat) seatTip.append(undoRow);  // last (app.css), under what to tap too
      else putBack(undoRow, undoHome);
      undoRow.hidden = inSeat && !snap.can_undo && !snap.can_redo;
    }
    if (undoMine) {
      const near = takeBackPlace();
      if (near) near.append(undoMine);
      else putBack(undoMine, undoMineHome);
    }
    // a player's page: "Your hand" heads nothing once the hand stands on the board
    if (handHead) handHead.hidden = !handBoxEl.parentElement.classList.contains("panel");
    if (handBox) {
      // the table's page shows a hand only when one device serves everyone
      const show = cfg.mode === "player" || Array.isArray(snap.view.hand);
      handBox.hidden = !show;
      if (show && curtain) {
        handBox.replaceChildren(el("button", { class: "btn btn-big", type: "button", id: "show-hand",
          onclick: () => {
            handShown = true;
            render();
            // the button is gone: on to the hand (or the moves), not back to the turn line
            const next = $("hand").querySelector("button") || $("moves").querySelector("button");
            if (next) next.focus();
          } }, el("span", {}, whole(t("show_hand", { name: player(snap.to_move).name })))));  // one flex item
      } else if (show) Board.hand(handBox, snap, ctx);
      if (cfg.mode === "player") renderNotes();
    }
    say($("last"), cap(snap.last || ""));
    renderPrompt();
    renderHint();
    renderChance();
    renderMoves();
    renderRoadFix();
    renderPlayers();
    renderMatch();
    renderRecord();
    renderZones();
    renderCamera();
    if ($("undo")) { $("undo").disabled = !snap.can_undo; $("redo").disabled = !snap.can_redo; }
    if (undoMine) undoMine.hidden = !snap.can_undo;  // a phone's own last move
    if ($("game-no")) $("game-no").textContent = `${t("game")} ${snap.table.number}`;
    const slot = pileSlot();
    if (slot && !snap.over) slotHeight = slot.getBoundingClientRect().height;
  }

  // A player's phone: "Take back my move" where the finger is after a move, on the first
  // screen. In a Skip-Bo seat, under the hand and the hint (below the piles a card is laid on);
  // in Sten and Stigespill beside the panel's heading, over the hand or the moves: under them
  // it stood below the first screen behind a hand of 13 cards or more (938 px down a 360×740
  // phone). Its place (null: back under the moves, as on a wide screen).
  function takeBackPlace() {
    if (seatTip.isConnected) return seatTip;
    return cfg.mode === "player" && ONE_COLUMN.matches ? $("panel-head") : null;
  }

  // The hand's box, in its place once the board is drawn: in a Skip-Bo seat the board put it
  // there (handOnBoard); with Stigespill's moves under the road when they stand there (a
  // real-cards strategy game on one device); else back in the moves' panel. The board is
  // drawn anew on every change, which takes the box out of it.
  function handPlace() {
    if (!handBoxEl) return null;
    const slot = snap.table.game === "stigespill" && pileSlot();
    if (slot) slot.append(handBoxEl);
    else putBack(handBoxEl, handHome);
    return handBoxEl;
  }

  function renderTurn() {
    const chip = $("turn-chip");
    const before = chip.textContent;
    const drawn = el("div");
    turnChip(drawn);
    if (drawn.textContent === before && chip.className === drawn.className) return;  // not news
    chip.className = drawn.className;
    chip.replaceChildren(...drawn.childNodes);
  }

  function turnChip(chip) {
    if (snap.over) {
      const names = (snap.winner_names || []).join(", ");
      chip.className = "turn-chip over";
      // a game of a match that goes on is won, not the match
      const won = snap.match && !snap.match.over ? t("won_game", { names, n: snap.table.number }) : t("won", { names });
      chip.append(el("span", {}, whole(names ? `★ ${won}` : t("over"))));
      return;
    }
    if (snap.to_move === -1) {
      chip.className = "turn-chip chance";
      // the card is dealt to a seat (a Stigespill strategy deal), turned up on a seat's
      // Skip-Bo stock or drawn by the player on turn
      const ch = snap.chance;
      const who = ch && Number.isInteger(ch.about) ? player(ch.about) : null;
      const says = { deal: "dealing", turn_up: "turning_up", draw: "drawing" }[ch && ch.kind] || "drawing";
      if (who) chip.append(el("i", { class: "dot", style: `background:${who.colour}` }));
      chip.append(el("span", {}, whole(who ? t(says, { name: who.name }) : t("chance"))));
      return;
    }
    if (sevenFirst()) {  // whoever holds 7♥ starts: the referee cannot know who
      chip.className = "turn-chip";
      chip.append(el("span", { text: t("who_has_7h") }));
      return;
    }
    const p = player(snap.to_move);
    const mine = snap.seat !== null && snap.seat === snap.to_move;
    chip.className = "turn-chip" + (mine ? " mine" : "");
    chip.append(el("i", { class: "dot", style: `background:${p.colour}` }),
      el("span", {}, whole(mine ? t("your_turn") : t("turn", { name: p.name }))));
  }

  const REFUSAL_SHOWN_MS = 20000;
  let refusalSeen = null, refusalTimed = null, refusalTimer = null;

  // The prompt's box stands above the board: when it went (a prompt answered, a notice
  // dismissed or gone by itself), the board moved up by its height under the finger that
  // answered, onto a pile or a Sten place. Its space is kept, empty, until it is scrolled out
  // of sight above the screen; it goes then, the page scrolled back by as much, so nothing
  // moves on the screen. A prompt or notice shown again takes its place. A prompt answered
  // with a move says there what was done ("✓ Mormor laid 7♥"), as the line under the board does.
  // Not scrolled away (a laptop's page, a phone's short one) it stood for good, empty or
  // saying a move long past: it goes once the page has been left alone a while (no tap, no
  // key), the finger gone from where the board stood.
  let promptSpace = null, promptMoves = null, boardTopWas = 0, spaceTimer = null;
  const SPACE_KEPT_MS = 8000;

  function spaceTimed() {
    clearTimeout(spaceTimer);
    if (promptSpace && promptSpace.isConnected) spaceTimer = setTimeout(dropPromptSpace, SPACE_KEPT_MS);
  }
  for (const kind of ["pointerdown", "keydown"]) window.addEventListener(kind, spaceTimed, { passive: true });

  function keepPromptSpace(box, height, done) {
    promptSpace = promptSpace || el("div", { class: "prompt-space", "aria-hidden": "true" });
    promptSpace.style.height = `${height}px`;
    promptSpace.replaceChildren(...(done ? [el("p", { text: `✓ ${done}` })] : []));
    box.after(promptSpace);
    // what changed above it in the same redraw (the turn chip on one line instead of two)
    // is taken up by the space too: the board stays where it was drawn before
    const moved = $("board").getBoundingClientRect().top - boardTopWas;
    if (moved) promptSpace.style.height = `${Math.max(0, height - moved)}px`;
    spaceTimed();
  }

  function dropPromptSpace() {
    if (!promptSpace || !promptSpace.isConnected) return;
    const below = promptSpace.nextElementSibling;
    const top = below ? below.getBoundingClientRect().top : 0;
    promptSpace.remove();
    // the browser may have kept the page where it was by itself (scroll anchoring): else here
    if (below) window.scrollBy(0, below.getBoundingClientRect().top - top);
  }

  window.addEventListener("scroll", () => {
    if (promptSpace && promptSpace.isConnected && promptSpace.getBoundingClientRect().bottom <= 0) dropPromptSpace();
  }, { passive: true });

  function renderPrompt() {
    const box = $("prompt");
    if (!box) return;
    const pr = snap.prompt, no = snap.notice;
    // drawn again only when it changes: the box is an alert, said once
    const key = JSON.stringify([pr, no, refusalSeen]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    const shown = box.hidden ? 0 : box.offsetHeight + parseFloat(getComputedStyle(box).marginBottom);
    const answered = !box.hidden && box.classList.contains("sync") && snap.moves_made !== promptMoves;
    box.replaceChildren();
    if (pr) {
      box.className = "prompt sync";
      promptMoves = snap.moves_made;
      box.append(el("strong", { text: t("out_of_sync") }), el("p", { text: cap(pr.message || "") }));
      const row = el("div", { class: "prompt-actions" });
      (pr.candidates || []).forEach((c, i) => row.append(el("button", { class: "btn", type: "button",
        text: c.label || `#${i + 1}`, onclick: () => act("prompt", { choice: i }) })));
      row.append(el("button", { class: "btn btn-ghost", type: "button", text: t("dismiss"),
        onclick: () => act("prompt", { dismiss: true }) }));
      box.append(row);
      box.hidden = false;
    } else if (no && !(no.error && no.at === refusalSeen)) {
      box.className = no.check ? "prompt check" : "prompt illegal";
      box.append(el("strong", { text: t(no.check ? "check" : "illegal") }),
        el("p", { text: cap(no.check || no.error) }));
      if (no.error) {  // a refused move's reason: news for a while, and dismissable
        const seen = () => { refusalSeen = no.at; render(); };  // render(): the focus is kept
        box.append(el("div", { class: "prompt-actions" }, [el("button", { class: "btn btn-ghost", type: "button", text: t("dismiss"), onclick: seen })]));
        if (refusalTimed !== no.at) {  // timed from when this page first showed it
          refusalTimed = no.at;
          clearTimeout(refusalTimer);
          refusalTimer = setTimeout(seen, REFUSAL_SHOWN_MS);
        }
      }
      box.hidden = false;
    } else {
      box.hidden = true;
      if (shown) keepPromptSpace(box, shown, answered ? cap(snap.last || "") : "");
    }
    if (!box.hidden && promptSpace) promptSpace.remove();
  }

  function renderHint() {
    const box = $("hint");
    if (!snap.hint || snap.over || curtain) { box.hidden = true; return; }
    let text = snap.hint.text;
    const noted = notedHand();
    if (noted && (snap.to_move === snap.seat || sevenFirst())) {  // said from the cards this phone noted
      const fits = snap.view.board.flatMap((r) => r.fits).filter((c) => noted.has(c));
      const sten = snap.moves.some((m) => m.move.kind === "sten");
      text = fits.length ? t("your_fits", { cards: fits.map(Board.pretty).join(", ") })
        : t(sten ? "none_fits_sten" : "none_fits");
    }
    box.replaceChildren(el("span", { class: "hint-tag", text: t("hint") }), el("span", {}, ...spokenNodes(cap(text))));
    box.hidden = false;
  }

  function renderChance() {
    const box = $("chance");
    box.replaceChildren();
    const ch = snap.chance;
    const reveals = snap.moves.filter((m) => m.move.kind === "reveal");
    if (dealAhead()) { renderDeal(box); return; }
    if (!ch || !ch.mine) { box.hidden = true; return; }
    const slot = pileSlot();  // the die cards by the die pile
    const drawApp = el("button", { class: "btn btn-ghost btn-small", type: "button", id: "draw-app", text: t("draw_app"),
      onclick: () => act("draw", {}) });
    if (slot) {
      const reveal = new Map(reveals.map((m) => [m.move.card, m.move]));
      slot.append(dieGrid(ch.question, [...reveal.keys()], (code) => ctx.play(reveal.get(code))), drawApp);
    } else {
      const grid = el("div", { class: "card-grid" });
      for (const m of reveals) grid.append(Board.card(m.move.card, { small: true, onclick: () => ctx.play(m.move) }));
      box.append(el("p", { class: "question", text: ch.question }), grid, drawApp);
    }
    box.hidden = Boolean(slot);
  }

  // A move the phone's own notes advise against: the first tap asks (the button says why),
  // the second makes it.
  function askFirst(question, action) {
    return (e) => {
      const button = e.currentTarget;
      if (button.dataset.asked) return action();
      button.dataset.asked = "1";
      button.textContent = question;
      button.setAttribute("aria-label", question);  // said, not only shown
      button.classList.add("ask");
    };
  }

  // The game starts on the players' phones (a move, or a card only its owner may enter):
  // the table's page shows their pages' codes before the first move, once. The app's deal
  // is no one's move (a Stigespill strategy game opens with six cards dealt): nothing to
  // take back yet, on the table's page, is before the first move.
  function openJoinBox() {
    const box = document.querySelector(".join-box");
    if (cfg.mode === "table" && !snap.can_undo && !joinOpened && box) joinOpened = box.open = true;
  }

  // Stigespill on the table's page: its moves stand under the road by the die pile (below
  // the board, a phone's first screen cut them off): the app dealing, the classic game's
  // draw; with real cards, the die cards to tap (the one drawn, or dealt), and in the
  // strategy game the hand shown and the draw. When the game ends "Next game" takes their
  // place, the place keeping its height, so a child's quick second tap never lands on Undo
  // (Skip-Bo's on one device on a phone: in the winner's seat, where the hand stood).
  // Its place in the board, else null.
  function pileSlot() {
    if (seatDo.isConnected) return seatDo;  // Skip-Bo's on a phone: see handOnBoard
    if (cfg.mode !== "table" || snap.table.game !== "stigespill") return null;
    const real = snap.table.deal === "table";
    if (!real && snap.view.variant !== "classic") return null;
    const slot = $("board").querySelector(".pile-do");
    if (slot && real) slot.classList.add("pile-line");  // a line of its own, at every width
    return slot;
  }
  let slotHeight = 0;  // the height the place had before the game ended

  // Where the tokens ended, the winner first: in the die cards' place at a real table's end.
  function standings() {
    const sc = snap.scores || {};
    return el("ol", { class: "standings" }, ...(sc.ranking || []).map((seat) => el("li", {},
      el("i", { class: "dot", style: `background:${player(seat).colour}` }),
      el("span", { class: "pname" }, whole(player(seat).name)),
      el("span", { text: sc.distances[seat] ? t("to_go", { n: sc.distances[seat] }) : "★" }))));
  }

  const DIE_CARDS = ["S", "H", "D", "C"].flatMap((s) => ["A", "2", "3", "4", "5", "6"].map((r) => r + s));

  // The Stigespill die cards to tap (``codes``; the others are out of the pile) under the
  // ``question`` that asks for them: a suit a line, A–6, the joker after the spades (app.css:
  // two suits a line on a wide board; on a narrow one six cards a line and the joker beside
  // the question), each card always in its own place (a finger finds it again turn after
  // turn), the ones not in the pile an empty place.
  function dieGrid(question, codes, tap) {
    const open = new Set(codes);
    const grid = el("div", { class: "card-grid die-grid" }, el("p", { class: "question", text: question }));
    const gap = (cls) => el("span", { class: `card small ${cls}`, "aria-hidden": "true" });
    DIE_CARDS.forEach((code, i) => {
      grid.append(open.has(code) ? Board.card(code, { small: true, onclick: () => tap(code) }) : gap("die-gap"));
      if (i === 5) grid.append(open.has("JK") ? Board.card("JK", { small: true, onclick: () => tap("JK") }) : gap("die-gap joker"));
      else if (i % 6 === 5) grid.append(gap("die-gap die-pad"));  // the joker's column
    });
    return grid;
  }

  function renderMoves() {
    const box = $("moves");
    box.replaceChildren();
    $("next-game-top")?.remove();
    const slot = pileSlot();
    if (snap.over) {
      const m = snap.match;
      if (m && m.over) {  // nothing left to play here: say so, and start a match again
        const again = `/new?game=${snap.table.game}&again=${encodeURIComponent(snap.table.id)}`;
        box.append(el("p", { class: "winner-banner" }, whole(`★ ${t("match_over", { names: m.winners.map((s) => player(s).name).join(", ") })}`)),
          el("a", { class: "btn", href: again, text: t("match_again") }));
      } else if (cfg.mode === "table") {
        if (slot) slot.style.minHeight = `${slotHeight}px`;  // what stood below stays where it was
        const next = (id, cls) => el("button", { class: cls, type: "button", id, text: t("next_game"),
          onclick: () => act("next", {}) });
        (slot || box).append(next("next-game", slot ? "btn btn-big btn-light" : "btn btn-big"));
        // a short window of one column (a laptop zoomed 200 %, a phone laid sideways) shows it
        // under the winner too (app.css): under the board it stood off every screen that shows
        // the board (Skip-Bo's 720 px down a 683×384 page)
        if (!slot) $("turn-chip").after(next("next-game-top", "btn head-next"));
        if (slot && slot.classList.contains("pile-line")) slot.append(standings());
        // the moves' panel had nothing left but Undo: it says who won and offers the next game too
        const names = (snap.winner_names || []).join(", ");
        if (slot) box.append(el("p", { class: "winner-banner", id: "game-won" }, names ? whole(`★ ${t("won_game", { names, n: snap.table.number })}`) : t("over")),
          next("next-game-here", "btn"));
      } else {  // a player's page: the table's page starts the next game
        box.append(el("p", { class: "muted", id: "next-on-table", text: t("next_on_table") }));
      }
      return;
    }
    if (curtain) {  // the moves would show the hand: the player on turn taps first
      box.append(el("p", { class: "muted" }, whole(t("pass_device", { name: player(snap.to_move).name }))));
      return;
    }
    if (snap.road_pending || snap.road_proposed) {
      // the camera reads the road first (the game starts on it), or the app's road is a
      // proposal to lay out; either may be typed instead on the table's page, and is when
      // the camera gives no pictures (the typing box open: it had said to wait for the camera)
      const blind = snap.road_pending && cfg.mode === "table" && CAMERA_TROUBLE.includes(snap.camera?.state);
      box.append(el("p", { class: "muted", text: t(blind ? "road_no_camera" : snap.road_pending ? "road_pending" : "road_proposed") }));
      if (cfg.mode === "table") box.append(roadTyped("", blind));
      if (snap.road_pending) return;
    }
    const moves = snap.moves.filter((m) => m.move.kind !== "reveal");
    const game = snap.table.game;
    // Skip-Bo on the players' phones: a stock's top card may be laid here, the hands not;
    // Stigespill's strategy game: the die pile may be drawn from here, the hands not
    const oneDevice = snap.table.open || snap.table.players.length === 1;
    const hands = game === "skipbo" || (game === "stigespill" && snap.view.variant !== "classic");
    if (hands && !oneDevice) openJoinBox();
    if (!moves.length) {
      if ((snap.chance && snap.chance.mine) || dealAhead()) return;
      if (snap.chance && Number.isInteger(snap.chance.seat) && cfg.mode === "table") {
        // a card only its owner may see (dealt, drawn into a hand): entered on that phone
        const which = snap.deal_noted ? "deal_on_phones" : "card_on_phone";
        box.append(el("p", { class: "muted" }, whole(t(which, { name: player(snap.chance.seat).name }))));
        openJoinBox();
        return;
      }
      // the player on turn, or the one whose card (drawn, dealt, turned up) is to be said
      const asked = snap.chance ? [snap.chance.seat, snap.chance.about].find(Number.isInteger) : undefined;
      const on = snap.to_move >= 0 ? snap.to_move : asked;
      const who = Number.isInteger(on) ? player(on).name : null;
      // a camera lost, ended or that cannot open watches nothing: the move is made on a phone
      const watching = snap.table.source !== "none" && !CAMERA_TROUBLE.includes(snap.camera?.state);
      const ownPage = cfg.mode === "table" && who && !watching;
      const text = cfg.mode === "table" && who ? t(watching ? "camera_wait" : "own_page", { name: who })
        : (cfg.mode === "player" && who && on !== snap.seat ? t("waiting", { name: who }) : t("nothing"));
      box.append(el("p", { class: "muted" }, whole(text)));
      if (ownPage) openJoinBox();
      return;
    }
    // Stigespill at a real table: tap the die card that was drawn (draw + reveal in one).
    const draw = moves.find((m) => m.move.kind === "draw");
    const tapDrawn = game === "stigespill" && draw && snap.table.deal === "table" && snap.view.variant === "classic";
    if (tapDrawn) {
      const gone = new Set(snap.view.discard);
      const codes = [...DIE_CARDS.filter((code) => !gone.has(code)), "JK"];
      (slot || box).append(dieGrid(t("tap_die"), codes, (code) => ctx.playMany([draw.move, { kind: "reveal", card: code }])));
    }
    const primary = el("div", { class: "move-buttons" });
    const rest = [], others = [];
    // Sten at a real table: the referee does not know the hand, so every card that fits is a
    // move; the cards this phone noted come first, the others apart (someone else's card).
    const noted = notedHand();
    const mineFits = noted && moves.some((m) => m.move.kind === "lay" && noted.has(m.move.card));
    const wholeHand = noted && noted.size === (snap.view.hand_sizes || [])[snap.seat];
    for (const m of moves) {
      const k = m.move.kind;
      if (tapDrawn && k === "draw") continue;  // the drawn card's button is the draw
      // 7♥ first: big on the phone of whoever may hold it (not one whose whole hand is noted
      // without it)
      const othersCard = noted && k === "lay" && !noted.has(m.move.card);
      const big = (k === "draw" || (k === "sten" && !mineFits) || k === "go_out" || k === "end_turn"
        || (sevenFirst() && k === "lay" && !(othersCard && wholeHand)));
      // a big button's place; Skip-Bo's "End turn" (an empty hand) where the hand stands on the board
      const own = slot && k === "draw" ? slot : k === "end_turn" && seatTip.isConnected ? $("hand")
        : big ? primary : null;
      if (own) own.append(el("button", { class: own !== primary ? "btn btn-big btn-light move" : "btn btn-big move",
        type: "button", "data-kind": k, text: m.label, "aria-label": spokenLabel(m.label), onclick: () => ctx.play(m.move) }));
      else if (othersCard) others.push(m);
      else rest.push(m);
    }
    // "Sten" while a noted card fits: the referee takes it on trust, so the phone asks first
    const fitting = mineFits ? moves.filter((m) => m.move.kind === "lay" && noted.has(m.move.card)) : [];
    const stenAnyway = (m) => askFirst(t("sten_anyway",
      { n: fitting.length, cards: fitting.map((f) => Board.pretty(f.move.card)).join(", ") }), () => ctx.play(m.move));
    // Sten at a real table: the noted hand, all of it layable now, goes out in one turn
    const order = noted && noted.size > 1 && wholeHand && snap.to_move === snap.seat
      ? Board.stenOrder(snap.view.board, [...noted]) : null;
    if (order) {
      const move = { kind: "go_out", cards: order, seat: snap.seat };
      primary.prepend(el("button", { class: "btn btn-big move", type: "button", "data-kind": "go_out",
        text: t("go_out", { cards: order.map(Board.pretty).join(" ") }),
        "aria-label": spokenLabel(t("go_out", { cards: order.map(Board.pretty).join(" ") })), onclick: () => ctx.play(move) }));
    }
    if (game === "skipbo" && rest.length) {  // right under the hand where it stands on the board
      const line = el("p", { class: "small muted tap-line", text: selected ? t("pick_target") : t("tap_card") });
      if (seatTip.isConnected) seatTip.prepend(line);
      else box.append(line);
    }
    if (primary.childElementCount) box.append(primary);  // no empty row between the words and the list
    if (rest.length) {
      const list = el("div", { class: "move-list" });
      for (const m of rest) list.append(el("button", { class: "btn btn-move", type: "button", "data-kind": m.move.kind,
        text: m.label, "aria-label": spokenLabel(m.label),
        onclick: m.move.kind === "sten" && fitting.length ? stenAnyway(m) : () => ctx.play(m.move) }));
      box.append(keptBox("all-moves", game !== "skipbo" && rest.length <= 12, { class: "all-moves" },
        el("summary", { text: `${t("all_moves")} (${rest.length})` }), list));
    }
    if (others.length) {
      const list = el("div", { class: "move-list" });
      for (const m of others) list.append(el("button", { class: "btn btn-move", type: "button", "data-kind": m.move.kind,
        text: m.label, "aria-label": spokenLabel(m.label), onclick: () => ctx.play(m.move) }));
      box.append(keptBox("other-fits", false, { class: "all-moves other-fits" },
        el("summary", { text: `${t("other_fits")} (${others.length})` }), list));
    }
  }

  // The road typed on the table's page: in place of one the camera cannot read, or to put
  // right a road read or typed wrong (``prefill``: the road on the board). What is typed, and
  // which boxes are open, outlive a redraw (each camera picture redraws the page).
  let roadDraft = { prefill: null, value: "", shape: null, kept: null, snake: null };

  function roadTyped(prefill, open = false) {
    if (roadDraft.prefill !== prefill) {  // a new road: its box starts closed
      roadDraft = { ...roadDraft, prefill, value: prefill };
      boxesLeft.delete("road-typed");
    }
    const road = el("textarea", { id: "road-typed", rows: 2, placeholder: "7S 8H QD …",
      "aria-label": t("road_type"), oninput: () => { roadDraft.value = road.value; } });
    road.value = roadDraft.value;
    const box = keptBox("road-typed", open, { class: "road-typed" },
      el("summary", { text: t("road_type") }), road,
      el("button", { class: "btn", type: "button", id: "road-use", text: t("road_use"),
        onclick: async () => {
          if (!(await act("road", { road: road.value }))) return;
          toast(t("road_set"));
          $("turn-chip").focus();  // the road box is drawn anew (closed): go on from the turn
        } }));
    return box;
  }

  // Stigespill before the first move: the road on the board may still be put right, read
  // again by the camera or typed (a card read wrong would otherwise stay for the game).
  function renderRoadFix() {
    const box = $("road-fix");
    if (!box) return;
    box.hidden = !snap.road_editable;
    if (box.hidden) { box.replaceChildren(); return; }
    const road = snap.view.road.filter((tile) => tile.position > 0 && tile.position < 29)
      .map((tile) => tile.code).join(" ");
    const camera = snap.table.source !== "none";
    // straight rows read as a snake: the same places run like text too, which a photo
    // cannot tell; the family can. Asked first: advice on a reading about to be read again
    // would be for another road than theirs, so it waits till the answer.
    const asked = snap.road_grid && roadDraft.snake !== road;
    const grid = asked ? el("div", { class: "road-grid", id: "road-grid" },
      el("p", { text: t("road_grid") }),
      el("div", { class: "road-advice-buttons" },
        el("button", { class: "btn", type: "button", id: "road-as-text", text: t("road_as_text"),
          onclick: () => act("road/again", { shape: "rows" }) }),
        el("button", { class: "btn btn-ghost", type: "button", id: "road-as-snake", text: t("road_as_snake"),
          onclick: () => { roadDraft.snake = road; render(); $("turn-chip").focus(); } }))) : null;
    const fix = keptBox("road-fix", false, { class: "road-fix-box" },
      el("summary", { text: t("road_fix") }),
      el("p", { class: "small muted", text: t(camera ? "road_fix_camera" : "road_fix_typed") }),
      camera ? roadAgain() : null,
      roadTyped(road));
    const advice = snap.road_advice && !asked && roadDraft.kept !== road ? roadAdvice(snap.road_advice, road) : null;
    box.replaceChildren(...[grid, advice, fix].filter(Boolean));
  }

  // The face cards bunch on the road laid out: the referee's road spread out with the
  // fewest cards moved (the same cards, each kind in its order), card by card with those to
  // move marked, to lay out and take, or to leave (``road``: the road on the board, which
  // "keep" keeps the box closed for).
  function roadAdvice(advice, road) {
    const moved = new Set(advice.moved);
    const list = el("ol", { class: "road-even", "aria-label": t("road_even_list") },
      ...advice.road.map((code, i) => {
        const p = Board.parse(code);
        const cls = [/[JQK]/.test(p.rank) ? "face" : "", moved.has(i + 1) ? "moved" : ""].join(" ").trim();
        return el("li", { class: cls || null, title: Board.said(code) },
          el("span", { class: p.cls, text: p.label }),
          moved.has(i + 1) ? el("span", { class: "sr-only", text: ` ${t("road_moves")}` }) : null);
      }));
    return el("div", { class: "road-advice", id: "road-advice" },
      el("p", { text: t("road_cluster", { run: advice.run, gap: advice.gap }) }),
      el("p", { class: "small", text: t("road_even", { n: advice.moved.length }) }), list,
      el("div", { class: "road-advice-buttons" },
        el("button", { class: "btn", type: "button", id: "road-even-use", text: t("road_even_use"),
          onclick: async () => {
            if (!(await act("road", { road: advice.road.join(" ") }))) return;
            toast(t("road_set"));
            $("turn-chip").focus();  // the advice is gone: go on from the turn
          } }),
        el("button", { class: "btn btn-ghost", type: "button", id: "road-keep", text: t("road_keep"),
          onclick: () => { roadDraft.kept = road; render(); $("turn-chip").focus(); } })));
  }

  // The camera reads the road again, as the family says it runs: small or tilted cards may
  // keep straight rows from being seen as a grid, where the page would have asked.
  function roadAgain() {
    // the shape chosen outlives a redraw (a camera's frames redraw the page every second)
    const chosen = roadDraft.shape || snap.road_shape;
    const shape = el("select", { id: "road-again-shape",
      onchange: () => { roadDraft.shape = shape.value; } },
      ...["auto", "rows"].map((s) => el("option", { value: s, text: t("shape_" + s),
        selected: s === chosen || null })));
    return el("div", { class: "form road-again" },
      el("label", {}, el("span", { text: t("road_shape") }), shape),
      el("button", { class: "btn", type: "button", id: "road-again", text: t("road_again"),
        onclick: () => act("road/again", { shape: shape.value }) }));
  }

  // Sten at a real table before the first card: 7♥ is laid by whoever holds it.
  function sevenFirst() {
    if (snap.table.game !== "sten" || snap.over || snap.view.known_hands !== false) return false;
    return !snap.view.started;
  }

  // The cards a Sten player noted on this phone (not yet on the table), when the referee does
  // not know the hand; else null.
  function notedHand() {
    if (cfg.mode !== "player" || snap.table.game !== "sten" || snap.view.known_hands !== false) return null;
    const notes = loadNotes().filter((c) => !onTable(c));
    return notes.length ? new Set(notes) : null;
  }

  function renderPlayers() {
    const ul = $("players");
    if (!ul) return;
    ul.replaceChildren();
    const v = snap.view;
    for (const p of snap.table.players) {
      // before 7♥ at a real table nobody is on turn: whoever holds it starts
      const li = el("li", { class: "player" + (snap.to_move === p.seat && !sevenFirst() ? " on-turn" : "") },
        el("i", { class: "dot", style: `background:${p.colour}` }), el("span", { class: "pname" }, whole(p.name)));
      if (v.hand_sizes && (v.game === "sten" || v.variant === "strategy")) {
        li.append(el("span", { class: "muted small", text: t("cards", { n: v.hand_sizes[p.seat] }) }));
      }
      const noted = snap.deal_noted && snap.deal_noted[p.seat];  // a real table's deal
      if (noted) li.append(el("span", { class: "muted small", text: t("noted", { n: noted }) }));
      if (v.players && v.players[p.seat]) li.append(el("span", { class: "muted small", text: `${t("stock")} ${v.players[p.seat].stock_count}` }));
      if (v.tokens && v.tokens[p.seat]) li.append(el("span", { class: "muted small", text: t("to_go", { n: v.tokens[p.seat].distance }) }));
      // the stone's sign and its words as one piece: a narrow list put the words under the sign
      if (v.stone === p.seat) {
        li.append(el("span", { class: "stone-said" }, el("span", { class: "stone", title: t("stone"), text: "●" }),
          el("span", { class: "small", text: t("stone") })));
      }
      if (snap.match) li.append(el("strong", { class: "score", text: `${snap.match.totals[p.seat]} ${t("points")}` }));
      ul.append(li);
    }
  }

  let chartKey = null;
  function renderMatch() {
    const panel = $("match-panel");
    if (!panel) return;
    const m = snap.match;
    if (!m) { panel.hidden = true; return; }
    panel.hidden = false;
    const box = $("match");
    const key = JSON.stringify(m.totals) + m.games.length;
    if (key === chartKey) return;
    chartKey = key;
    if (!m.games.length) {  // no race to draw yet: what it will be
      box.replaceChildren(el("p", { class: "muted", id: "match-start", text: t("match_start", { n: m.target }) }));
      return;
    }
    const names = snap.table.players.map((p) => p.name);
    // one column per side: a player, or a team (partners score alike: its first seat's points)
    const head = el("tr", {}, el("th", { text: t("game") }),
      m.sides.map((side) => el("th", {}, whole(side.map((s) => names[s]).join(" & ")))));
    const body = m.games.map((g) => el("tr", {}, el("td", { text: g.number }),
      m.sides.map((side) => el("td", { text: g.points[side[0]] }))));
    const foot = el("tr", {}, el("th", { text: t("total") }), m.sides.map((side) => el("th", { text: m.totals[side[0]] })));
    const table = el("table", { class: "scores" }, el("thead", {}, head), el("tbody", {}, body), el("tfoot", {}, foot));
    const chart = el("div", { class: "chart", id: "chart" });
    // (a match over is said once, in the moves' panel with its new match: it had stood here too)
    box.replaceChildren(chart, el("div", { class: "scores-box" }, table));  // scrolls sideways on a phone
    if (cfg.chart) fetch(`${cfg.chart}?v=${encodeURIComponent(key)}`).then((r) => r.ok ? r.text() : "").then((svgText) => { chart.innerHTML = svgText; });
  }

  // Sten and Stigespill: the games this table has played, one line each (who won; Sten: who
  // lost with the stone), and the tally; the evening's earlier games had been said nowhere
  let recordKey = null;
  const RECORD_SHOWN = 5;
  function renderRecord() {
    const panel = $("record-panel");
    if (!panel) return;
    const games = snap.record || [];
    panel.hidden = !games.length;
    const key = JSON.stringify(games);
    if (!games.length || key === recordKey) return;
    recordKey = key;
    const names = snap.table.players.map((p) => p.name);
    const sten = snap.table.game === "sten";
    const lines = games.slice().reverse().map((g) => {
      let line = t("won_game", { names: g.winners.map((s) => names[s]).join(", "), n: g.number });
      if (sten) line += ` · ${g.loser === null ? t("nobody_lost") : t("stone_lost", { name: names[g.loser] })}`;
      return el("li", {}, whole(line));
    });
    // the newest few; the rest folded away (the demo replays its game for hours on end)
    const earlier = lines.splice(RECORD_SHOWN);
    const list = [el("ul", { class: "record" }, lines)];
    if (earlier.length) list.push(keptBox("record-earlier", false, { class: "all-moves" },
      el("summary", { text: t("earlier_games", { n: earlier.length }) }), el("ul", { class: "record" }, earlier)));
    const tally = (seats) => {
      const count = new Map();
      for (const s of seats) count.set(s, (count.get(s) || 0) + 1);
      return [...count].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([s, n]) => `${names[s]}\u00a0×${n}`).join(", ");  // "Anna 2 ×1": a name may end in a number
    };
    const said = [el("p", { class: "small", text: t("wins", { list: tally(games.flatMap((g) => g.winners)) }) })];
    const losers = games.map((g) => g.loser).filter((s) => s !== null && s !== undefined);
    if (sten && losers.length) said.push(el("p", { class: "small", text: t("stones_lost", { list: tally(losers) }) }));
    $("record").replaceChildren(...said, ...list);
  }

  // ---- the camera's state: why it gives no pictures (lost, reconnecting, ended, error) -----
  const CAMERA_TROUBLE = ["lost", "reconnecting", "ended", "error"];
  let cameraState = null;

  function renderCamera() {
    const box = $("camera-state"), cam = snap.camera;
    if (!box || !cam) return;
    const trouble = CAMERA_TROUBLE.includes(cam.state);
    // a phone that looks at the table sends its pictures once it is asked to: say how
    const noPicture = $("phone-start") && (cam.state === "starting" || cam.state === "off");
    box.hidden = !trouble && !cam.unreadable && !cam.waiting && !noPicture;
    box.className = "cam-state" + ((trouble && cam.state !== "ended") || cam.unreadable ? " bad" : "");
    $("camera")?.classList.toggle("stale", trouble);  // its last picture, not a live one
    // the line near the top that leads to it (a video that ended is no trouble to fix)
    const line = $("camera-alert");
    if (line) line.hidden = !trouble || cam.state === "ended";
    // pictures too dark to read come before what the camera waits for: it cannot see that
    say(box, trouble ? t("camera_state", { message: cam.message })
      : cam.unreadable ? cam.unreadable
      : cam.waiting ? t("camera_waiting", { reason: cam.waiting })
      : noPicture ? t("camera_no_picture") : "");
    // The viewer's stream ends when the camera gives no pictures: open it again when it does.
    if (CAMERA_TROUBLE.includes(cameraState) && (cam.state === "open" || cam.state === "starting")) reopenCamera();
    cameraState = cam.state;
  }

  // The camera's picture streams for as long as the camera runs: it is asked for once the
  // page has loaded, which it would otherwise hold up for good (the browser showing the page
  // still loading), and not while the page is hidden (it holds a connection).
  function showCamera() {
    const img = $("camera");
    if (img && img.dataset.stream && !document.hidden) img.src = `${img.dataset.stream}?t=${Date.now()}`;
  }

  // The camera's picture asked anew: its stream starts the table's camera if none runs (a
  // server started again runs none until a page asks for its picture).
  function reopenCamera() {
    if ($("camera")?.getAttribute("src")) showCamera();
  }

  // ---- Skip-Bo camera zones: shown over the camera picture, dragged, confirmed ------------
  // The draft is the markers as shown: the camera's proposal (zonesBase), with the markers
  // the user moved (zonesMoved, their indexes) where they put them.
  let zonesDraft = null;
  let zonesBase = null;
  let zonesKey = null;
  let zonesDrawn = null;  // what the markers were last drawn for
  const zonesMoved = new Set();
  const ZONE_REACH_PX = 22;  // half a finger's touch
  const copy = (o) => JSON.parse(JSON.stringify(o));

  // A new map (the camera moved, the zones confirmed) takes the untouched markers; a marker
  // the user moved keeps its place on its pile, moved as its own proposed zone moved (the
  // camera moved, not the user's correction), until a map has it where the user put it (the
  // zones as confirmed). A map of other piles is taken whole.
  function takeZones(map, [w, h]) {
    const next = copy(map);
    const same = zonesBase && zonesBase.zones.length === next.zones.length
      && zonesBase.zones.every((z, i) => z.kind === next.zones[i].kind);
    if (!same) zonesMoved.clear();
    zonesMoved.forEach((i) => {
      const [bx, by] = zonesBase.zones[i].center, [nx, ny] = next.zones[i].center;
      const [x, y] = zonesDraft.zones[i].center;
      if (Math.hypot(nx - x, ny - y) < 0.1) { zonesMoved.delete(i); return; }
      next.zones[i].center = [Math.min(w, Math.max(0, x + nx - bx)), Math.min(h, Math.max(0, y + ny - by))];
    });
    zonesBase = copy(map);
    zonesDraft = next;
  }

  function renderZones() {
    const svgEl = $("zones");
    if (!svgEl) return;
    const z = snap.zones;
    if (!z || !z.frame) { svgEl.toggleAttribute("hidden", true); $("zones-bar").hidden = true; hideZoneTag(); return; }
    // The markers go over the picture: without it they would be drawn squashed over an
    // empty box, and dragged off the piles. Drawn once the picture shows.
    const img = $("camera");
    if (!img || !img.naturalWidth) {
      svgEl.toggleAttribute("hidden", true);
      $("zones-bar").hidden = true;
      if (img) img.addEventListener("load", renderZones, { once: true });
      return;
    }
    const key = JSON.stringify(z);
    const [w, h] = z.frame;
    if (key !== zonesKey) { zonesKey = key; takeZones(z.map, z.frame); }
    svgEl.toggleAttribute("hidden", false); // an <svg> has no .hidden property
    $("zones-bar").hidden = false;
    say($("zones-text"), z.confirmed ? t("zones_ok") : t("zones_new"));  // said as it changes
    // Drawn anew only when what they show changed: every snapshot (a camera's state, a
    // move) redrew them, which ended a drag under way and took the keyboard's focus away.
    const drawn = JSON.stringify([key, svgEl.clientWidth, snap.table.players]);
    if (drawn === zonesDrawn && svgEl.childElementCount) return;
    zonesDrawn = drawn;
    const NS = "http://www.w3.org/2000/svg";
    svgEl.setAttribute("viewBox", `0 0 ${w} ${h}`);
    svgEl.setAttribute("preserveAspectRatio", "none");
    svgEl.replaceChildren();
    hideZoneTag();
    // markers stay finger-sized however small the picture is drawn; each takes a touch
    // within ZONE_REACH_PX of its centre (44 px across), however small its dot
    const box = svgEl.getBoundingClientRect();
    const scale = Math.min(box.width / w, box.height / h) || 1;
    const r = Math.max(11 / scale, (zonesDraft.card_size || 60) * 0.3);
    const reach = Math.max(r, ZONE_REACH_PX / scale);
    const markers = zonesDraft.zones.map((zone, i) => {
      const colour = zone.kind === "building" ? "#e4a11b" : player(zone.owner).colour;
      const label = zone.kind === "building" ? `${t("b")}${zone.index + 1}`
        : zone.kind === "stock" ? Board.tokenLetter(snap.table.players, zone.owner) : `${zone.index + 1}`;
      const g = document.createElementNS(NS, "g");
      g.setAttribute("class", `zone zone-${zone.kind}`);
      g.dataset.i = i;
      g.dataset.key = `zone:${i}`;
      // a keyboard moves a marker too: focus it, then the arrow keys (with Shift, further)
      const what = zone.kind === "building" ? t("zone_building", { n: zone.index + 1 })
        : zone.kind === "stock" ? t("zone_stock", { name: player(zone.owner).name })
          : t("zone_discard", { name: player(zone.owner).name, n: zone.index + 1 });
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", t("zone_marker", { what: `${label}, ${what}` }));
      const hit = document.createElementNS(NS, "circle");
      hit.setAttribute("class", "zone-hit");
      hit.setAttribute("r", reach);
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("class", "zone-dot");
      c.setAttribute("r", zone.kind === "discard" ? r * 0.7 : r);
      c.setAttribute("fill", colour);
      // the label stands on a solid badge of the marker's colour: the dot lets the pile show
      // through (app.css), and a label on it alone fell to 4.2:1 over a light picture
      const badge = document.createElementNS(NS, "rect");
      badge.setAttribute("class", "zone-badge");
      badge.setAttribute("fill", colour);
      const tx = document.createElementNS(NS, "text");
      tx.setAttribute("font-size", r * 0.8);
      tx.setAttribute("text-anchor", "middle");
      if (Board.darkText(colour)) tx.setAttribute("class", "dark");
      tx.textContent = label;
      g.append(hit, c, badge, tx);
      const draw = () => {
        const [x, y] = zone.center;
        for (const circle of [hit, c]) { circle.setAttribute("cx", x); circle.setAttribute("cy", y); }
        tx.setAttribute("x", x); tx.setAttribute("y", y + r * 0.3);
        const box = tx.getBBox(), pad = r * 0.12;  // the label's box as its font draws it
        const [bw, bh] = [box.width + 2 * pad, box.height];
        badge.setAttribute("x", box.x - pad); badge.setAttribute("y", box.y);
        badge.setAttribute("width", bw); badge.setAttribute("height", bh);
        badge.setAttribute("rx", Math.min(bw, bh) / 2);
        if (g.classList.contains("held") || document.activeElement === g) showZoneTag(c, what);
      };
      const place = (x, y) => {  // kept inside the picture
        zone.center = [Math.round(Math.min(w, Math.max(0, x))), Math.round(Math.min(h, Math.max(0, y)))];
        zonesMoved.add(i);
        draw();
      };
      svgEl.append(g);  // before it is drawn: its label's box is measured in the page
      draw();
      const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      g.addEventListener("keydown", (e) => {
        const d = STEPS[e.key];
        if (!d) return;
        e.preventDefault();
        const step = (e.shiftKey ? 2 : 0.4) * r;
        place(zone.center[0] + d[0] * step, zone.center[1] + d[1] * step);
      });
      g.addEventListener("focus", () => showZoneTag(c, what));
      g.addEventListener("blur", () => { if (!g.classList.contains("held")) hideZoneTag(); });
      g.addEventListener("pointerdown", (e) => grab(e));
      return { g, zone, place, draw };
    });
    const at = (ev) => {  // a pointer's place on the picture, in its pixels
      const pt = svgEl.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      return pt.matrixTransform(svgEl.getScreenCTM().inverse());
    };
    // Where markers overlap (piles close together, a small picture) the touch takes the
    // marker whose centre is nearest, not the one drawn last; it is drawn on top while held
    // and moves by as much as the finger, so it stays beside the finger, not under it.
    const grab = (e) => {
      e.preventDefault();
      const p = at(e);
      const m = markers.reduce((a, b) => (Math.hypot(b.zone.center[0] - p.x, b.zone.center[1] - p.y)
        < Math.hypot(a.zone.center[0] - p.x, a.zone.center[1] - p.y) ? b : a));
      const [dx, dy] = [m.zone.center[0] - p.x, m.zone.center[1] - p.y];
      svgEl.append(m.g);
      m.g.classList.add("held");
      m.g.setPointerCapture(e.pointerId);
      m.draw();  // its name shown; a tap alone moves nothing
      const move = (ev) => { const q = at(ev); m.place(q.x + dx, q.y + dy); };
      const up = () => {
        m.g.removeEventListener("pointermove", move);
        m.g.removeEventListener("pointerup", up);
        m.g.removeEventListener("pointercancel", up);
        m.g.classList.remove("held");
        if (document.activeElement !== m.g) hideZoneTag();
      };
      m.g.addEventListener("pointermove", move);
      m.g.addEventListener("pointerup", up);
      m.g.addEventListener("pointercancel", up);
    };
  }

  // A marker held or focused says which pile it is for ("Anna's discard pile 2") above it,
  // where a finger on it leaves it in view: its dot shows only a letter or a number.
  function showZoneTag(dot, words) {
    const tag = $("zone-tag");
    const wrap = tag.parentElement.getBoundingClientRect(), d = dot.getBoundingClientRect();
    tag.textContent = words;
    tag.hidden = false;
    const half = tag.offsetWidth / 2;
    const x = Math.min(wrap.width - half, Math.max(half, d.left + d.width / 2 - wrap.left));
    tag.style.left = `${x}px`;
    const top = d.top - wrap.top - ZONE_REACH_PX;  // enlarged, the frame cuts off what is above it
    tag.style.top = `${tag.closest(".zoomed") ? Math.max(tag.offsetHeight, top) : top}px`;
  }

  function hideZoneTag() {
    if ($("zone-tag")) $("zone-tag").hidden = true;
  }

  // ---- the live connection ---------------------------------------------------------------
  // The server sends the snapshot on every change and a "ping" when there is none (every
  // cfg.heartbeat seconds). A connection that went quiet without closing (wifi lost, a phone
  // asleep) is noticed when nothing arrives for two and a half heartbeats, said, and opened
  // anew. A hidden tab lets go of its connection (a browser keeps six per server, and a tap
  // waits behind them): it opens one again when it is shown, and the first event catches up.
  let heard = Date.now();

  function connect() {
    if (!window.EventSource) return;
    if (source) source.close();
    source = new EventSource(cfg.events);
    heard = Date.now();
    let first = true;
    source.addEventListener("snapshot", (e) => {
      accept(JSON.parse(e.data), first);  // the table as it is, before what waited for it goes
      first = false;
      online(true);
    });
    source.addEventListener("ping", () => online(true));
    source.onerror = () => { first = true; online(false); };  // the browser connects again
  }

  function online(yes) {
    if (yes) heard = Date.now();
    if (document.body.classList.contains("offline") !== yes) return;
    document.body.classList.toggle("offline", !yes);
    const banner = $("offline");
    banner.textContent = yes ? "" : t("offline");
    banner.hidden = yes;
    if (!yes) return;
    // Back after a cut: the camera's picture broke with the connection, and a server killed
    // and started again runs the camera only once its picture is asked for.
    reopenCamera();
    render();  // what waited for the table (a noted dealt card) goes now
  }

  function watchConnection() {
    if (!window.EventSource) return;
    const quiet = Math.max(5000, (cfg.heartbeat || 10) * 2500);
    setInterval(() => {
      if (document.hidden || !source || Date.now() - heard < quiet) return;
      online(false);
      connect();  // its first event is the whole table
    }, 1000);
    document.addEventListener("visibilitychange", () => {
      const cam = $("camera");  // the camera's picture holds a connection too
      if (document.hidden) {
        if (source) { source.close(); source = null; }
        if (cam) cam.removeAttribute("src");
      } else {
        connect();
        showCamera();
      }
    });
    window.addEventListener("online", () => { if (!document.hidden) connect(); });
  }

  // ---- wiring ----------------------------------------------------------------------------
  function phoneCamera() {
    const btn = $("phone-start");
    if (!btn || !cfg.frame) return;
    const snapInput = $("phone-snap");
    if (snapInput) {
      // Browsers give live video only to https:// pages (and localhost): a LAN address over
      // http gets a picture at a time from the camera app instead.
      if (!(navigator.mediaDevices && window.isSecureContext)) {
        btn.hidden = true;
        $("phone-snap-label").hidden = false;
      }
      // a picture on its way says so at once (a large one took seconds, and nothing showed)
      snapInput.addEventListener("change", () => {
        if (snapInput.files.length) {
          say($("phone-rate"), t("picture_sending"));
          snapInput.disabled = true;
          fetch(`${cfg.frame}?still=1`, { method: "POST", headers: { "Content-Type": snapInput.files[0].type || "image/jpeg" }, body: snapInput.files[0] })
            .then((r) => r.ok ? toast("✓") : r.json().then((d) => toast(d.error, true)))
            .catch((e) => toast(String(e), true))
            .finally(() => { snapInput.disabled = false; say($("phone-rate"), ""); });
        }
      });
    }
    btn.addEventListener("click", async () => {
      try {
        const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
        const video = $("phone-video");
        video.srcObject = stream;
        video.hidden = false;
        await video.play();
        btn.hidden = true;
        const canvas = document.createElement("canvas");
        // One picture at a time, at most 4 a second; when the server drops pictures (it
        // reads slower than they come), send fewer, and say how many go.
        let every = 250, dropped = null;
        const send = async () => {
          if (!video.videoWidth) return;
          canvas.width = Math.min(1280, video.videoWidth);
          canvas.height = Math.round(canvas.width * video.videoHeight / video.videoWidth);
          canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
          const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.8));
          if (!blob) return;
          const r = await fetch(cfg.frame, { method: "POST", headers: { "Content-Type": "image/jpeg" }, body: blob });
          const d = await r.json().catch(() => ({}));
          if (!r.ok) { say($("phone-rate"), d.error || `HTTP ${r.status}`); return; }
          const slower = dropped !== null && d.dropped > dropped;
          every = slower ? Math.min(2000, every * 1.5) : Math.max(250, every * 0.95);
          dropped = d.dropped;
          say($("phone-rate"), t("phone_rate", { n: (1000 / every).toLocaleString(document.documentElement.lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }));
        };
        const tick = () => send().catch((e) => { say($("phone-rate"), String(e)); })
          .finally(() => setTimeout(tick, every));
        tick();
      } catch (e) {
        // the browser's own words ("NotAllowedError: Permission denied") say neither why in
        // the page's language nor what to do: a single picture from the camera app still works
        const why = e && e.name === "NotAllowedError" ? "camera_denied"
          : e && (e.name === "NotFoundError" || e.name === "OverconstrainedError") ? "camera_none" : "camera_failed";
        toast(t(why), true);
        if (snapInput) {
          $("phone-snap-why").textContent = t("send_pictures");
          $("phone-snap-label").hidden = false;
        }
      }
    });
  }

  // Cards a phone keeps for one game of its page (its noted hand, its noted deal).
  const keptKey = (kind) => `kortbord-${kind}-${location.pathname}-${snap.table.number}`;
  const loadKept = (kind) => JSON.parse(localStorage.getItem(keptKey(kind)) || "[]");
  const saveKept = (kind, codes) => localStorage.setItem(keptKey(kind), JSON.stringify(codes));

  // ---- a Stigespill strategy deal with real cards: each phone notes its whole hand -----
  // The referee takes the dealt cards seat by seat, round by round; no phone waits for the
  // deal to come round: its player taps all their cards at once, the table keeps them
  // (snap.deal.noted) and enters each when the deal reaches the seat, whether or not this
  // phone is awake then. A tap is kept on the phone until the table has it (no network).
  // [[code, noted (true) or taken back (false)], …]; an older page kept codes alone: not taps
  const loadTaps = () => loadKept("deal").filter(Array.isArray);
  const saveTaps = (taps) => saveKept("deal", taps);
  let tapsOnTheirWay = false;

  function dealAhead() {
    // a phone's own hand (a solo player's page shows every hand and is dealt to in turn)
    return cfg.mode === "player" && Boolean(snap.deal) && !snap.view.hands;
  }

  function notedNow() {
    const hand = snap.view.hand;
    // a tap the table refused (another player's card) is not noted, though its answer may
    // come after the live update that says so
    const refused = snap.deal.refused.map((r) => r.card);
    let noted = snap.deal.noted.filter((c) => !hand.includes(c));
    for (const [code, on] of loadTaps()) {
      noted = noted.filter((c) => c !== code);
      if (on && !hand.includes(code) && !refused.includes(code)) noted.push(code);
    }
    return noted;
  }

  function tapDealt(code, on) {
    saveTaps([...loadTaps(), [code, on]]);
    render();
  }

  function renderDeal(box) {
    const hand = snap.view.hand;
    const noted = notedNow();
    const left = snap.view.hand_size - hand.length - noted.length;
    const mine = snap.chance && snap.chance.mine;
    if (loadTaps().length) sendTaps();
    if (!noted.length && left <= 0) { box.hidden = true; return; }  // all in the hand now
    box.append(el("p", { class: "question", text: left > 0 ? t("deal_tap", { n: left }) : t("deal_noted") }));
    const refused = snap.deal.refused.map((r) => r.card);
    for (const r of snap.deal.refused) box.append(el("p", { class: "small refused", text: cap(r.reason) }));
    if (noted.length) {
      const row = el("div", { class: "card-grid noted" });
      for (const code of noted) {
        row.append(Board.card(code, { small: true, cls: "selected", pressed: true, key: `dealt:${code}`,
          onclick: () => tapDealt(code, false) }));
      }
      box.append(el("p", { class: "small muted", text: t("deal_take_back") }), row);
    }
    if (left > 0) {
      // the cards this phone may have been dealt: not those it holds, noted or was refused
      const grid = el("div", { class: "card-grid" });
      for (const s of ["S", "H", "D", "C"]) for (const r of ["A", "2", "3", "4", "5", "6"]) {
        const code = r + s;
        if (hand.includes(code) || noted.includes(code) || refused.includes(code)) continue;
        grid.append(Board.card(code, { small: true, pressed: false, key: `deal:${code}`,
          onclick: () => tapDealt(code, true) }));
      }
      box.append(grid);
    }
    if (mine && !noted.length) {
      box.append(el("button", { class: "btn btn-ghost btn-small", type: "button", id: "draw-app", text: t("draw_app"),
        onclick: () => act("draw", {}) }));
    }
    box.hidden = false;
  }

  async function sendTaps() {
    if (tapsOnTheirWay || document.body.classList.contains("offline")) return;  // sent when the table is back
    if (sending) { setTimeout(render, 500); return; }  // after the change on its way
    const taps = loadTaps();
    const last = new Map(taps);  // each card's last tap counts
    const cards = (on) => [...last].filter(([, o]) => o === on).map(([code]) => code);
    tapsOnTheirWay = true;
    const done = await act("deal", { note: cards(true), drop: cards(false) });
    tapsOnTheirWay = false;
    // not sent or not answered: kept, and sent again in a moment
    if (done === null) { setTimeout(render, 3000); return; }
    // taken (a card the table could not note is said on the page), or refused (the deal is
    // over: the toast says so): either way these taps are done with
    saveTaps(loadTaps().slice(taps.length));
    render();
  }

  // ---- a hand the referee does not know (real cards): the player's own notes ----------
  // One game's notes: the next game's hand is another (and an undo brings a laid card back
  // into the notes, as they are kept whole and only shown without the cards on the table).
  const loadNotes = () => loadKept("notes");
  const saveNotes = (codes) => saveKept("notes", codes);

  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

  function onTable(code) {
    // Sten: a card is gone from the hand once it lies on the board
    const v = snap.view;
    if (!v.board) return false;
    const p = Board.parse(code);
    const row = v.board.find((r) => code.endsWith(r.suit));
    if (!row || !row.seven_down || !p) return false;
    const ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
    const n = ranks.indexOf(p.rank) + 1;
    const low = row.low ? ranks.indexOf(Board.parse(row.low).rank) + 1 : 7;
    const high = row.high ? ranks.indexOf(Board.parse(row.high).rank) + 1 : 7;
    return n >= low && n <= high;
  }

  function renderNotes() {
    const hand = $("hand");
    const known = Array.isArray(snap.view.hand);
    const picker = $("picker");
    if (picker) picker.hidden = known || snap.table.game !== "sten";
    if (known || !hand || snap.table.game !== "sten") return;
    let noted = loadNotes();
    // a card tapped in here that another player laid was not in this hand: out it goes, said
    const laidBy = snap.laid_by || {};
    const theirs = noted.filter((c) => onTable(c) && Number.isInteger(laidBy[c]) && laidBy[c] !== snap.seat);
    if (theirs.length) {
      noted = noted.filter((c) => !theirs.includes(c));
      saveNotes(noted);
      const layers = [...new Set(theirs.map((c) => laidBy[c]))];  // one sentence per player
      toast(layers.map((seat) => t("laid_by_other", { name: player(seat).name,
        cards: theirs.filter((c) => laidBy[c] === seat).map(Board.pretty).join(", ") })).join(" "), true);
    }
    const order = (c) => "SHDC".indexOf(c.slice(-1)) * 13 + RANKS.indexOf(c.slice(0, -1));
    const notes = noted.filter((c) => !onTable(c)).sort((a, b) => order(a) - order(b));
    const fits = new Set(snap.view.board.flatMap((r) => r.fits));
    const lay = {};
    for (const m of snap.moves) if (m.move.kind === "lay") lay[m.move.card] = m.move;
    hand.replaceChildren();
    if (!notes.length) hand.append(el("p", { class: "muted", text: t("note_hint") }));
    for (const code of notes) {
      hand.append(Board.card(code, { cls: fits.has(code) ? "fits" : "",
        onclick: lay[code] ? () => ctx.play(lay[code]) : null }));
    }
    if (picker) {
      const grid = $("picker-grid");
      grid.replaceChildren();
      for (const suit of ["S", "H", "D", "C"]) {
        for (const rank of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]) {
          const code = rank + suit;
          if (onTable(code)) continue;
          const on = notes.includes(code);
          grid.append(Board.card(code, { small: true, cls: on ? "selected" : "", key: `pick:${code}`,
            pressed: on, onclick: () => {
              saveNotes(on ? noted.filter((c) => c !== code) : [...noted, code]);
              render();
            } }));
        }
      }
    }
  }

  function photoForm() {
    const input = $("photo");
    if (!input) return;
    input.addEventListener("change", async () => {
      if (!input.files.length) return;
      const fd = new FormData();
      fd.append("photo", input.files[0]);
      // said at once, the picker greyed, while the photo goes (how much of it has gone) and
      // is read (seconds)
      const said = (percent) => {
        $("photo-msg").textContent = percent < 100 ? t("photo_sending", { percent }) : t("photo_reading");
      };
      said(0);
      input.disabled = true;
      let r;
      try {
        r = await sendPhoto(cfg.photo, fd, said);
      } catch {  // not sent: the server gone or the connection cut
        $("photo-msg").textContent = t("not_sent");
        return;
      } finally {
        input.disabled = false;
      }
      let data = {};
      try { data = JSON.parse(r.responseText); } catch { /* no answer in JSON: said as none */ }
      const codes = data.codes || [];
      $("photo-msg").textContent = data.error || (codes.length ? codes.map(Board.pretty).join(" ") : t("photo_none"));
      if (r.status >= 200 && r.status < 300 && data.codes && data.codes.length) {
        saveNotes([...new Set([...loadNotes(), ...data.codes])]);
        renderNotes();
      }
    });
  }

  function start(c) {
    cfg = c;
    T = JSON.parse($("i18n").textContent);
    snap = JSON.parse($("snap").textContent);
    handBoxEl = $("hand");
    handHome = homeOf(handBoxEl);
    handHead = cfg.mode === "player" && handBoxEl ? $("panel-head") : null;
    hintEl = $("hint");
    hintHome = homeOf(hintEl);
    undoRow = $("undo") && $("undo").parentElement;
    undoHome = homeOf(undoRow);
    if ($("undo")) {
      $("undo").addEventListener("click", () => act("undo", {}));
      $("redo").addEventListener("click", () => act("redo", {}));
    }
    undoMine = $("undo-mine");
    undoMineHome = homeOf(undoMine);
    if (undoMine) undoMine.addEventListener("click", () => act("undo", {}));
    if ($("zones-confirm")) {
      $("zones-confirm").addEventListener("click", () => {
        if (zonesDraft && snap.zones) act("zones", { zones: zonesDraft, frame: snap.zones.frame });
      });
    }
    if ($("zones-zoom")) {  // the picture enlarged (centred) or whole, its markers drawn anew
      $("zones-zoom").addEventListener("click", () => {
        $("zones-zoom").closest(".camera-panel").classList.toggle("zoomed");
        const frame = $("cam-frame");
        frame.scrollLeft = (frame.scrollWidth - frame.clientWidth) / 2;
        renderZones();
      });
    }
    joinJump();
    joinBoxKept();
    render();
    let resizeTimer = null;
    let width = window.innerWidth;
    window.addEventListener("resize", () => {
      if (window.innerWidth === width) return;
      width = window.innerWidth;
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(render, 150);
    });
    document.querySelector("main").prepend(el("p", { id: "offline", class: "offline-banner", role: "status", hidden: true }));
    connect();
    watchConnection();
    if (document.readyState === "complete") showCamera();
    else window.addEventListener("load", showCamera, { once: true });
    phoneCamera();
    photoForm();
  }

  return { start, snapshot: () => snap };
})();

// The page's settings come as data, not as a script of their own: the pages allow no inline
// script (Content-Security-Policy), so a script slipped into a page by a name cannot run.
Kortbord.start(JSON.parse(document.getElementById("page-settings").textContent));
