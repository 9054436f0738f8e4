"""Fault harnesses: SIGKILL writers at random moments, or run writers concurrently, then check the invariants.

Workers are separate processes (``python -m scope_recall_engine.faults worker ...``) that print one JSON line when
an operation begins and one when it is acknowledged (committed), so the parent knows exactly which writes were
promised and which single operation per worker may have been cut short.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field

from . import doctor, lifecycle, retrieval
from .errors import IllegalTransition
from .principals import human, system
from .scope import Identity
from .store import connect, get_memory
from .visibility import View

IDENTITY = Identity(user="fault-tester", chat="harness")
OPERATIONS = ("store", "store", "candidate", "promote", "reject", "edit", "purge")


@dataclass
class Report:
    runs: int = 0
    kills: int = 0
    acknowledged: int = 0
    in_flight: int = 0
    lost: list = field(default_factory=list)
    unsearchable: list = field(default_factory=list)
    doctor_problems: list = field(default_factory=list)
    writes_per_second: float | None = None
    errors: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.unsearchable or self.doctor_problems or self.errors)

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def _token(rng: random.Random) -> str:
    return "tok" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))


def _emit(kind: str, **fields) -> None:
    sys.stdout.write(json.dumps({"kind": kind, **fields}) + "\n")
    sys.stdout.flush()


def worker(db_path: str, seed: int, operations: int) -> None:
    """Perform random transitions on rows this worker created, announcing each and acknowledging each commit."""
    rng, db = random.Random(seed), connect(db_path)
    active, candidates = [], []
    for _ in range(operations):
        op = rng.choice(OPERATIONS)
        if op in ("promote", "reject") and not candidates or op in ("edit", "purge") and not active:
            op = "store"
        if op in ("store", "candidate"):
            content = f"fault harness memory {_token(rng)}"
            _emit("begin", op=op, content=content)
            if op == "store":
                memory_id = lifecycle.store(db, IDENTITY, "user", content, human("harness")).id
                active.append(memory_id)
            else:
                memory_id = lifecycle.extract(db, IDENTITY.shared_scope, "user", content, system("harness"),
                                              origin="digest").id
                candidates.append(memory_id)
            _emit("ack", op=op, id=memory_id, content=content,
                  lifecycle="active" if op == "store" else "candidate")
            continue
        pool = candidates if op in ("promote", "reject") else active
        memory_id = pool.pop(rng.randrange(len(pool)))
        content = f"fault harness edited {_token(rng)}" if op == "edit" else None
        _emit("begin", op=op, id=memory_id, content=content)
        if op == "edit":
            lifecycle.edit(db, memory_id, human("harness"), content)
            active.append(memory_id)
        else:
            getattr(lifecycle, op)(db, memory_id, human("harness"))
            if op == "promote":
                active.append(memory_id)
        row = get_memory(db, memory_id)
        _emit("ack", op=op, id=memory_id, content=row["content"], lifecycle=row["lifecycle"])


def _spawn(db_path, seed: int, operations: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "scope_recall_engine.faults", "worker", str(db_path), str(seed),
                             str(operations)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _collect(process: subprocess.Popen, lines: list) -> threading.Thread:
    def read():
        for line in process.stdout:
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut by SIGKILL: never acknowledged

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def crash_run(db_path, kills: int = 100, seed: int = 0, max_delay: float = 0.6) -> Report:
    """Start a worker, SIGKILL it after a random delay, repeat; then verify every acknowledged write."""
    rng, report, expected, uncertain = random.Random(seed), Report(), {}, {}
    connect(db_path).close()  # migrations happen before the first kill
    for run in range(kills):
        lines: list = []
        process = _spawn(db_path, seed * 100_000 + run, operations=10_000)
        reader = _collect(process, lines)
        time.sleep(rng.uniform(0.25, 0.25 + max_delay))  # past interpreter start, into the writes
        process.send_signal(signal.SIGKILL)
        process.wait()
        reader.join(timeout=5)
        report.runs += 1
        if process.returncode == -signal.SIGKILL:
            report.kills += 1
        else:
            report.errors.append(f"worker exited {process.returncode}: {process.stderr.read()[-300:]}")
        _absorb(lines, expected, uncertain, report)
    _verify(connect(db_path), expected, uncertain, report)
    return report


def _absorb(lines: list, expected: dict, uncertain: dict, report: Report) -> None:
    pending = None
    for line in lines:
        if line["kind"] == "begin":
            pending = line
        else:
            pending = None
            report.acknowledged += 1
            expected[line["id"]] = (line["lifecycle"], line["content"])
            uncertain.pop(line["id"], None)
    if pending is not None and "id" in pending:
        report.in_flight += 1
        uncertain[pending["id"]] = pending["op"]


def _verify(db, expected: dict, uncertain: dict, report: Report) -> None:
    view = View(IDENTITY.accessible())
    for memory_id, (state, content) in expected.items():
        row = db["memories"].get(memory_id) if db["memories"].count_where("id = ?", [memory_id]) else None
        if row is None:
            report.lost.append(memory_id)
            continue
        if (row["lifecycle"], row["content"]) != (state, content):
            if memory_id not in uncertain:  # only the single in-flight operation may have moved it on
                report.lost.append(memory_id)
            continue
        if state == "active":
            token = content.rsplit(" ", 1)[-1]
            if memory_id not in [hit.id for hit in retrieval.lexical(db, view, token, limit=5)]:
                report.unsearchable.append(memory_id)
    report.doctor_problems = [c.as_dict() for c in doctor.run(db) if not c.ok]


def store_kill_run(db_path, processes: int = 40, seed: int = 0) -> Report:
    """The external check's pattern: many `scope-recall store` CLI processes, some SIGKILLed at random moments."""
    rng, report, expected = random.Random(seed), Report(), {}
    connect(db_path).close()
    command = [os.path.join(os.path.dirname(sys.executable), "scope-recall"), "--db", str(db_path), "store",
               "--user", IDENTITY.user, "--chat", IDENTITY.chat, "--target", "user", "--json"]
    running = []
    for n in range(processes):
        content = f"cli store memory {_token(rng)}"
        running.append((content, subprocess.Popen(command + [content], stdout=subprocess.PIPE,
                                                  stderr=subprocess.PIPE, text=True)))
    for content, process in running:
        if rng.random() < 0.5:
            time.sleep(rng.uniform(0, 0.05))
            process.send_signal(signal.SIGKILL)
    for content, process in running:
        out, err = process.communicate()
        report.runs += 1
        if process.returncode == -signal.SIGKILL:
            report.kills += 1
        if process.returncode == 0:
            report.acknowledged += 1
            expected[json.loads(out)["id"]] = ("active", content)
        elif process.returncode > 0:
            report.errors.append(err.strip()[-300:])
    _verify(connect(db_path), expected, {}, report)
    return report


