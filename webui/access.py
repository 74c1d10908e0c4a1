"""Who may open what: join codes for tables in LAN mode, tokens for private pages.

On 127.0.0.1 (the default) only this computer can reach the app, so every page is open to
it and the browser is the table's owner. In LAN mode a table needs its join code (typed,
or from the QR code), the owner is the browser that created the table, and a player's page
always needs that player's secret token.

Every request also passes ``init_app``'s guard: it must be addressed to this computer (DNS
rebinding), and a change must come from Kortbord's own pages (another site, or another port
of this computer). In LAN mode another device is limited in wrong join codes and new
tables, and only this computer chooses a webcam or a network stream.
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
import threading
import time
from collections import deque
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, abort, current_app, request
from werkzeug.exceptions import TooManyRequests

# What a page may be part of and load: only Kortbord's own scripts (none inline: a player's
# name that slipped past escaping still runs nothing), pictures, connections and form
# targets; framed by no other page, no plug-ins, no other base. Styles may be inline (a
# player's colour dot).
CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'self'",
    )
)
WRONG_CODES = 10  # wrong join codes one device may try…
WRONG_CODES_S = 300.0  # …in this many seconds; then it waits (10^6 codes: years to guess)
# Where home networks name their computers ("laptop.local", "laptop.fritz.box"): a name
# elsewhere may be anyone's ("laptop.attacker.example").
LOCAL_ZONES = ("local", "lan", "home", "home.arpa", "internal", "localdomain", "fritz.box")
NEW_TABLES = 20  # tables one other device may start…
NEW_TABLES_S = 600.0  # …in this many seconds (a guest started 57–84 a second, for ever)


def owner_cookie(table_id: str) -> str:
    """Return the name of the cookie that marks the table's host."""
    return f"kb_owner_{table_id}"


def join_cookie(table_id: str) -> str:
    """Return the name of the cookie that remembers a typed join code."""
    return f"kb_join_{table_id}"


def lan() -> bool:
    """Return whether the app runs in LAN mode."""
    return bool(current_app.config.get("LAN"))


def _eq(a: Any, b: str) -> bool:
    return isinstance(a, str) and hmac.compare_digest(a.encode(), b.encode())


def is_owner(table: dict[str, Any]) -> bool:
    """Return whether this browser created the table (always true off the LAN)."""
    if not lan():
        return True
    return _eq(request.cookies.get(owner_cookie(table["id"])), table["owner_token"])


def at_this_computer() -> bool:
    """Return whether the request comes from the computer Kortbord runs on: from a loopback
    address or one of its own (it may open the LAN address it printed), and not passed on
    by a proxy (behind one on this computer, every guest would come from 127.0.0.1)."""
    if request.headers.get("X-Forwarded-For") or request.headers.get("Forwarded"):
        return False
    address = _address(request.remote_addr or "")
    return address is not None and (address.is_loopback or str(address) in _own()[0])


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """Return an address, ``::ffff:127.0.0.1`` (a dual-stack socket's) as ``127.0.0.1``."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def is_loopback(text: str) -> bool:
    """Return whether ``text`` is a loopback address (this computer's own connection)."""
    address = _address(text)
    return address is not None and address.is_loopback


_own_cache: tuple[float, set[str], set[str]] = (-1e9, set(), set())


def _own() -> tuple[set[str], set[str]]:
    """Return this computer's own addresses (its LAN address, its name's) and names, looked
    up at most once a minute (a laptop moves between networks), not on every request."""
    global _own_cache
    if time.monotonic() - _own_cache[0] > 60:
        from webui.cli import lan_address

        addresses = {lan_address()}
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None)
            addresses.update(str(info[4][0]) for info in infos)
        except OSError:
            pass
        own = socket.gethostname().split(".")[0].lower()
        names = {own, socket.getfqdn().lower(), *(f"{own}.{zone}" for zone in LOCAL_ZONES)}
        _own_cache = (time.monotonic(), addresses, names)
    return _own_cache[1], _own_cache[2]


def may_choose_camera() -> bool:
    """Return whether this request may give a table a webcam or a network stream: they are
    the host computer's eyes (its webcam, cameras only it reaches), so in LAN mode only that
    computer chooses them; a phone may be the camera itself."""
    return not lan() or at_this_computer()


def _recent(kind: str, within: float) -> deque[float]:
    """Return the times of this device's recent ``kind`` (call with the lock held)."""
    log: dict[tuple[str, str], deque[float]] = current_app.extensions["kortbord.device_log"]
    times = log.setdefault((kind, request.remote_addr or "?"), deque())
    while times and time.monotonic() - times[0] > within:
        times.popleft()
    return times


