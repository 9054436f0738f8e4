"""Fault harnesses: SIGKILL writers at random moments, or run writers concurrently, then check the invariants.

Every worker writes one JSON line when an operation begins and one when it is acknowledged (committed), so the
harness knows exactly which writes were promised and which single operation per worker may have been cut short.

Crash runs fork their victims from a loop process started fresh for the purpose (``python -m
scope_recall_engine.faults crash ...``): a fork costs milliseconds where a new interpreter costs a quarter of a
second, which is what makes hundreds of real SIGKILLs per test affordable. The loop process holds no database
connection while it forks, and each child opens its own. Concurrency runs start each role (generic writers, the
Datasette console, the Hermes provider, the digest) as its own interpreter.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from scope_recall_engine import config, doctor
from scope_recall_engine.companion import embedders
from scope_recall_engine.errors import IllegalTransition, NotFound
from scope_recall_engine.reading import retrieval
from scope_recall_engine.truth.principals import human, system
from scope_recall_engine.truth.scope import Identity
from scope_recall_engine.truth.store import connect, get_memory
from scope_recall_engine.truth.visibility import View
from scope_recall_engine.writing import digest, journal, lifecycle

IDENTITY = Identity(user="fault-tester", chat="harness")
OPERATIONS = ("store", "store", "candidate", "promote", "reject", "edit", "purge")
CRASH_KINDS = ("transitions", "digest", "drain")
FACTS = ("My name is {t}.", "I live in {t}.", "I like {t} tea.", "I work at {t}.",
         "Please remember that the {t} deploy runs on Fridays.", "Thanks, that helps with {t}.",
         "Can you look at {t} again?")
QUOTA_GRACE_SECONDS = 60.0
MAX_DELAY = {"transitions": 0.12, "digest": 0.25, "drain": 0.4}  # kill windows that land inside the operations


@dataclass
class Report:
    runs: int = 0
    kills: int = 0
    acknowledged: int = 0
    in_flight: int = 0
    kills_by_op: dict = field(default_factory=dict)  # what each victim was doing when it died
    acknowledged_by_op: dict = field(default_factory=dict)
    lost: list = field(default_factory=list)
    unsearchable: list = field(default_factory=list)
    doctor_problems: list = field(default_factory=list)
    invariant_violations: list = field(default_factory=list)
    companion_failures: list = field(default_factory=list)  # vector drains that failed (truth unaffected)
    writes_per_second: float | None = None
    errors: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.unsearchable or self.doctor_problems or self.invariant_violations
                    or self.companion_failures or self.errors)

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def _token(rng: random.Random) -> str:
    return "tok" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))


def _emit(out, kind: str, **fields) -> None:
    out.write(json.dumps({"kind": kind, **fields}) + "\n")
    out.flush()


# ---- workers: each runs while ``running()`` says so (crash victims: until they are killed) -----------------

def transitions_worker(db, rng: random.Random, out, running: Callable[[], bool]) -> None:
    """Random transitions on rows this worker created, announcing each and acknowledging each commit."""
    active, candidates = [], []
    while running():
        op = rng.choice(OPERATIONS)
        if op in ("promote", "reject") and not candidates or op in ("edit", "purge") and not active:
            op = "store"
        if op in ("store", "candidate"):
            content = f"fault harness memory {_token(rng)}"
            _emit(out, "begin", op=op, content=content)
            if op == "store":
                memory_id = lifecycle.store(db, IDENTITY, "user", content, human("harness")).id
                active.append(memory_id)
            else:
                memory_id = lifecycle.extract(db, IDENTITY.shared_scope, "user", content, system("harness"),
                                              origin="digest").id
                candidates.append(memory_id)
            _emit(out, "ack", op=op, id=memory_id, content=content,
                  lifecycle="active" if op == "store" else "candidate")
            continue
        pool = candidates if op in ("promote", "reject") else active
        memory_id = pool.pop(rng.randrange(len(pool)))
        content = f"fault harness edited {_token(rng)}" if op == "edit" else None
        _emit(out, "begin", op=op, id=memory_id, content=content)
        if op == "edit":
            lifecycle.edit(db, memory_id, human("harness"), content)
            active.append(memory_id)
        else:
            getattr(lifecycle, op)(db, memory_id, human("harness"), reason="harness")
            if op == "promote":
                active.append(memory_id)
        row = get_memory(db, memory_id)
        _emit(out, "ack", op=op, id=memory_id, content=row["content"], lifecycle=row["lifecycle"])


def digest_worker(db, rng: random.Random, out, running: Callable[[], bool]) -> None:
    """Journal a few turns, then digest them with the rules extractor under a lease named in the log."""
    while running():
        session = f"s{rng.randrange(4)}"
        for _ in range(rng.randint(5, 40)):
            text = rng.choice(FACTS).format(t=_token(rng).capitalize())
            _emit(out, "begin", op="journal", content=text)
            entry = journal.append(db, IDENTITY, session, "user", text)
            _emit(out, "ack", op="journal", entry=entry.id, content=text)
        _emit(out, "begin", op="digest")  # a killed digest's lease is taken over by the next (its holder is dead)
        entries = digest.run(db, digest.RulesExtractor()).entries
        _emit(out, "ack", op="digest", entries=entries)


def drain_worker(db, rng: random.Random, out, running: Callable[[], bool]) -> None:
    """Store and change a few memories, then drain the vector outbox (hash embedder) or now and then rebuild
    the companion from truth, again and again."""
    from scope_recall_engine.companion import vectors

    mine = []
    while running():
        for _ in range(rng.randint(3, 30)):
            content = f"vector harness memory {_token(rng)}"
            _emit(out, "begin", op="store", content=content)
            mine.append(lifecycle.store(db, IDENTITY, "memory", content, human("harness")).id)
            _emit(out, "ack", op="store", id=mine[-1], content=content, lifecycle="active")
        if len(mine) > 5 and rng.random() < 0.5:
            memory_id = mine.pop(rng.randrange(len(mine)))
            op = rng.choice(("archive", "purge"))
            _emit(out, "begin", op=op, id=memory_id)
            row = getattr(lifecycle, op)(db, memory_id, human("harness"), reason="harness")
            _emit(out, "ack", op=op, id=memory_id, content=row["content"], lifecycle=row["lifecycle"])
        op = "rebuild" if rng.random() < 0.15 else "drain"
        _emit(out, "begin", op=op)
        result = getattr(vectors, op)(db)
        _emit(out, "ack", op=op, upserted=result.upserted)


WORKERS = {"transitions": transitions_worker, "digest": digest_worker, "drain": drain_worker}


# ---- crash runs ---------------------------------------------------------------------------------------------

def prepare(db_path, kind: str) -> None:
    """Create and migrate the store before the first kill; the drain harness uses the fast hash embedder."""
    connect(db_path).close()
    if kind == "drain":
        config.save(db_path, config.Config(embedding_model=embedders.HASH_MODEL_ID))


def crash_run(db_path, kills: int = 100, seed: int = 0, kind: str = "transitions",
              max_delay: float | None = None) -> Report:
    """SIGKILL ``kills`` forked workers of one kind at seeded random moments; verify everything afterwards.

    Runs the kill loop in a fresh interpreter, so forking never copies the caller's threads or connections."""
    command = [sys.executable, "-m", "scope_recall_bench.faults", "crash", str(db_path), kind, str(kills),
               str(seed), str(max_delay if max_delay is not None else MAX_DELAY[kind])]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return Report(errors=[f"kill loop exited {done.returncode}: {done.stderr.strip()[-500:]}"])
    return Report(**{k: v for k, v in json.loads(done.stdout.splitlines()[-1]).items() if k != "ok"})


