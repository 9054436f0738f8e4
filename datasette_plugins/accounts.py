"""Logging in and out: datasette-auth-passwords' accounts and password check, with what it lacks around them.

Accounts stay as datasette-auth-passwords configures them (``<name>_password_hash`` and ``actors`` in its plugin
config) and its ``verify_password`` checks a password. This module adds: a server-side session per login,
throttling per account and per address, hashing on a small thread pool instead of the event loop, a return to
the page that asked for the login, and a logout that ends the session.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import math
import time
from concurrent.futures import ThreadPoolExecutor

from datasette.utils.asgi import Response
from datasette_auth_passwords.utils import verify_password

from datasette_plugins.db import sessions_database, write
from datasette_plugins.web import local_path
from scope_recall_engine.writing import sessions

AUTH_PLUGIN = "datasette-auth-passwords"
COOKIE = "ds_actor"  # Datasette's login cookie, now carrying the session token too
SESSION_KEY = "scope_recall.session"  # where the guard leaves a live session's token in the request scope
MAX_PASSWORD = 1024
# what an unknown account's login costs: the same PBKDF2 work as a real one, so timing does not tell them apart
UNKNOWN = "pbkdf2_sha256$480000$scope-recall-unknown-account$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
HASHING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="password-check")  # PBKDF2 releases the GIL


def passwords(datasette) -> dict[str, str]:
    """Account name -> password hash, for the accounts that have one."""
    config = datasette.plugin_config(AUTH_PLUGIN) or {}
    return {key[: -len("_password_hash")]: value for key, value in config.items()
            if key.endswith("_password_hash") and isinstance(value, str) and value}


def fingerprint(hashed: str) -> str:
    """What a session remembers of the password hash it logged in with: a new password ends it."""
    return hashlib.sha256(hashed.encode("utf-8")).hexdigest()[:32]


def credentials(datasette) -> dict[str, str]:
    return {name: fingerprint(hashed) for name, hashed in passwords(datasette).items()}


def csrf_secret(token: str) -> str:
    """The CSRF value bound to a session (one-way: a page showing it reveals nothing of the session token)."""
    return hashlib.sha256(f"csrf:{token}".encode("utf-8")).hexdigest()


class Throttle:
    """Failed logins per key within ``window`` seconds; at ``limit`` the key waits until the oldest one expires."""

    def __init__(self, limit: int, window: float, keys: int = 10_000):
        self.limit, self.window, self.keys = limit, window, keys
        self.failures: dict[str, collections.deque] = {}

    def wait(self, key: str) -> float:
        failures = self.failures.get(key)
        while failures and failures[0] <= time.monotonic() - self.window:
            failures.popleft()
        return failures[0] + self.window - time.monotonic() if failures and len(failures) >= self.limit else 0.0

    def fail(self, key: str) -> None:
        if key not in self.failures and len(self.failures) >= self.keys:
            self.failures.pop(next(iter(self.failures)))  # forget the longest-known key, never grow without bound
        self.failures.setdefault(key, collections.deque()).append(time.monotonic())

    def clear(self, key: str) -> None:
        self.failures.pop(key, None)


PER_ACCOUNT = Throttle(limit=10, window=15 * 60)
PER_ADDRESS = Throttle(limit=20, window=15 * 60)


async def password_matches(password: str, hashed: str | None) -> bool:
    """PBKDF2 off the event loop, at most two at once: a burst of logins does not freeze every other page."""
    def check() -> bool:
        try:
            return verify_password(password, hashed or UNKNOWN)
        except (ValueError, AssertionError):  # a malformed configured hash matches nothing
            return False

    matched = await asyncio.get_running_loop().run_in_executor(HASHING, check)
    return matched and hashed is not None


async def login(request, datasette):
    next_path = local_path(request.args.get("next"), "/")
    if request.method != "POST":
        if request.actor:
            return Response.redirect(next_path)
        return await login_page(datasette, request, next_path)
    form = await request.post_vars()
    username, password = form.get("username", "")[:200], form.get("password", "")
    next_path = local_path(form.get("next"), next_path)
    address = (request.scope.get("client") or ("unknown",))[0]
    known = passwords(datasette)
    keys = ([f"account:{username}"] if username in known else []) + [f"address:{address}"]
    wait = max(throttle(key).wait(key) for key in keys)
    if wait:
        minutes = math.ceil(wait / 60)
        return await login_page(datasette, request, next_path, username, status=429, error=(
            f"Too many failed logins: try again in {minutes} minute{'s' if minutes != 1 else ''}."))
    if len(password) > MAX_PASSWORD or not await password_matches(password, known.get(username)):
        for key in keys:
            throttle(key).fail(key)
        return await login_page(datasette, request, next_path, username, status=401,
                                error="Invalid username or password.")
    for key in keys:
        throttle(key).clear(key)
    return await start_session(datasette, request, username, known[username], next_path)


def throttle(key: str) -> Throttle:
    return PER_ACCOUNT if key.startswith("account:") else PER_ADDRESS


async def start_session(datasette, request, username: str, hashed: str, next_path: str) -> Response:
    actor = ((datasette.plugin_config(AUTH_PLUGIN) or {}).get("actors") or {}).get(username) or {"id": username}
    address = (request.scope.get("client") or (None,))[0]
    token = await write(datasette, sessions.start, username, actor, fingerprint(hashed), address,
                        database=sessions_database(datasette))
    response = Response.redirect(next_path)
    response.set_cookie(COOKIE, datasette.sign({"a": actor, "s": token}, "actor"), httponly=True,
                        max_age=int(sessions.LIFETIME.total_seconds()), secure=request.scheme == "https")
    return response


async def login_page(datasette, request, next_path: str, username: str = "", *, error: str | None = None,
                     status: int = 200) -> Response:
    return Response.html(await datasette.render_template("scope_recall_login.html", {
        "error": error, "next": next_path, "username": username}, request=request), status=status)


async def logout(request, datasette):
    """GET asks to confirm; POST ends the session (the guard put its token in the request) and drops the cookie."""
    if request.method != "POST":
        return Response.html(await datasette.render_template("logout.html", {"actor": request.actor},
                                                             request=request))
    if token := request.scope.get(SESSION_KEY):
        await write(datasette, sessions.end, token, database=sessions_database(datasette))
    datasette.add_message(request, "You are logged out.", datasette.INFO)
    response = Response.redirect(datasette.urls.path("/-/login"))
    response.set_cookie(COOKIE, "", max_age=0, httponly=True)
    return response


async def password_tool(request, datasette):
    """datasette-auth-passwords' hashing page would hash for anyone, on the event loop: the CLI does it instead."""
    return Response.text("Not here: make a password hash with `scope-recall hash-password`.", status=404)
