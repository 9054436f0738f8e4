"""The provider under Hermes' own commands, run as a user runs them (``hermes memory status``, ``hermes memory
setup`` on a terminal) in subprocesses, and ``scope-recall hermes install|verify|status`` against a Hermes home:
half-installed, re-configured, and deployed for several people."""

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from hermes_plugin import host, install, runtime
from scope_recall_engine import config
from scope_recall_engine.cli.main import cli

HERMES = str(Path(sys.executable).with_name("hermes"))
HIDE_ENGINE = '''
import sys

class Hide:
    """This Python has no scope_recall_engine (installed into another environment, or half-installed)."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "scope_recall_engine":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Hide())
'''


@pytest.fixture
def home():
    path = Path(os.environ["HERMES_HOME"])
    path.mkdir(parents=True, exist_ok=True)
    install.install(path)  # a copy, as users install it
    (path / "config.yaml").write_text("memory:\n  provider: scope-recall\n", encoding="utf-8")
    return path


@pytest.fixture
def without_engine(tmp_path):
    """Environment variables for a Hermes whose Python cannot import the engine (a sitecustomize hides it)."""
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(HIDE_ENGINE, encoding="utf-8")
    return {**os.environ, "PYTHONPATH": str(tmp_path / "hide")}


def hermes(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([HERMES, *args], capture_output=True, text=True, env=env or dict(os.environ), timeout=180)


def on_terminal(args: list[str], answers: list[tuple[str, str]], env: dict, timeout: float = 120) -> str:
    """Run Hermes on a pseudo-terminal (its prompts need one), typing each answer once its prompt appears.
    TERM names no terminal, so Hermes' menus fall back to numbered choices."""
    master, slave = pty.openpty()
    process = subprocess.Popen([HERMES, *args], stdin=slave, stdout=slave, stderr=slave,
                               env={**env, "TERM": "scope-recall-test"})
    os.close(slave)
    output, pending, answered_at, deadline = "", list(answers), 0, time.monotonic() + timeout
    try:
        while process.poll() is None or select.select([master], [], [], 0)[0]:
            assert time.monotonic() < deadline, output
            if select.select([master], [], [], 0.1)[0]:
                try:
                    output += os.read(master, 65536).decode(errors="replace")
                except OSError:  # the terminal closed with the process
                    break
            if pending and pending[0][0] in output[answered_at:]:
                os.write(master, (pending.pop(0)[1] + "\n").encode())
                answered_at = len(output)
    finally:
        process.wait(30)
        os.close(master)
    return output


def setup(home, fallback_user: str, digest_model: str, env=None, extractor: str = "") -> str:
    from hermes_cli.memory_setup import _get_available_providers

    with host.hermes_home_env(home):
        choice = [name for name, _, _ in _get_available_providers()].index("scope-recall") + 1
    return on_terminal(["memory", "setup"], [("Choice", str(choice)), ("User id for CLI sessions", fallback_user),
                                             ("Digest with", extractor), ("llm model id", digest_model)],
                       env or dict(os.environ))


def saved(home) -> config.Config:
    return config.load(runtime.hermes_store(home))


def test_memory_status_and_setup_keep_working_when_the_engine_cannot_be_imported(home, without_engine):
    working = hermes("memory", "status")  # control: the same home with the engine importable
    assert working.returncode == 0 and "Status:    available ✓" in working.stdout and "store: " in working.stdout

    broken = hermes("memory", "status", env=without_engine)
    assert broken.returncode == 0 and "Traceback" not in broken.stdout + broken.stderr
    assert "Status:    not available ✗" in broken.stdout and "scope-recall  (" in broken.stdout
    assert "No module named 'scope_recall_engine'" in broken.stdout
    command = json.loads((home / "plugins" / "scope-recall" / "install.json").read_text())["pip"]
    hermes_python = Path(HERMES).read_text().splitlines()[0].removeprefix("#!")  # the Python running Hermes
    assert f"install: {hermes_python} -m pip install {command}" in broken.stdout
    assert command == install.pip_spec() and command.startswith("-e ")  # this checkout is an editable install

    before = (home / "config.yaml").read_text()
    shown = setup(home, "x", "x", env=without_engine)
    assert "Scope Recall is not installed in this Python" in shown and "-m pip install" in shown
    assert (home / "config.yaml").read_text() == before and not runtime.hermes_store(home).parent.exists()


def test_setup_shows_the_saved_settings_and_enter_keeps_them(home):
    first = setup(home, "alice", "")
    assert f"User id for CLI sessions (Hermes supplies none there) [{host_user()}]" in first
    assert saved(home).fallback_user == "alice"

    again = setup(home, "", "")  # the user presses Enter at every prompt
    assert "[alice]" in again and saved(home).fallback_user == "alice" and saved(home).digest_model is None

    refused = setup(home, "bob", "no-such-model")
    assert "unknown digest model 'no-such-model'" in refused
    assert saved(home).fallback_user == "alice"  # refused as a whole: nothing half-saved

    setup(home, "bob", "gpt-4o-mini")  # its key may come later: saved, and status says what is missing
    assert (saved(home).fallback_user, saved(home).digest_model) == ("bob", "gpt-4o-mini")
    assert "[gpt-4o-mini]" in setup(home, "", "none") and saved(home).digest_model is None


def test_setup_offers_the_extractor_and_checks_the_choice_with_a_call(home):
    assert "Digest with: rules" in setup(home, "alice", "", extractor="rules")
    assert saved(home).digest_extractor == "rules"  # checked: the offline extractor needs no call to succeed
    refused = setup(home, "", "", extractor="host")  # this Hermes home has no model to lend
    assert "Hermes has no model to lend the digest" in refused and saved(home).digest_extractor == "rules"
    assert "digest extractor 'magic'" in setup(home, "", "", extractor="magic")
    assert "[rules]" in setup(home, "", "") and saved(home).digest_extractor == "rules"  # Enter keeps it


def host_user() -> str:
    from hermes_plugin.settings import os_user

    return os_user()


def cli_run(*args):
    return CliRunner().invoke(cli, list(args))


def test_multi_user_install_turns_hermes_builtin_memory_off_or_refuses_with_the_commands(tmp_path):
    home = tmp_path / "gateway-home"
    refused = cli_run("hermes", "install", "--hermes-home", str(home), "--multi-user", "--keep-hermes-config")
    assert refused.exit_code == 1 and not (home / "plugins").exists()  # refused before anything changed
    expected = (f"HERMES_HOME={home} hermes config set memory.memory_enabled false && "
                f"HERMES_HOME={home} hermes config set memory.user_profile_enabled false")
    assert expected in refused.stderr and refused.stderr.count("\n") == 1

    single = cli_run("hermes", "install", "--hermes-home", str(home))
    assert single.exit_code == 0 and "run install again with --multi-user" in single.stdout
    assert json.loads(cli_run("hermes", "verify", "--hermes-home", str(home), "--json").stdout)["ok"] is True

    multi = cli_run("hermes", "install", "--hermes-home", str(home), "--multi-user")
    assert multi.exit_code == 0 and "turned off Hermes' built-in memory" in multi.stdout
    assert host.builtin_memory_on(home) == [] and saved(home).multi_user is True
    report = json.loads(cli_run("hermes", "verify", "--hermes-home", str(home), "--json").stdout)
    assert report["ok"] is True and report["hermes_builtin_memory"] == "off" and report["deployment"] == "multi-user"

    operator = {**os.environ, "HERMES_HOME": str(home)}  # Hermes' own command, as an operator would type it
    assert hermes("config", "set", "memory.user_profile_enabled", "true", env=operator).returncode == 0
    failing = cli_run("hermes", "verify", "--hermes-home", str(home))
    assert failing.exit_code == 1 and (f"HERMES_HOME={home} hermes config set memory.user_profile_enabled false"
                                       in failing.stdout)
    assert "memory.memory_enabled false" not in failing.stdout  # only what is on


def test_hermes_status_reports_without_creating_a_store(home):
    result = cli_run("hermes", "status", "--hermes-home", str(home), "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["ok"] is True and "not created yet" in report["store"]
    assert not runtime.hermes_store(home).exists()
    config.save(runtime.hermes_store(home), config.Config(digest_model="no-such-model", fallback_user="dana"))
    broken = cli_run("hermes", "status", "--hermes-home", str(home))
    assert broken.exit_code == 1 and "cli_user: dana" in broken.stdout
    assert "problem: unknown digest model 'no-such-model'" in broken.stdout
    assert not runtime.hermes_store(home).exists()