def kill_loop(db_path, kind: str, kills: int, seed: int, max_delay: float) -> Report:
    rng, report, expected, uncertain = random.Random(seed), Report(), {}, {}
    prepare(db_path, kind)
    if kind == "drain":
        import lancedb  # noqa: F401  (once here, not 1.3 s in every child)
        warnings.filterwarnings("ignore", "lancedb fork support", RuntimeWarning)
    logs = Path(tempfile.mkdtemp(prefix="scope-recall-kills-"))
    kinds, acks = Counter(), Counter()
    for run in range(kills):
        log = logs / f"{run}.jsonl"
        pid = os.fork()
        if pid == 0:
            _child(db_path, kind, seed * 100_000 + run, log)
        time.sleep(rng.uniform(0.002, max_delay))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        report.runs += 1
        lines = _read(log)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            report.kills += 1
        else:
            report.errors.append(f"worker ended by itself: {[line for line in lines if line['kind'] == 'error'][-1:]}")
        kinds[_in_flight(lines)] += 1
        acks.update(_acks(lines))
        _absorb(lines, expected, uncertain, report)
    report.kills_by_op, report.acknowledged_by_op = dict(kinds), dict(acks)
    shutil.rmtree(logs, ignore_errors=True)
    _verify(connect(db_path), expected, uncertain, report, kind)
    return report


