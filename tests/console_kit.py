"""What the console's tests share: a console on a test store whose accounts log in through the real login form,
and a Browser that keeps its cookies and posts forms the way a browser on the console's own pages does."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from datasette_auth_passwords.utils import hash_password

from datasette_plugins import server

PASSWORD = "correct horse"
ORIGIN = "http://localhost"  # datasette.client's host
ROLES = {"admin": "admin", "viewer": "viewer", "dana": "admin", "vic": "viewer", "mallory": None}
TOKEN = re.compile(r'name="csrftoken" value="([^"]+)"')


def metadata(drain_vectors: bool = False, iterations: int = 1000) -> dict:
    """The bundled metadata with test accounts (cheap hashes: a login costs milliseconds, not half a second)."""
    data = server.load_metadata()
    hashed = hash_password(PASSWORD, iterations=iterations)
    auth = {f"{name}_password_hash": hashed for name in ROLES}
    auth["actors"] = {name: {"id": name, **({"role": role} if role else {})} for name, role in ROLES.items()}
    data["plugins"]["datasette-auth-passwords"] = auth
    data["plugins"]["scope-recall"] = {"drain_vectors": drain_vectors}
    return data


async def console_for(db_path, drain_vectors: bool = False, **kwargs):
    datasette = server.build(db_path, metadata(drain_vectors), **kwargs)
    await datasette.invoke_startup()
    return datasette


class Browser:
    """One visitor's cookie jar. ``post`` sends this console's Origin and the CSRF token of the visitor's last
    page unless told otherwise."""

    def __init__(self, ds, client=None):
        self.ds, self.client, self.cookies = ds, client or ds.client, {}

    def keep(self, response):
        """Apply the response's Set-Cookie headers, deletions (Max-Age=0) included."""
        for header in response.headers.get_list("set-cookie"):
            pair, _, attributes = header.partition(";")
            name, _, value = pair.strip().partition("=")
            if "max-age=0" in attributes.lower().replace(" ", ""):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return response

    def headers(self, **more) -> dict:
        jar = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        return {**({"cookie": jar} if jar else {}), **more}

    async def get(self, path, **kwargs):
        return self.keep(await self.client.get(path, headers=self.headers(), **kwargs))

    async def token(self) -> str:
        """The CSRF token a page of the console shows this visitor (the login page when logged out)."""
        page = await self.get("/-/scope-recall/review" if "ds_actor" in self.cookies else "/-/login")
        return TOKEN.search(page.text).group(1)

    async def post(self, path, form=None, *, origin: str | None = ORIGIN, token: str | None = "page", **kwargs):
        data = dict(form or {})
        if token == "page":
            data["csrftoken"] = await self.token()
        elif token is not None:
            data["csrftoken"] = token
        headers = self.headers(**({"origin": origin} if origin else {}))
        return self.keep(await self.client.post(path, data=data, headers=headers, **kwargs))

    async def login(self, name: str, password: str = PASSWORD, next_path: str | None = None):
        form = {"username": name, "password": password, **({"next": next_path} if next_path else {})}
        return await self.post("/-/login", form)


async def logged_in(ds, name: str | None) -> Browser:
    """A browser logged in as ``name`` (None: anonymous, having opened the login page)."""
    browser = Browser(ds)
    if name:
        response = await browser.login(name)
        assert response.status_code == 302 and "ds_actor" in browser.cookies, response.text[:300]
    else:
        await browser.get("/-/login")
    return browser


def messages(ds, response) -> list:
    return ds.unsign(response.cookies["ds_messages"], "messages") if "ds_messages" in response.cookies else []


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_console(store, *options, **env):
    """``scope-recall serve`` on ``store`` (None: none named) in its own process, as an operator starts it;
    yields its base URL."""
    port = free_port()
    command = [str(Path(sys.executable).with_name("scope-recall")), "serve", *(["--db", str(store)] if store else []),
               *options, "--port", str(port)]
    process = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base + "/-/login", process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(url: str, process, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited: {process.stdout.read().decode()}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"server did not answer {url} within {timeout}s")
