"""Who may do what on the console: the roles, and the one check every route and form goes through."""

from __future__ import annotations

from datasette.utils.asgi import Forbidden

from datasette_plugins.db import DATABASE, SESSIONS, read_only, serves_store

VIEW, ACT = "view-instance", "scope-recall-act"
ROLES = {"admin": {VIEW, ACT}, "viewer": {VIEW}}
PRIVATE_TABLES = ("console_sessions",)  # who is logged in from where: nobody browses it


def allowed(datasette, actor, action: str, resource) -> bool | None:
    """Roles come from the login's actor (``role: admin|viewer``): no role, no access; only admins act."""
    if not serves_store(datasette):
        return None
    if resource == SESSIONS or (isinstance(resource, tuple) and resource[:1] == (SESSIONS,)):
        return False  # a replica's logins: nobody browses them
    if action == ACT and read_only(datasette):
        return False
    if action in (VIEW, ACT):
        return action in ROLES.get((actor or {}).get("role"), ())
    if action == "view-table" and resource in ((DATABASE, table) for table in PRIVATE_TABLES):
        return False
    return None


async def require(datasette, request, action: str) -> None:
    if action == ACT and (why := read_only(datasette)):
        raise Forbidden(why)
    if not await datasette.permission_allowed(request.actor, action, default=False):
        raise Forbidden("log in as an operator allowed to do this" if request.actor else "log in first")


async def may_act(datasette, request) -> bool:
    return await datasette.permission_allowed(request.actor, ACT, default=False)
