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


@hookspec
def register_commands(cli):
    """Add commands to the ``scope-recall`` click group (the CLI, console, Hermes and bench families use it)."""


@hookspec
def purge_memory_rows(db, memory_id):
    """Inside a purge's transaction: erase what you keep of the memory in the store (the recall ledger does)."""


@hookspec
def purge_memory_copies(db, memory_id):
    """After a purge committed: erase copies outside the store (the vector companion's rows and old versions)."""


@hookspec
def extract_entities(text):
    """Return ``(name, kind)`` pairs for what ``text`` mentions (kind: person, pet, place, organisation, project,
    tool, other); every implementation's findings are indexed with the memory, the core's rules among them."""