def join_code_is(table: dict[str, Any], code: Any) -> bool:
    """Return whether ``code`` is the table's join code. A wrong one counts against this
    device, and after ``WRONG_CODES`` within ``WRONG_CODES_S`` it waits (429)."""
    with current_app.extensions["kortbord.device_lock"]:
        # per table: guessing one table's code locks nobody out of the tables it joined
        tries = _recent(f"wrong code {table['id']}", WRONG_CODES_S)
        if len(tries) >= WRONG_CODES:
            abort(429, "too many wrong join codes from this device: wait a few minutes")
        if _eq(code, table["join_code"]):
            return True
        tries.append(time.monotonic())
        return False


def count_new_table() -> None:
    """Count a table started by this request; 429 when another device has started
    ``NEW_TABLES`` within ``NEW_TABLES_S`` (this computer starts as many as it likes)."""
    if at_this_computer():
        return
    with current_app.extensions["kortbord.device_lock"]:
        started = _recent("new table", NEW_TABLES_S)
        if len(started) >= NEW_TABLES:
            abort(429, "too many new tables from this device: wait a few minutes")
        started.append(time.monotonic())


def may_view(table: dict[str, Any]) -> bool:
    """Return whether this request may open the table's page and API."""
    if not lan() or is_owner(table):
        return True
    code = (
        request.args.get("code")
        or request.headers.get("X-Join-Code")
        or request.cookies.get(join_cookie(table["id"]))
    )
    return bool(code) and join_code_is(table, code)


def may_list(table: dict[str, Any]) -> bool:
    """Return whether the home and match lists show this table to this request: in LAN mode
    only to this computer, its host and those who joined it (names stay in the family)."""
    if not lan() or at_this_computer() or is_owner(table):
        return True
    code = request.cookies.get(join_cookie(table["id"]))
    try:
        # a wrong code counts as one typed: the lists are no way round the limit to guess it
        return bool(code) and join_code_is(table, code)
    except TooManyRequests:
        return False


def may_remove(table: dict[str, Any]) -> bool:
    """Return whether this request may take the table off the lists (or put it back): in
    LAN mode only this computer or the table's host; a guest who joined it may not."""
    return not lan() or at_this_computer() or is_owner(table)


def _trusted_host(host: str) -> bool:
    """Return whether a request's Host names this computer: an address, ``localhost``, this
    computer's own name (``laptop``, ``laptop.local``, ``laptop.lan``…) or a name given in
    ``$KORTBORD_HOSTS`` (say, a reverse proxy's). A web page that points its own name at
    this computer (DNS rebinding) is refused."""
    try:
        name = (urlsplit(f"//{host}").hostname or "").rstrip(".")
    except ValueError:
        return False
    if name in current_app.config["HOSTS"]:
        return True
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return name == "localhost" or name.endswith(".localhost") or name in _own()[1]


def _netloc(origin: str) -> str:
    """Return an Origin's ``host:port`` as a Host header gives it (``null`` gives ``""``)."""
    try:
        parts = urlsplit(origin)
        default = {"http": 80, "https": 443}.get(parts.scheme)
        port = parts.port
    except ValueError:
        return ""
    host = parts.netloc.lower()
    return host.rsplit(":", 1)[0] if port is not None and port == default else host


def init_app(app: Flask) -> None:
    """Guard every request: a trusted host name, and changes only from the app's own pages
    (or from programs, which send no ``Origin``); a page on another site, or on another
    port of this computer (cookies do not tell ports apart), changes nothing."""
    app.extensions["kortbord.device_log"] = {}  # (what, address) -> times: wrong codes…
    app.extensions["kortbord.device_lock"] = threading.Lock()

    @app.before_request
    def guard() -> None:
        if not _trusted_host(request.host):
            abort(400, "open Kortbord by this computer's address or name")
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            # the Origin's host and port, not its scheme: behind an https proxy the app sees http
            origin = request.headers.get("Origin")
            fetch_site = request.headers.get("Sec-Fetch-Site")
            if (origin and _netloc(origin) != request.host.lower()) or fetch_site in (
                "cross-site",
                "same-site",
            ):
                abort(403, "a change must come from Kortbord's own pages")

    @app.after_request
    def protect(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("X-Frame-Options", "DENY")  # no page of another site frames a table
        headers.setdefault("Content-Security-Policy", CSP)
        headers.setdefault("Referrer-Policy", "same-origin")
        return response


def require_view(table: dict[str, Any]) -> None:
    """Abort with 403 unless this request may see the table."""
    if not may_view(table):
        abort(403, "this table needs its join code")


def require_owner(table: dict[str, Any]) -> None:
    """Abort with 403 unless this browser is the table's host."""
    if not is_owner(table):
        abort(403, "only the table's host may do that")
