"""The ``scope-recall hermes`` commands, joined to the CLI through the engine's ``register_commands`` hook."""

from __future__ import annotations

import json

import click

from hermes_plugin import PROVIDER_NAME
from scope_recall_engine.hookspecs import hookimpl


@hookimpl
def register_commands(cli):
    cli.add_command(hermes_group)


_HOME_OPTION = click.option("--hermes-home", "hermes_home", envvar="HERMES_HOME", default="~/.hermes",
                            show_default="$HERMES_HOME, else ~/.hermes", type=click.Path(file_okay=False),
                            help="The Hermes home directory.")


@click.group(name="hermes")
def hermes_group():
    """Install, check and watch the Scope Recall memory provider for Hermes Agent."""


@hermes_group.command(name="install")
@_HOME_OPTION
@click.option("--link", is_flag=True, help="Symlink the plugin folder instead of copying it (development).")
@click.option("--multi-user", is_flag=True,
              help="This Hermes serves several people (a gateway): turn off Hermes' built-in memory, whose "
                   "MEMORY.md/USER.md reach every user's prompt, and record the deployment for verify.")
@click.option("--keep-hermes-config", is_flag=True,
              help="With --multi-user: never edit Hermes' config.yaml; refuse, printing the `hermes config set` "
                   "commands, while its built-in memory is on.")
def install_command(hermes_home, link, multi_user, keep_hermes_config):
    """Place the provider plugin at HERMES_HOME/plugins/scope-recall/."""
    from hermes_plugin import host, install  # here: every other command skips the Hermes runtime

    for line in install.install(hermes_home, link=link, multi_user=multi_user,
                                edit_hermes_config=not keep_hermes_config):
        click.echo(line)
    if not multi_user and (on := host.builtin_memory_on(hermes_home)):
        click.echo(f"note: Hermes' built-in memory stays on beside Scope Recall ({', '.join(on)}): fine for one "
                   "person; for a gateway that serves several people, run install again with --multi-user")
    if host.active_provider(hermes_home) != PROVIDER_NAME:
        click.echo(f"next: hermes config set memory.provider {PROVIDER_NAME}")


@hermes_group.command(name="verify")
@_HOME_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def verify_command(hermes_home, as_json):
    """Load the provider the way Hermes does and report what was found; exit 1 unless it can serve safely."""
    from hermes_plugin.install import verify

    report = verify(hermes_home)
    _print(report, as_json)
    if report["ok"] and not report["active"] and not as_json:
        click.echo(f"next: hermes config set memory.provider {PROVIDER_NAME}")
    if not report["ok"]:
        raise SystemExit(1)


@hermes_group.command(name="status")
@_HOME_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status_command(hermes_home, as_json):
    """Store, CLI user, digest model, backlog, last digest run and error, host isolation; exit 1 on a problem.
    Hermes' `hermes memory status` shows the same lines."""
    from hermes_plugin.status import report

    found = report(hermes_home)
    _print(found, as_json)
    if not found["ok"]:
        raise SystemExit(1)


def _print(report: dict, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report))
        return
    for key, value in report.items():
        if key != "problems":
            click.echo(f"{key}: {', '.join(value) if isinstance(value, list) else value}")
    for problem in report.get("problems", []):
        click.echo(f"problem: {problem}")
