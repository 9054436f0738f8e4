"""The layout holds outside the checkout: a CLI start-up that skips the surfaces it does not run, and a regular
(non-editable) install that finds its packaged fixtures, console files and commands."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SURFACES = ("datasette", "uvicorn", "hermes_plugin.runtime", "hermes_plugin.install", "scope_recall_bench.bench",
            "scope_recall_bench.faults", "scope_recall_bench.evals", "scope_recall_engine.writing.digest", "llm",
            "lancedb")


def imported_after(args: list[str], db: Path) -> set[str]:
    """The modules a fresh process holds after running ``scope-recall ARGS``."""
    code = ("import json, sys; from scope_recall_engine.cli.main import cli\n"
            f"try:\n    cli({['--db', str(db), *args]!r})\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_store_imports_no_benchmark_console_hermes_runtime_or_digest(tmp_path):
    loaded = imported_after(["store", "--user", "alice", "--target", "user", "Alice likes tea"], tmp_path / "m.db")
    assert "scope_recall_engine.writing.lifecycle" in loaded  # it did store
    assert not {name for name in SURFACES if name in loaded}
    # control: the same check sees a surface that a command does load
    assert "hermes_plugin.install" in imported_after(["hermes", "install", "--hermes-home", str(tmp_path / "h")],
                                                     tmp_path / "m.db")


def test_a_wheel_installed_outside_the_checkout_runs_its_commands(tmp_path):
    """``pip install`` of the built wheel (not editable) into a fresh venv that borrows only the dependencies."""
    wheels, venv = tmp_path / "wheels", tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    dependencies = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "click").is_dir())
    (site / "dependencies.pth").write_text(f"{dependencies}\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-deps", *map(str, wheels.glob("*.whl"))], check=True, capture_output=True)
    env = {**os.environ, "SCOPE_RECALL_DB": str(tmp_path / "store.sqlite3"), "OMP_NUM_THREADS": "1"}
    run = lambda *args: subprocess.run([str(venv / "bin" / "scope-recall"), *args], capture_output=True, text=True,
                                       env=env, cwd=tmp_path)
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import scope_recall_bench as b; print(b.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path).stdout
    assert str(venv) in where  # the installed copy, not the checkout
    negative = run("eval", "negative", "--json")
    assert negative.returncode == 0, negative.stderr
    assert json.loads(negative.stdout)["ok"] is True
    demo = run("demo", "--help")
    assert demo.returncode == 0 and "Seed a realistic demo store" in demo.stdout
