"""Who may open what: join codes for tables in LAN mode, tokens for private pages.

On 127.0.0.1 (the default) only this computer can reach the app, so every page is open to
it and the browser is the table's owner. In LAN mode a table needs its join code (typed,
or from the QR code), the owner is the browser that created the table, and a player's page
always needs that player's secret token.
"""

from __future__ import annotations

import hmac
from typing import Any

from flask import abort, current_app, request


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


def may_view(table: dict[str, Any]) -> bool:
    """Return whether this request may open the table's page and API."""
    if not lan() or is_owner(table):
        return True
    code = (
        request.args.get("code")
        or request.headers.get("X-Join-Code")
        or request.cookies.get(join_cookie(table["id"]))
    )
    return _eq(code, table["join_code"])


def require_view(table: dict[str, Any]) -> None:
    """Abort with 403 unless this request may see the table."""
    if not may_view(table):
        abort(403, "this table needs its join code")


def require_owner(table: dict[str, Any]) -> None:
    """Abort with 403 unless this browser is the table's host."""
    if not is_owner(table):
        abort(403, "only the table's host may do that")