def _child(db_path, kind: str, seed: int, log: Path) -> None:
    """The forked victim: never returns, whatever happens."""
    code = 0
    try:
        with open(log, "w", encoding="utf-8") as out:
            try:
                WORKERS[kind](connect(db_path), random.Random(seed), out, lambda: True)
            except BaseException as error:  # reported to the harness as an error line
                _emit(out, "error", error=f"{type(error).__name__}: {error}"[:300])
                code = 1
    finally:
        os._exit(code)


def _read(log: Path) -> list[dict]:
    lines = []
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            pass  # a line cut by SIGKILL: never acknowledged
    return lines


def _in_flight(lines: list[dict]) -> str:
    """The operation a victim was in when it died, or ``between`` (starting up, or between operations)."""
    return lines[-1]["op"] if lines and lines[-1]["kind"] == "begin" else "between"


def _absorb(lines: list, expected: dict, uncertain: dict, report: Report) -> None:
    pending = None
    for line in lines:
        if line["kind"] == "begin":
            pending = line
        elif line["kind"] == "ack":
            pending = None
            report.acknowledged += 1
            if "id" in line:
                expected[line["id"]] = (line["lifecycle"], line["content"])
                uncertain.pop(line["id"], None)
            elif "entry" in line:
                expected.setdefault("journal", {})[line["entry"]] = line["content"]
            elif "turn" in line:
                expected.setdefault("turns", []).append(line["turn"])
        elif line["kind"] == "companion":
            report.companion_failures.append(line["error"])
        else:
            report.errors.append(line.get("error"))
    if pending is not None:
        report.in_flight += 1
        if "id" in pending:
            uncertain[pending["id"]] = pending["op"]


def _verify(db, expected: dict, uncertain: dict, report: Report, kind: str = "transitions") -> None:
    """Acknowledged writes present (and active ones searchable); then each kind's own invariants; doctor."""
    entries, turns = expected.pop("journal", {}), expected.pop("turns", [])
    for memory_id, (state, content) in expected.items():
        try:
            row = get_memory(db, memory_id)
        except NotFound:
            report.lost.append(memory_id)
            continue
        if (row["lifecycle"], row["content"]) != (state, content):
            if memory_id not in uncertain:  # only the single in-flight operation may have moved it on
                report.lost.append(memory_id)
            continue
        if state == "active":
            token = content.rsplit(" ", 1)[-1]
            if memory_id not in [hit.id for hit in retrieval.lexical(db, View((row["scope_id"],)), token, 5)]:
                report.unsearchable.append(memory_id)
    for entry_id, text in entries.items():
        if db["journal_entries"].count_where("id = ? and content = ?", [entry_id, text]) != 1:
            report.lost.append(f"journal entry {entry_id}")
    report.lost += [f"turn {text!r}" for text in turns if not db["journal_entries"].count_where("content = ?", [text])]
    if kind == "digest":
        report.invariant_violations += digest_invariants(db)
    if kind == "drain":
        report.invariant_violations += drain_invariants(db)
    report.doctor_problems = [c.as_dict() for c in doctor.run(db) if not c.ok]


