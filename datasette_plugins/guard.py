"""The console's front door, an ASGI middleware around all of Datasette: every request passes it first.

- A login is a server-side session (``scope_recall_engine.writing.sessions``): the ``ds_actor`` cookie carries the
  session token beside the actor, and a cookie whose session ended, expired, idled out or predates a password
  change is removed from the request before Datasette reads it (and from the browser).
- Anonymous visitors reach the login page and static assets only. ``/``, ``/-/login``, ``/-/logout`` and
  ``/-/password-tool`` lead to the console's own pages (its dashboard, its login and logout; no hashing page).
- A state-changing request must come from a page of this console (Origin, else Referer) and be a bounded,
  UTF-8 form post; its CSRF token is bound to the session: Datasette's CSRF check (asgi-csrf) is handed a token
  derived from the session instead of whatever ``ds_csrftoken`` cookie the browser sent, so a token planted by
  another site (cookies ignore ports) is worthless.
- Every response carries a CSP (``frame-ancestors 'none'``), nosniff and Referrer-Policy, and cookies are HttpOnly
  (and Secure over TLS). No Basic or Bearer authorization: sessions only.
"""

from __future__ import annotations

import base64
import hashlib
import re
import urllib.parse

from datasette.utils.asgi import Response
from itsdangerous import BadSignature

from datasette_plugins import accounts
from datasette_plugins.db import config, read, serves_store, sessions_database, write
from datasette_plugins.web import BASE
from scope_recall_engine.writing import sessions

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
ALIASES = {f"/{page}": f"{BASE}/{name}" for page, name in  # Datasette's paths that lead to the console's pages
           (("", "dashboard"), ("-/login", "login"), ("-/logout", "logout"), ("-/password-tool", "password-tool"))}
OPEN_PATHS = ("/-/login",)  # what an anonymous visitor may open, besides static assets
STATIC_PREFIXES = ("/-/static/", "/-/scope-recall/static/", "/favicon.ico")
FORM = b"application/x-www-form-urlencoded"
MAX_BODY = 256 * 1024  # a memory is at most 4,000 characters; a form post is never near this
INLINE_SCRIPTS = {  # Datasette's own inline scripts, allowed by hash: (template, substitutions of its variables)
    "_close_open_menus.html": [{}],
    "_codemirror_foot.html": [{}],
    "table.html": [{"{{ datasette_allow_facet }}": "true"}, {"{{ datasette_allow_facet }}": "false"}],
}


def script_hashes(env) -> list[str]:
    """CSP hashes of the inline scripts Datasette's templates render, so no other inline script runs."""
    hashes = []
    for name, variants in INLINE_SCRIPTS.items():
        source = env.loader.get_source(env, name)[0]
        for body in re.findall(r"<script>(.*?)</script>", source, re.S):
            for substitutions in variants:
                text = body
                for variable, value in substitutions.items():
                    text = text.replace(variable, value)
                digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
                hashes.append(f"'sha256-{digest}'")
    return hashes


def policy(datasette) -> list[tuple[bytes, bytes]]:
    csp = ("default-src 'self'; script-src 'self' " + " ".join(script_hashes(datasette.jinja_env))
           + "; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
           "form-action 'self'; frame-ancestors 'none'")
    return [(b"content-security-policy", csp.encode("ascii")), (b"x-frame-options", b"DENY"),
            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
            (b"cross-origin-opener-policy", b"same-origin")]


