"""The engine's own extension points (pluggy), like llm's and Datasette's: one short file, one line each."""

from pluggy import HookimplMarker, HookspecMarker

hookspec = HookspecMarker("scope_recall")
hookimpl = HookimplMarker("scope_recall")


@hookspec
def register_redaction_rules(register):
    """Register secret patterns: ``register(name, pattern, check=None)``; matches are redacted before disk."""


@hookspec(firstresult=True)
def capture_filter(role, text):
    """Return a reason string to keep a turn out of the journal (noise, unwanted content), else None."""


@hookspec(firstresult=True)
def admission_policy(content, target, scope_id):
    """Return a reason string to keep an extracted fact from becoming a candidate at all, else None."""


@hookspec
def register_recall_lanes(register):
    """Register extra recall lanes: ``register(name, lane)``, ``lane(db, view, query, limit)`` yielding
    ``(memory_id, score)``; the engine re-reads every id under the visibility predicate before it counts."""
