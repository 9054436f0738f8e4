"""JSON Lines export and import: import arrives as candidates, never as trusted memory."""

from __future__ import annotations

import json
from typing import Iterable, Iterator

from scope_recall_engine.errors import InvalidInput, Tombstoned
from scope_recall_engine.truth.content import validate
from scope_recall_engine.truth.principals import system
from scope_recall_engine.truth.scope import Identity, check_target
from scope_recall_engine.truth.store import write
from scope_recall_engine.writing import lifecycle

EXPORT_FIELDS = ("id", "content", "target", "lifecycle", "review_state", "origin", "scope_id", "valid_from",
                 "valid_to", "created_at", "updated_at")


def parse_lines(lines: Iterable[str]) -> list[dict]:
    """Validate the whole file before anything is written: bad input is reported by line and writes nothing."""
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInput(f"line {number}: not JSON ({error.msg})") from None
        if not isinstance(record, dict) or not isinstance(record.get("content"), str):
            raise InvalidInput(f'line {number}: expected an object like {{"content": "...", "target": "user"}}')
        try:
            records.append({"line": number, "content": validate(record["content"]),
                            "target": check_target(record.get("target", "memory"))})
        except InvalidInput as error:
            raise InvalidInput(f"line {number}: {error}") from None
    return records


def import_records(db, identity: Identity, records: list[dict]) -> dict:
    """One transaction; each record a candidate (origin import, principal system:import); tombstoned ones skipped."""
    ids, skipped = [], []
    principal = system("import")
    with write(db):
        for record in records:
            try:
                result = lifecycle.extract(db, identity.scope_for(record["target"]), record["target"],
                                           record["content"], principal, origin="import")
            except Tombstoned as refusal:
                skipped.append({"line": record["line"], "reason": str(refusal)})
                continue
            ids.append(result.id)
    return {"ids": ids, "skipped": skipped}


def export_rows(db, scopes: tuple[str, ...]) -> Iterator[dict]:
    """Every non-purged row of the given scopes (an identity's readable set), nothing else."""
    for row in lifecycle.rows_in(db, scopes):
        if row["lifecycle"] != "purged":
            yield {field: row[field] for field in EXPORT_FIELDS}