class Guard:
    def __init__(self, datasette, app):
        self.datasette, self.app = datasette, app
        self.headers = policy(datasette)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not serves_store(self.datasette):
            return await self.app(scope, receive, send)
        reply = Reply(send, self.headers, scope.get("scheme") == "https")
        if scope["method"] not in SAFE_METHODS:
            refusal = self.cross_site(scope)
            body, refusal = (None, refusal) if refusal else await bounded_form(scope, receive)
            if refusal:
                return await reply.respond(refusal)
            receive = replay(body, receive)
        cookies = cookie_pairs(scope)
        token, session = await self.session(dict(cookies).get(accounts.COOKIE))
        reply.clear_session = accounts.COOKIE in dict(cookies) and session is None
        if session is None and not opens_anonymously(scope["path"]):
            return await reply.respond(self.ask_to_log_in(scope))
        if session is not None and session.stale():
            await write(self.datasette, sessions.touch, token, block=False,
                        database=sessions_database(self.datasette))
        if alias := ALIASES.get(scope["path"]):
            scope = {**scope, "path": alias, "raw_path": alias.encode("ascii")}
        await self.app(self.rewritten(scope, cookies, token if session else None), receive, reply.send)

    def cross_site(self, scope) -> Response | None:
        """Refuse a state-changing request that does not come from a page of this console."""
        headers = dict(scope["headers"])
        source = (headers.get(b"origin") or headers.get(b"referer") or b"").decode("latin-1")
        parts = urllib.parse.urlsplit(source)
        origin = f"{parts.scheme}://{parts.netloc}".lower()
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if parts.netloc and (parts.netloc.lower() == host or origin in config(self.datasette).get("origins", ())):
            return None
        said = f"from {origin}" if parts.netloc else "without saying where from (no Origin or Referer)"
        return Response.text(f"Refused: this form was posted {said}, not from a page of this console.", status=403)

    async def session(self, cookie: str | None) -> tuple[str | None, sessions.Session | None]:
        """The session the login cookie names, if it is live and the cookie's actor is the session's."""
        try:
            signed = self.datasette.unsign(cookie, "actor") if cookie else {}
        except BadSignature:
            return None, None
        token = signed.get("s") if isinstance(signed, dict) else None
        if not isinstance(token, str):
            return None, None
        session = await read(self.datasette, sessions.resolve, token, accounts.credentials(self.datasette),
                             database=sessions_database(self.datasette))
        return (token, session) if session is not None and session.actor == signed.get("a") else (None, None)

    def ask_to_log_in(self, scope) -> Response:
        if scope["method"] not in ("GET", "HEAD"):
            return Response.text("Log in first: your session ended or never began.", status=403)
        here = scope["path"] + (f"?{scope['query_string'].decode('latin-1')}" if scope.get("query_string") else "")
        query = "" if here == "/" else "?" + urllib.parse.urlencode({"next": here})
        return Response.redirect(self.datasette.urls.path("/-/login") + query)

    def rewritten(self, scope, cookies: list[tuple[str, str]], token: str | None) -> dict:
        """The request as Datasette sees it: no Authorization header, the login cookie only if its session is
        live, and the CSRF cookie bound to that session."""
        kept = [(name, value) for name, value in cookies if name not in (accounts.COOKIE, "ds_csrftoken")]
        if token:
            kept.append((accounts.COOKIE, dict(cookies)[accounts.COOKIE]))
            kept.append(("ds_csrftoken", self.datasette.sign(accounts.csrf_secret(token), "csrftoken")))
        elif "ds_csrftoken" in dict(cookies):
            kept.append(("ds_csrftoken", dict(cookies)["ds_csrftoken"]))
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"cookie", b"authorization")]
        if kept:
            headers.append((b"cookie", "; ".join(f"{k}={v}" for k, v in kept).encode("latin-1")))
        return {**scope, "headers": headers, accounts.SESSION_KEY: token}


def opens_anonymously(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(STATIC_PREFIXES)


def cookie_pairs(scope) -> list[tuple[str, str]]:
    header = dict(scope["headers"]).get(b"cookie", b"").decode("latin-1")
    pairs = (part.strip().partition("=") for part in header.split(";"))
    return [(name, value) for name, _, value in pairs if name]


async def bounded_form(scope, receive) -> tuple[bytes | None, Response | None]:
    """The whole body of a form post, or the 4xx that says why not: not a form, too large, not UTF-8."""
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_BODY:
            return None, Response.text(f"Refused: a form post is at most {MAX_BODY // 1024} KiB.", status=413)
    content_type = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].strip().lower()
    if body and content_type != FORM:
        return None, Response.text("Refused: the console accepts form posts only.", status=415)
    try:
        urllib.parse.parse_qsl(body.decode("utf-8"), keep_blank_values=True, errors="strict")
    except UnicodeDecodeError:
        return None, Response.text("Refused: the form data is not UTF-8 text.", status=400)
    return body, None


def replay(body: bytes, receive):
    sent = False

    async def again():
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return again


class Reply:
    """The response side: security headers on everything, hardened cookies, a stale login cookie removed."""

    def __init__(self, send, headers, tls: bool):
        self._send, self.headers, self.tls, self.clear_session = send, headers, tls, False

    async def send(self, message):
        if message["type"] == "http.response.start":
            # The guard's headers replace Datasette's: its table and row pages say Referrer-Policy: no-referrer, and
            # a browser then posts their forms with Origin: null, which the Origin check must refuse.
            owned = {name for name, _ in self.headers}
            headers = [self.harden(n, v) for n, v in message.get("headers", []) if n.lower() not in owned]
            headers += self.headers
            sets_login = any(n.lower() == b"set-cookie" and v.startswith(accounts.COOKIE.encode() + b"=")
                             for n, v in headers)
            if self.clear_session and not sets_login:
                headers.append((b"set-cookie", f"{accounts.COOKIE}=; Max-Age=0; Path=/; HttpOnly".encode()))
            message = {**message, "headers": headers}
        await self._send(message)

    async def respond(self, response: Response) -> None:
        await response.asgi_send(self.send)

    def harden(self, name: bytes, value: bytes) -> tuple[bytes, bytes]:
        if name.lower() != b"set-cookie":
            return name, value
        flags = value.lower()
        value += b"" if b"httponly" in flags else b"; HttpOnly"
        return name, value + (b"; Secure" if self.tls and b"secure" not in flags else b"")
