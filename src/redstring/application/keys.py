"""API keys: each names one tenant; only a hash of the key is stored.

A key is 32 random bytes (`secrets.token_urlsafe`), shown once at creation. The
workspace keeps `sha256(key) -> tenant` in its settings table (`redstring_meta`),
not in the event log: the log is the append-only source of truth that `replay`
folds and `export`-style tools read, so a secret written there could never be
revoked or kept out of copies, and keys are access control, not knowledge about
entities. SHA-256 rather than a slow password hash: the key has 256 bits of
entropy, so there is nothing to brute-force, and a request's lookup stays one
indexed read. Looking a key up by its hash also avoids comparing secrets.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import TYPE_CHECKING

from redstring.domain.exceptions import InvalidInputError

if TYPE_CHECKING:
    from redstring.application.workspaces import Workspace

#: Every key starts so, so a leaked one is recognisable in logs and secret scanners.
KEY_PREFIX = "rs_"
_SETTING = "apikey:"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(workspace: Workspace, tenant: str) -> str:
    """A new key for `tenant` (registered if new); the only time the key is seen."""
    workspace.register_tenant(tenant)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    workspace.set_setting(_SETTING + _digest(key), tenant)
    return key


def tenant_for_key(workspace: Workspace, key: str) -> str | None:
    """The tenant a key names, or None for an unknown key."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    try:
        key.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError("an API key must be ASCII text") from exc
    return workspace.setting(_SETTING + _digest(key))