def _linked_or_not(db) -> list[str]:
    """A batch commits its candidates, links and processed marks together: never one without the other."""
    problems = []
    for entry in db["journal_entries"].rows:
        links = db.execute("select count(*) from memory_sources s join memories m on m.id = s.memory_id "
                           "where s.journal_entry_id = ?", [entry["id"]]).fetchone()[0]
        facts = digest.RulesExtractor.facts_in(entry["content"], entry["id"]) if entry["role"] == "user" else []
        if entry["processed_at"] is None and links:
            problems.append(f"unprocessed journal entry {entry['id']} already has {links} source links")
        if entry["processed_at"] is not None and facts and not links:
            problems.append(f"processed journal entry {entry['id']} has facts but no candidate cites it")
    return problems


def _memory_counts(db) -> tuple:
    return (db["memories"].count, db["memory_sources"].count, db["audit_events"].count)


def digest_invariants(db) -> list[str]:
    """No half-applied batch; a re-run completes; a second re-run adds nothing; no value twice in a scope."""
    problems = _linked_or_not(db)
    finished = digest.run(db, digest.RulesExtractor())
    if finished.backlog:
        problems.append(f"a re-run left {finished.backlog} entries unprocessed")
    before = _memory_counts(db)
    again = digest.run(db, digest.RulesExtractor())
    if again.entries or _memory_counts(db) != before:
        problems.append(f"a second re-run changed the store: {before} -> {_memory_counts(db)}")
    duplicates = db.execute("select scope_id, content_hash, count(*) from memories where lifecycle in "
                            "('candidate', 'active') group by 1, 2 having count(*) > 1").fetchall()
    problems += [f"{n} live copies of one value in {scope}" for scope, _, n in duplicates]
    return problems + _linked_or_not(db)


def drain_invariants(db) -> list[str]:
    """After any number of killed drains and rebuilds, one ordinary drain brings the companion in line with truth."""
    from scope_recall_engine.companion import vectors

    vectors.drain(db)
    found = vectors.check(db)
    return [] if found.ok and not found.pending else [f"vector companion after a drain: {found.as_dict()}"]


# ---- the external check's pattern: scope-recall store CLI processes, some SIGKILLed ----------------------

def store_kill_run(db_path, processes: int = 40, seed: int = 0) -> Report:
    """Many `scope-recall store` CLI processes at once, half of them SIGKILLed at random moments."""
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
    report.kills_by_op = {"cli store": report.kills}
    _verify(connect(db_path), expected, {}, report)
    return report


# ---- concurrency: each role its own process, one store, a bounded time ------------------------------------

