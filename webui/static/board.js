/* Kortbord boards: draw each game from the referee's view (no framework, no build step). */
"use strict";

const Board = (() => {
  const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "style") e.setAttribute("style", v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }

  // ``text`` as nodes, each hyphenated word of a player's name in it ("Åse-Marie", of
  // ``players``) in a span of its own that keeps it on one line (app.css: .one-line): a narrow
  // phone broke "Åse-" / "Marie" at its line's end. The text around it wraps as before.
  function keptWhole(text, players) {
    const words = [...new Set((players || []).flatMap((p) => String(p.name).split(/\s+/)))]
      .filter((w) => /\S-\S/u.test(w)).sort((a, b) => b.length - a.length);
    if (!words.length || !text) return [text];
    const re = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "u");
    return String(text).split(re).map((part, i) => (i % 2 ? el("span", { class: "one-line", text: part }) : part))
      .filter((part) => part !== "");
  }

  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const kid of kids.flat()) if (kid) e.append(kid);
    return e;
  }

  /* A card code as parts: rank, suit symbol, colour class; Skip-Bo value and band. */
  function parse(code) {
    if (!code) return null;
    if (code === "JK") return { rank: "★", suit: "", cls: "joker", label: "★ Joker" };
    let m = /^SB(\d+|W)$/.exec(code);
    if (m) {
      if (m[1] === "W") return { rank: "SB", suit: "", cls: "sb sb-wild", label: "Skip-Bo", sb: 0 };
      const v = +m[1];
      const band = v <= 4 ? "sb-low" : v <= 8 ? "sb-mid" : "sb-high";
      return { rank: String(v), suit: "", cls: `sb ${band}`, label: String(v), sb: v };
    }
    m = /^(10|[2-9AJQK])([SHDC])$/.exec(code);
    if (!m) return { rank: code, suit: "", cls: "", label: code };
    const red = m[2] === "H" || m[2] === "D";
    const face = faceOf(m[1]);
    return { rank: m[1], face, suit: SUIT[m[2]], cls: red ? "red" : "black", label: face + SUIT[m[2]],
      spoken: spoken(m[1], m[2]) };
  }

  function pretty(code) {
    const p = parse(code);
    return p ? p.label : "";
  }

  // The page's words (see board_strings.html), read once.
  let words = null;
  const strings = () => {
    if (words === null) {
      const node = document.getElementById("i18n");
      words = node ? JSON.parse(node.textContent) : {};
    }
    return words;
  };

  // The letter a rank is shown with: the family's deck's (Nordic D for Q, Kn or B for J, E
  // for A, as the page's menu chose), else the rank's own. The card codes stay J, Q, K, A.
  const faceOf = (rank) => (strings().letters || {})[rank] || rank;

  // What a screen reader says of a card, in the page's words ("queen of spades", "spar
  // dame"): given "Q♠" it spells the letter and names the symbol in its voice's language.
  function spoken(rank, suit) {
    const w = strings();
    if (!w.card_name) return faceOf(rank) + SUIT[suit];
    return w.card_name.replace("{rank}", w[`rank_${rank}`] || rank)
      .replace("{suit}", w[`suit_${suit}`]);
  }

  // A sentence with cards in it ("Play Q♠", shown "Play D♠" with Nordic letters) as a screen
  // reader should say it; a letter shown stays in it ("Play D, spar dame"), as in a card's
  // own name (see said).
  const SUIT_OF = { "♠": "S", "♥": "H", "♦": "D", "♣": "C" };
  const saidText = (text) => {
    const rankOf = {};
    for (const r of RANKS) rankOf[faceOf(r)] = r;
    return text.replace(/(?<![\w])(10|[2-9]|Kn|[A-Z])([♠♥♦♣])/g, (all, face, sym) => {
      const r = rankOf[face];
      if (!r) return all;
      return (/[A-Z]/.test(face) ? `${face}, ` : "") + spoken(r, SUIT_OF[sym]);
    });
  };

  // A card as a screen reader says it (a Skip-Bo card, a joker: as shown). A letter shown on
  // the card (Q, SB) stays in its name, as a voice control user says what they see.
  function said(code) {
    const p = parse(code);
    if (!p) return "";
    const shown = p.face || p.rank;
    const words = p.spoken || p.label;
    return /[A-Z]/.test(shown) ? `${shown}, ${words}` : words;  // not in brackets: axe drops those
  }

  /* A playing card as an element; ``opts.small``, ``opts.onclick``, ``opts.badge``;
     ``opts.label``: what a screen reader says of it (else the card), ``opts.pressed``: a
     button that is the chosen source, ``opts.key``: what finds it again after a redraw. */
  function card(code, opts = {}) {
    const p = parse(code);
    const cls = ["card", p ? p.cls : "empty", opts.small ? "small" : "", opts.cls || ""]
      .filter(Boolean).join(" ");
    const tag = opts.onclick ? "button" : "span";
    const label = opts.label || (p ? said(code) : opts.empty || "");
    const e = el(tag, { class: cls, type: opts.onclick ? "button" : null, title: p ? p.label : "",
      "data-code": code || "", "data-key": opts.key || null, onclick: opts.onclick || null,
      role: opts.onclick ? null : "img", "aria-label": label,
      "aria-pressed": opts.onclick && opts.pressed !== undefined ? String(!!opts.pressed) : null });
    if (p) {
      e.append(el("span", { class: "rank", text: p.face || p.rank }));
      if (p.suit) e.append(el("span", { class: "suit", text: p.suit }));
    } else if (opts.empty) {
      e.append(el("span", { class: "empty-label", text: opts.empty }));
    }
    if (opts.badge !== undefined && opts.badge !== null) e.append(el("span", { class: "badge", text: opts.badge }));
    return e;
  }

  // ---- Stigespill --------------------------------------------------------------------
  const TW = 100, TH = 132, GAP = 14;
  // a board under 310 px (a 320 px phone) draws its rows closer (ROW_GAP): the road and the
  // die cards to tap under it stand on its first screen
  const NARROW_BOARD = 310, NARROW_ROW_GAP = 4;
  let COLS = 6, ROW_GAP = GAP;

  function tileXY(pos) {
    const row = Math.floor(pos / COLS);
    let col = pos % COLS;
    if (row % 2 === 1) col = COLS - 1 - col; // serpentine: the road snakes back and forth
    return { x: GAP + col * (TW + GAP), y: ROW_GAP + row * (TH + ROW_GAP) };
  }

  // A token's letter: its player's initial, or where two players share one, the number at
  // the end of the name ("Spiller 1", "Spiller 2") or its first two letters.
  // A player's mark on a token or a camera marker: the initial; where two share it, the
  // number a name ends in ("Player 2": 2), else its first two letters
  function tokenLetter(players, seat) {
    const name = (players[seat] || {}).name || "?";
    const initial = (n) => n.slice(0, 1).toUpperCase();
    if (players.filter((p) => initial(p.name) === initial(name)).length < 2) return initial(name);
    const number = /(\d+)$/.exec(name);
    return number ? number[1] : initial(name) + name.slice(1, 2);
  }

  // Black or white, whichever reads better on a player's colour (#rrggbb): white on a teal,
  // orange or white token was hard to read.
  function darkText(colour) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
    if (!m) return false;
    const lin = (h) => { const c = parseInt(h, 16) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const l = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
    return (l + 0.05) / 0.05 > 1.05 / (l + 0.05);
  }

  // Where the tokens on one square stand, relative to its corner: a grid in as few rows as
  // keep them near their size, else as large as the square allows (k: the size, 1 the
  // usual), every token whole and apart. On the start and the goal they stand above the
  // square's word, first row at the top, centred; on a card below its rank, first row at the
  // bottom, from the left, the bottom row ending before the card's place number (bottom
  // right) where the tokens fit so at the same size.
  // A token is never made smaller than ``kMin``, which keeps its letter readable: a crowd
  // too large for the square at that size stands in as few columns as its height allows,
  // rims touching, centred, its sides over the gaps beside the square (ten tokens on a phone
  // stand out of it by half a gap).
  const TOKEN_R = 15, TOKEN_PAD = 3;  // a token's radius; half its white rim and a gap
  const LETTER = 21;  // app.css: .token-label
  const MIN_LETTER_PX = 10.05;  // a token's letter on the screen, however many share a square
  const LABEL_W = 2 * TOKEN_R - 4;  // the widest letter(s) inside a token's rim ("10", "An")
  const TOUCHING = 2 * (TOKEN_R + 0.1);  // tokens' pitch with rims touching, tokens apart
  function tokenSpots(n, end, kMin = 0, print = 1) {
    const box = end ? { x: 3, y: 3, w: TW - 6, h: endWord(print).top - 3 } : { x: 3, y: 38, w: TW - 6, h: TH - 41 };
    const grids = [];
    for (let cols = n; cols >= 1; cols--) {
      grids.push({ cols, pitch: Math.min(box.w / cols, box.h / Math.ceil(n / cols)) });
    }
    const near = grids.find((g) => g.pitch >= 2 * (0.8 * TOKEN_R + TOKEN_PAD));
    let grid = near || grids.reduce((a, b) => (b.pitch > a.pitch ? b : a));
    let pitch = Math.min(grid.pitch, 2 * (TOKEN_R + TOKEN_PAD));
    let k = Math.min(1, pitch / 2 / (TOKEN_R + TOKEN_PAD));
    let spill = false;
    if (k < kMin) {
      k = kMin;
      pitch = TOUCHING * k;
      const rows = Math.max(1, Math.floor(box.h / pitch));
      grid = { cols: Math.ceil(n / Math.min(rows, n)) };
      spill = grid.cols * pitch > box.w;
    }
    const spots = Array.from({ length: n }, (_, i) => {
      const row = Math.floor(i / grid.cols), col = i % grid.cols;
      const inRow = Math.min(grid.cols, n - row * grid.cols);
      const left = end || spill ? box.x + (box.w - inRow * pitch) / 2 : box.x;
      const cy = end ? box.y + (row + 0.5) * pitch : box.y + box.h - (row + 0.5) * pitch;
      return { cx: left + (col + 0.5) * pitch, cy, k, row };
    });
    const clear = end || !spots.some((s) => onNumber(s.cx, s.cy, k, print));
    return clear ? spots : clearOfNumber(spots, box, pitch, k, print);
  }

  // The board's small print, a card's place number and the start's and goal's word, is drawn
  // ``print`` times its size in app.css: on a phone the board is drawn at less than half its
  // size, and they were 8-9 px. At least MIN_PRINT_PX on the screen; the start's word no
  // larger than leaves three rows of tokens at their usual size above it (a solo player's
  // ten on a phone stand in three rows, out over the gaps beside the square, not further).
  const POS_SIZE = 18, END_SIZE = 19;  // app.css: .tile-pos, .tile-small
  const MIN_PRINT_PX = 12;
  const LINE = 1.2, END_FOOT = 6;  // a line's height, of its size; the word's foot from the square's
  const END_MAX = (TH - END_FOOT - 3 - 3 * TOUCHING - 0.5) / LINE;

  // A card's place number (bottom right, "28" in a wide bold font: 1.5 of its size wide,
  // 1.06 tall) and a gap around it, from the card's corner; a token's white rim reaches
  // TOKEN_RIM beyond its radius.
  const TOKEN_RIM = 2;
  const numberCorner = (print) => ({ x: TW - 8 - 1.5 * POS_SIZE * print, y: TH - 10 - 1.06 * POS_SIZE * print });
  function onNumber(cx, cy, k, print) {
    const r = (TOKEN_R + TOKEN_RIM) * k, corner = numberCorner(print);
    return cx + r > corner.x && cy + r > corner.y;
  }

  // The start's and goal's word: its size, its baseline and the top of its line, from the
  // square's corner; its foot stays where it is, however large it is drawn.
  function endWord(print) {
    const size = Math.min(END_MAX, END_SIZE * print);
    return { size, y: TH - END_FOOT - 0.24 * size, top: TH - END_FOOT - LINE * size };
  }

  // The tokens on a card at the same size and spacing, rows from the bottom and each from
  // the left, skipping the place number's corner: the bottom row is shorter. A crowd that
  // does not fit so keeps ``spots`` (the number hidden, rather than smaller tokens).
  function clearOfNumber(spots, box, pitch, k, print) {
    const cells = [];
    for (let row = 0; (row + 1) * pitch <= box.h + 1e-6; row++) {
      const cy = box.y + box.h - (row + 0.5) * pitch;
      for (let col = 0; (col + 1) * pitch <= box.w + 1e-6; col++) {
        const cx = box.x + (col + 0.5) * pitch;
        if (!onNumber(cx, cy, k, print)) cells.push({ cx, cy, k, row });
      }
    }
    return cells.length >= spots.length ? cells.slice(0, spots.length) : spots;
  }

  function stigespill(root, snap, ctx) {
    const v = snap.view;
    COLS = root.clientWidth >= 640 ? 10 : 6; // start, 28 road cards and the goal: 3 or 5 rows
    ROW_GAP = root.clientWidth && root.clientWidth < NARROW_BOARD ? NARROW_ROW_GAP : GAP;
    const rows = Math.ceil(30 / COLS);
    const W = GAP + COLS * (TW + GAP), H = ROW_GAP + rows * (TH + ROW_GAP);
    const where = v.tokens.map((tok) => ctx.t("token_at", { name: ctx.player(tok.seat).name,
      n: tok.position, to_go: 29 - tok.position }));
    const ladders = v.road.filter((tile) => tile.jump === "ladder")
      .map((tile) => `${tile.position}→${tile.jump_to}`);
    if (ladders.length && !snap.road_pending) where.push(ctx.t("ladders", { list: ladders.join(", ") }));
    const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "road", role: "img",
      "aria-label": `${ctx.t("road")}: ${where.join("; ")}` });
    const defs = svg("defs", {},
      svg("marker", { id: "ah-ladder", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4,
        markerHeight: 4, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "ah-ladder" })),
      svg("marker", { id: "ah-snake", viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4,
        markerHeight: 4, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: "ah-snake" })));
    s.append(defs);
    // the road's path under the tiles
    let d = "";
    for (let p = 0; p <= 29; p++) {
      const { x, y } = tileXY(p);
      d += `${p ? "L" : "M"}${x + TW / 2},${y + TH / 2} `;
    }
    s.append(svg("path", { d, class: "road-line" }));
    const tiles = [{ position: 0, code: null, label: ctx.t("start") }, ...v.road,
      { position: 29, code: "JK", label: ctx.t("goal") }];
    const landed = v.step ? v.step.landed : null;
    // a road the camera has not read yet: its places, without cards
    const unread = (tile) => snap.road_pending && tile.position > 0 && tile.position < 29;
    const labels = [];  // ranks, suits and place numbers drawn again above the ladders, which cross cards
    const byPos = {}, spotsAt = {};
    for (const tok of v.tokens) (byPos[tok.position] = byPos[tok.position] || []).push(tok);
    // the board's CSS pixels to a unit of its drawing: a token's letter at least MIN_LETTER_PX
    const scale = Math.min(1, (root.clientWidth || W) / W);
    const kMin = Math.min(1, MIN_LETTER_PX / (LETTER * scale));
    const print = Math.max(1, MIN_PRINT_PX / (POS_SIZE * scale));
    for (const [pos, toks] of Object.entries(byPos)) {
      spotsAt[pos] = tokenSpots(toks.length, +pos === 0 || +pos === 29, kMin, print);
    }
    const number = (tile, x, y) => svg("text", { x: x + TW - 8, y: y + TH - 10, class: "tile-pos",
      "text-anchor": "end", style: `font-size: ${POS_SIZE * print}px`, text: String(tile.position) });
    const word = endWord(print);
    for (const tile of tiles) {
      const { x, y } = tileXY(tile.position);
      const p = tile.code && !unread(tile) ? parse(tile.code) : null;
      const cls = ["tile", p ? p.cls : "start", tile.face ? "face" : "",
        tile.position === 29 ? "goal" : "", landed === tile.position ? "landed" : ""].join(" ");
      const g = svg("g", { class: cls, "data-pos": tile.position });
      g.append(svg("rect", { x, y, width: TW, height: TH, rx: 12 }));
      if (unread(tile)) {
        g.append(svg("text", { x: x + TW / 2, y: y + TH / 2 + 14, class: "tile-big",
          "text-anchor": "middle", text: "?" }));
        g.append(number(tile, x, y));
        labels.push(number(tile, x, y));
      } else if (tile.position === 0 || tile.position === 29) {
        if (!(spotsAt[tile.position] || []).some((spot) => spot.row > 0)) {  // a crowd hides the ▶ (★)
          g.append(svg("text", { x: x + TW / 2, y: y + TH / 2 + 2, class: "tile-big",
            "text-anchor": "middle", text: tile.position === 0 ? "▶" : "★" }));
        }
        g.append(svg("text", { x: x + TW / 2, y: y + word.y, class: "tile-small",
          "text-anchor": "middle", style: `font-size: ${word.size}px`, text: tile.label }));
      } else {
        g.append(svg("text", { x: x + 10, y: y + 30, class: "tile-rank", text: p.face || p.rank }));
        labels.push(svg("text", { x: x + 10, y: y + 30, class: `tile-rank ${p.cls}`, text: p.face || p.rank }));
        g.append(svg("text", { x: x + TW / 2, y: y + TH / 2 + 22, class: "tile-suit",
          "text-anchor": "middle", text: p.suit }));
        labels.push(svg("text", { x: x + TW / 2, y: y + TH / 2 + 22, class: `tile-suit ${p.cls}`,
          "text-anchor": "middle", text: p.suit }));
        g.append(number(tile, x, y));
        labels.push(number(tile, x, y));
      }
      s.append(g);
    }
    // Twin face cards are joined both ways: landing on the lower one climbs the ladder to the
    // higher (green head), landing on the higher slides down the snake (red head).
    // Each end sits on its card's rim, towards the other card: the card's suit stays in view.
    const rim = (c, o) => {
      const dx = o.x - c.x, dy = o.y - c.y, inset = 4;
      const k = Math.min((TW / 2 - inset) / Math.abs(dx || 1e-9), (TH / 2 - inset) / Math.abs(dy || 1e-9));
      return { x: c.x + dx * k, y: c.y + dy * k };
    };
    for (const tile of v.road) {
      if (tile.jump !== "ladder" || unread(tile)) continue;
      const a = tileXY(tile.position), b = tileXY(tile.jump_to);
      const ca = { x: a.x + TW / 2, y: a.y + TH / 2 }, cb = { x: b.x + TW / 2, y: b.y + TH / 2 };
      const { x: ax, y: ay } = rim(ca, cb), { x: bx, y: by } = rim(cb, ca);
      const mx = (ax + bx) / 2, my = (ay + by) / 2;
      const cx = mx - (by - ay) * 0.15, cy = my + (bx - ax) * 0.15;
      s.append(svg("path", { d: `M${ax},${ay} Q${cx},${cy} ${bx},${by}`, class: "jump",
        "marker-start": "url(#ah-snake)", "marker-end": "url(#ah-ladder)",
        "data-from": tile.position, "data-to": tile.jump_to }));
    }
    s.append(svg("g", { class: "tile-labels", "aria-hidden": "true" }, ...labels));
    // tokens
    for (const [pos, toks] of Object.entries(byPos)) {
      const { x, y } = tileXY(+pos);
      toks.forEach((tok, i) => {
        const pl = ctx.player(tok.seat);
        const { cx, cy, k } = spotsAt[pos][i];
        const turn = snap.to_move === tok.seat;
        // a board too narrow for a token's letter even at the token's usual size (a phone
        // 320 px wide; tokens grow no larger): the letter is larger in its token
        const grow = Math.max(1, MIN_LETTER_PX / (LETTER * k * scale));
        const letter = svg("text", { x: 0, y: 7 * grow, "text-anchor": "middle",
          class: darkText(pl.colour) ? "token-label dark" : "token-label",
          text: tokenLetter(snap.table.players, tok.seat) });
        if (grow > 1) letter.style.fontSize = `${LETTER * grow}px`;
        s.append(svg("g", { class: "token" + (turn ? " on-turn" : ""),
          "data-seat": tok.seat, transform: `translate(${x + cx} ${y + cy}) scale(${k})` },
          svg("circle", { cx: 0, cy: 0, r: TOKEN_R, fill: pl.colour }), letter));
      });
    }
    root.append(el("div", { class: "road-wrap" }, s));
    // letters wider than a token ("Mo" in a bold font) are narrowed to stay inside its rim
    for (const label of s.querySelectorAll(".token-label")) {
      if (label.getComputedTextLength() > LABEL_W) {
        label.setAttribute("textLength", LABEL_W);
        label.setAttribute("lengthAdjust", "spacingAndGlyphs");
      }
    }
    // the die and discard piles; when the app deals, a tap on the die pile draws. The table
    // page puts its own move beside them (``pile-do``: the classic draw, then "Next game").
    const last = v.discard.length ? v.discard[v.discard.length - 1] : null;
    const draw = snap.table.deal === "table" ? null : snap.moves.find((m) => m.move.kind === "draw");
    const pileWords = `${ctx.t("die_pile")}: ${ctx.t("cards", { n: v.die_pile })}`;
    root.append(el("div", { class: "pile-row" },
      el("div", { class: "pile" }, card(null, { empty: "?", cls: draw ? "back target" : "back",
        badge: v.die_pile, key: "die-pile", onclick: draw ? () => ctx.play(draw.move) : null,
        label: draw ? `${draw.label} (${pileWords})` : pileWords }),
        el("span", { class: "pile-label", text: ctx.t("die_pile") })),
      el("div", { class: "pile" }, card(last, { empty: "–", badge: v.discard.length || null }),
        el("span", { class: "pile-label", text: ctx.t("discard") })),
      el("div", { class: "pile-do" }),
      el("div", { class: "legend" },
        el("span", { class: "legend-ladder", text: `▲ ${ctx.t("ladder")}` }),
        el("span", { class: "legend-snake", text: `▼ ${ctx.t("snake")}` }))));
  }

  // ---- Sten ------------------------------------------------------------------------------
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

  function sten(root, snap, ctx) {
    const v = snap.view;
    const lay = {};  // each card's lay moves: one per player who may hold it at a real table
    for (const m of snap.moves) if (m.move.kind === "lay") (lay[m.move.card] ||= []).push(m);
    const grid = el("div", { class: "sten-grid" });
    for (const row of v.board) {
      const lowR = row.low ? RANKS.indexOf(parse(row.low).rank) + 1 : 7;
      const highR = row.high ? RANKS.indexOf(parse(row.high).rank) + 1 : 7;
      const r = el("div", { class: "sten-row" },
        el("span", { class: `sten-suit ${row.suit === "H" || row.suit === "D" ? "red" : "black"}`, text: row.symbol }));
      RANKS.forEach((rank, i) => {
        const code = rank + row.suit;
        const n = i + 1;
        const down = row.seven_down && n >= lowR && n <= highR;
        const gone = (n < 7 && row.lower_pile_left) || (n > 7 && row.upper_pile_left);
        const fits = row.fits.includes(code);
        const moves = lay[code] || [];
        let c;
        const name = said(code);
        // A card more than one player may lay (7♥ first, at a real table): the tap cannot
        // tell whose it is, so it points to the buttons that name the player.
        const tap = moves.length === 1 ? () => ctx.play(moves[0].move)
          : moves.length ? () => ctx.note(ctx.t("who_lays", { card: pretty(code) })) : null;
        if (down) c = card(code, { small: true, cls: gone ? "gone" : "",
          label: ctx.t(gone ? "sten_gone" : "sten_laid", { card: name }) });
        else c = card(null, { small: true, empty: faceOf(rank), cls: (fits ? "slot fits" : "slot") + (n === 7 ? " seven" : ""),
          onclick: tap, key: `slot:${code}`,
          label: ctx.t(moves.length ? "sten_lay" : "sten_open", { card: name }) });
        if (moves.length && down === false) c.classList.add("playable");
        r.append(c);
      });
      grid.append(r);
    }
    root.append(grid);
  }

  /* Sten: an order in which all ``cards`` can be laid on ``board`` (the view's rows) in one
     turn, or null. Laying a card only opens more places, so any card that fits may go first. */
  function stenOrder(board, cards) {
    const rank = (code) => RANKS.indexOf(parse(code).rank) + 1;
    const rows = {};
    for (const r of board) {
      rows[r.suit] = { down: r.seven_down, low: r.low ? rank(r.low) : 7, high: r.high ? rank(r.high) : 7 };
    }
    const fits = (code) => {
      const row = rows[code.slice(-1)], n = rank(code);
      if (!row) return false;
      if (!rows.H.down) return code === "7H";
      if (!row.down) return n === 7;
      return n === row.low - 1 || n === row.high + 1;
    };
    const left = cards.slice(), order = [];
    while (left.length) {
      const i = left.findIndex(fits);
      if (i < 0) return null;
      const code = left.splice(i, 1)[0], row = rows[code.slice(-1)], n = rank(code);
      if (n === 7) Object.assign(row, { down: true, low: 7, high: 7 });
      else if (n < 7) row.low = n;
      else row.high = n;
      order.push(code);
    }
    return order;
  }

  // ---- Skip-Bo ------------------------------------------------------------------------------
  function srcKey(m) {
    if (m.kind === "play") {
      if (m.source === "hand") return `hand:${m.card}`;
      if (m.source === "stock") return `stock:${m.owner ?? "me"}`;
      return `discard:${m.owner ?? "me"}:${m.index}`;
    }
    if (m.kind === "discard") return `hand:${m.card}`;
    return null;
  }

  function skipbo(root, snap, ctx) {
    const v = snap.view;
    const sel = ctx.selected();
    const targets = {};
    for (const m of snap.moves) {
      if (sel && srcKey(m.move) === sel) {
        const key = m.move.kind === "play" ? `build:${m.move.pile}` : `mydiscard:${m.move.pile}`;
        targets[key] = m.move;
      }
    }
    const sources = new Set(snap.moves.map((m) => srcKey(m.move)).filter(Boolean));
    const pick = (key) => sources.has(key) ? () => ctx.select(sel === key ? null : key) : null;
    const onTarget = (key) => targets[key] ? () => ctx.play(targets[key]) : null;
    // a card chosen, a building pile it does not fit says why (a tap did nothing)
    const chosen = sel && snap.moves.find((m) => srcKey(m.move) === sel && m.move.card);
    const misfit = (i, next) => chosen
      ? () => ctx.note(ctx.t("no_fit", { card: pretty(chosen.move.card), n: i + 1, next })) : null;

    const build = el("div", { class: "sb-build" });
    v.building.forEach((p, i) => {
      const key = `build:${i}`;
      const c = card(p.top, { empty: String(i + 1), badge: p.count || null,
        cls: targets[key] ? "target" : "", onclick: onTarget(key) || misfit(i, Math.min(p.count + 1, 12)), key,
        label: ctx.t("building_label", { n: i + 1, top: p.top ? said(p.top) : "–",
          next: Math.min(p.count + 1, 12) }) });
      build.append(el("div", { class: "pile" }, c, el("span", { class: "pile-label", text: ctx.t("next_card", { n: Math.min(p.count + 1, 12) }) })));
    });
    build.append(el("div", { class: "pile draw" }, card(null, { empty: "", cls: "back", badge: v.draw_count,
      label: `${ctx.t("draw_pile")}: ${ctx.t("cards", { n: v.draw_count })}` }),
      el("span", { class: "pile-label", text: ctx.t("draw_pile") })));
    root.append(el("h2", { class: "sub", text: ctx.t("building") }), build);

    const me = snap.seat;
    const seats = v.players.slice();
    if (me !== null && me !== undefined) seats.sort((a, b) => (a.seat === me ? -1 : b.seat === me ? 1 : a.seat - b.seat));
    // a phone (live.js): the hand in its seat (a player's own, or on one device the one on
    // turn: that seat first and the others in the order they play next), so the piles a turn
    // needs stand on one screen
    const handSeat = Number.isInteger(me) ? me : v.turn;
    const handBox = Number.isInteger(handSeat) && handSeat >= 0 && ctx.handOnBoard ? ctx.handOnBoard() : null;
    const after = (seat) => (seat - v.turn + seats.length) % seats.length;
    if (handBox && !Number.isInteger(me)) seats.sort((a, b) => after(a.seat) - after(b.seat));
    const list = el("div", { class: "sb-players" });
    for (const p of seats) {
      const pl = ctx.player(p.seat);
      const mine = p.seat === v.turn || p.seat === me;
      const own = p.seat === v.turn ? "me" : String(p.seat);
      const stockKey = `stock:${p.seat === v.turn ? "me" : p.seat}`;
      // its count under it, or where a board of three lines of seats is short of height
      // (app.css) on it, as the draw pile's
      const stock = card(p.stock_top, { empty: p.stock_count ? "?" : "✓", cls: (p.stock_top || !p.stock_count ? "" : "back") + (sel === stockKey ? " selected" : ""),
        onclick: pick(stockKey), pressed: sel === stockKey, key: stockKey, badge: p.stock_count || null,
        label: ctx.t("stock_label", { name: pl.name, top: p.stock_top ? said(p.stock_top) : "?",
          n: p.stock_count }) });
      const discards = el("div", { class: "sb-discards" });
      p.discards.forEach((pile, i) => {
        const key = `discard:${own}:${i}`;
        const tkey = `mydiscard:${i}`;
        const isTarget = p.seat === v.turn && targets[tkey];
        const onclick = isTarget ? onTarget(tkey) : pick(key);
        const shown = pile.slice(-4).map(said).join(", ") || "–";
        const fan = el(onclick ? "button" : "div", { class: "fan" + (isTarget ? " target" : ""),
          type: onclick ? "button" : null, onclick, "data-key": key,
          role: onclick ? null : "group",
          "aria-pressed": onclick && !isTarget ? String(sel === key) : null,
          "aria-label": ctx.t("discard_label", { name: pl.name, n: i + 1, cards: shown }) });
        if (!pile.length) fan.append(card(null, { small: true, empty: String(i + 1) }));
        pile.slice(-4).forEach((code, k, arr) => fan.append(card(code, { small: true,
          cls: k === arr.length - 1 && sel === key ? "selected" : "" })));
        discards.append(fan);
      });
      list.append(el("div", { class: "sb-player" + (p.seat === v.turn ? " on-turn" : ""), "data-seat": p.seat },
        el("div", { class: "sb-who" }, el("i", { class: "dot", style: `background:${pl.colour}` }),
          el("strong", {}, keptWhole(pl.name, snap.table.players)),
          Number.isInteger(p.partner)  // team play: whose piles this player may play from
            ? el("span", { class: "muted small" }, keptWhole(ctx.t("partner", { name: ctx.player(p.partner).name }), snap.table.players)) : null,
          // a finished game's hands are no part of its score: nothing is said of them
          snap.over ? null : el("span", { class: "muted small", text: `${ctx.t("hand")}: ${p.hand_count}` })),
        el("div", { class: "sb-row" },
          el("div", { class: "pile stock" }, stock, el("span", { class: "pile-label stock-count", text: `${ctx.t("stock")} ${p.stock_count}` })),
          discards),
        p.seat === handSeat ? handBox : null));
    }
    root.append(list);
  }

  function hand(root, snap, ctx) {
    const v = snap.view;
    root.replaceChildren();
    const codes = v.hand || [];
    if (!codes.length) {
      root.append(el("p", { class: "muted", text: ctx.t("empty_hand") }));
      return;
    }
    const sel = ctx.selected();
    const playable = {};
    for (const m of snap.moves) {
      if (m.move.card && (m.move.kind === "lay" || m.move.kind === "play" || m.move.kind === "discard")) {
        (playable[m.move.card] = playable[m.move.card] || []).push(m);
      }
    }
    const fits = new Set(v.fits || []);
    codes.forEach((code) => {
      const ms = playable[code] || [];
      let onclick = null;
      if (snap.table.game === "skipbo" && ms.length) onclick = () => ctx.select(sel === `hand:${code}` ? null : `hand:${code}`);
      else if (ms.length === 1) onclick = () => ctx.play(ms[0].move);
      root.append(card(code, { onclick, key: `hand:${code}`,
        pressed: snap.table.game === "skipbo" ? sel === `hand:${code}` : undefined,
        cls: [sel === `hand:${code}` ? "selected" : "", fits.has(code) || (snap.table.game !== "skipbo" && ms.length) ? "fits" : ""].join(" ") }));
    });
  }

  const RENDER = { stigespill, sten, skipbo };

  function render(root, snap, ctx) {
    root.replaceChildren();
    const f = RENDER[snap.table.game];
    if (f) f(root, snap, ctx);
  }

  return { render, hand, card, darkText, el, keptWhole, parse, pretty, said, saidText, srcKey, stenOrder, tokenLetter };
})();