def concurrency_run(db_path, writers: int = 3, seconds: float = 5.0, seed: int = 0) -> Report:
    """Writers as separate processes for a bounded time: no lock error may surface, no write may be lost."""
    report, expected = Report(), {}
    connect(db_path).close()
    processes = [_spawn(db_path, seed * 100 + n, operations=1_000_000) for n in range(writers)]
    outputs = [[] for _ in processes]
    readers = [_collect(p, out) for p, out in zip(processes, outputs)]
    time.sleep(seconds)
    for process in processes:
        process.send_signal(signal.SIGTERM)
    uncertain = {}
    for process, reader, lines in zip(processes, readers, outputs):
        process.wait()
        reader.join(timeout=5)
        stderr = process.stderr.read()
        if "Traceback" in stderr:
            report.errors.append(stderr.strip().splitlines()[-1])
        report.runs += 1
        _absorb(lines, expected, uncertain, report)
    report.writes_per_second = round(report.acknowledged / seconds, 1)
    _verify(connect(db_path), expected, uncertain, report)
    return report


def decision_race(db_path, rounds: int = 20) -> dict:
    """Promote and reject the same candidate from two processes at once: exactly one decision must win."""
    db, violations = connect(db_path), []
    for n in range(rounds):
        memory_id = lifecycle.extract(db, IDENTITY.shared_scope, "user", f"race candidate number {n}",
                                      system("harness"), origin="digest").id
        racers = {action: subprocess.Popen([sys.executable, "-m", "scope_recall_engine.faults", "decide",
                                            str(db_path), action, str(memory_id)], stdout=subprocess.PIPE, text=True)
                  for action in ("promote", "reject")}
        winners = [action for action, p in racers.items() if p.communicate()[0].strip() == "won"]
        state = get_memory(db, memory_id)["lifecycle"]
        decisions = db["audit_events"].count_where("memory_id = ? and action in ('promote', 'reject')", [memory_id])
        if len(winners) != 1 or decisions != 1 or state != {"promote": "active", "reject": "rejected"}[winners[0]]:
            violations.append({"memory_id": memory_id, "winners": winners, "state": state, "decisions": decisions})
    return {"rounds": rounds, "violations": violations}


def _decide(db_path: str, action: str, memory_id: int) -> None:
    try:
        getattr(lifecycle, action)(connect(db_path), memory_id, human("racer"))
        print("won")
    except IllegalTransition:
        print("lost")


def main(argv: list[str]) -> None:
    if argv[:1] == ["worker"]:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        worker(argv[1], int(argv[2]), int(argv[3]))
    elif argv[:1] == ["decide"]:
        _decide(argv[1], argv[2], int(argv[3]))


if __name__ == "__main__":
    main(sys.argv[1:])