def concurrency_run(db_path, writers: int = 3, seconds: float = 5.0, seed: int = 0,
                    roles: tuple[str, ...] = (), quotas: dict[str, dict[str, int]] | None = None) -> Report:
    """``writers`` generic writers plus the given roles, as separate processes writing one store at once for
    ``seconds``: no error (lock or other) may surface, no acknowledged write may be lost, counts must match.

    ``quotas`` (role -> op -> acknowledgements) keep every process writing past ``seconds`` until each role
    has done that much, so a slow machine checks the same overlap as a fast one; after ``QUOTA_GRACE_SECONDS``
    more the run stops anyway and the counts tell."""
    from scope_recall_bench import fault_roles

    report, expected, uncertain = Report(), {}, {}
    prepare(db_path, "drain")  # the Hermes role drains after its tool writes: keep that cheap
    every = ["writer"] * writers + list(roles)
    fault_roles.prepare(db_path, every)
    start = time.time() + max(fault_roles.STARTUP_SECONDS[role] for role in every)
    logs = Path(tempfile.mkdtemp(prefix="scope-recall-concurrency-"))
    stop, give_up = logs / "stop", start + seconds + QUOTA_GRACE_SECONDS
    processes = []
    for n, role in enumerate(every):
        log, output = logs / f"{n}-{role}.jsonl", open(logs / f"{n}-{role}.out", "w+", encoding="utf-8")
        processes.append((role, log, output, subprocess.Popen(
            [sys.executable, "-m", "scope_recall_bench.faults", "role", str(db_path), role, str(seed * 100 + n),
             str(log), str(start), str(stop), str(give_up)], stdout=output, stderr=subprocess.STDOUT)))
    while time.time() < give_up and all(process.poll() is None for *_, process in processes):
        if time.time() >= start + seconds and _quotas_met(quotas or {}, processes):
            break
        time.sleep(0.1)
    stop.touch()
    stopped = time.time()
    by_role: dict = {}
    for role, log, output, process in processes:
        process.wait(timeout=120)
        output.seek(0)
        printed = output.read()
        output.close()
        report.runs += 1
        if process.returncode != 0 or "locked" in printed:
            report.errors.append(f"{role} exited {process.returncode}: {printed.strip()[-400:]}")
        lines = _read(log)
        by_role.setdefault(role, Counter()).update(_acks(lines))
        _absorb(lines, expected, uncertain, report)
    shutil.rmtree(logs, ignore_errors=True)
    report.acknowledged_by_op = {role: dict(counts) for role, counts in by_role.items()}
    writes = sum(by_role.get("writer", Counter()).values())
    report.writes_per_second = round(writes / max(stopped - start, 1e-9), 1)
    db = connect(db_path)
    _verify(db, expected, uncertain, report)
    report.invariant_violations += fault_roles.invariants(db, by_role, report)
    return report


def _acks(lines: list[dict]) -> Counter:
    return Counter(line["op"] for line in lines if line["kind"] == "ack")


def _quotas_met(quotas: dict[str, dict[str, int]], processes: list) -> bool:
    done: dict[str, Counter] = {}
    for role, log, *_ in processes:
        if role in quotas:
            done.setdefault(role, Counter()).update(_acks(_read(log)))
    return all(done.get(role, Counter())[op] >= n for role, ops in quotas.items() for op, n in ops.items())


# ---- the promote/reject race --------------------------------------------------------------------------------

def decision_race(db_path, rounds: int = 20) -> dict:
    """Promote and reject the same candidate from two processes at once: exactly one decision must win."""
    db, violations = connect(db_path), []
    for n in range(rounds):
        memory_id = lifecycle.extract(db, IDENTITY.shared_scope, "user", f"race candidate number {n}",
                                      system("harness"), origin="digest").id
        racers = {action: subprocess.Popen([sys.executable, "-m", "scope_recall_bench.faults", "decide",
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
        getattr(lifecycle, action)(connect(db_path), memory_id, human("racer"), reason="race")
        print("won")
    except IllegalTransition:
        print("lost")


def main(argv: list[str]) -> None:
    if argv[:1] == ["crash"]:
        report = kill_loop(argv[1], argv[2], int(argv[3]), int(argv[4]), float(argv[5]))
        print(json.dumps(report.as_dict()))
    elif argv[:1] == ["role"]:
        from scope_recall_bench import fault_roles

        fault_roles.run_role(argv[1], argv[2], int(argv[3]), Path(argv[4]), float(argv[5]), Path(argv[6]),
                             float(argv[7]))
    elif argv[:1] == ["decide"]:
        _decide(argv[1], argv[2], int(argv[3]))


if __name__ == "__main__":
    main(sys.argv[1:])
