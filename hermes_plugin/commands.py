"""The ``scope-recall hermes`` commands, joined to the CLI through the engine's ``register_commands`` hook."""

from __future__ import annotations

import json

import click

from hermes_plugin import PROVIDER_NAME
from scope_recall_engine.hookspecs import hookimpl


@hookimpl
def register_commands(cli):
    cli.add_command(hermes_group)


_HOME_OPTION = click.option("--hermes-home", "hermes_home", required=True, type=click.Path(file_okay=False),
                            help="The Hermes home directory (e.g. ~/.hermes).")


@click.group(name="hermes")
def hermes_group():
    """Install and check the Scope Recall memory provider for Hermes Agent."""


@hermes_group.command(name="install")
@_HOME_OPTION
@click.option("--link", is_flag=True, help="Symlink the plugin folder instead of copying it (development).")
def install_command(hermes_home, link):
    """Place the provider plugin at HERMES_HOME/plugins/scope-recall/."""
    from hermes_plugin.install import install  # here: every other command skips the Hermes runtime

    target = install(hermes_home, link=link)
    click.echo(f"{'linked' if link else 'installed'} {target}")
    click.echo(f"next: hermes config set memory.provider {PROVIDER_NAME}")


@hermes_group.command(name="verify")
@_HOME_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def verify_command(hermes_home, as_json):
    """Load the provider the way Hermes does and report what was found."""
    from hermes_plugin.install import verify

    report = verify(hermes_home)
    if as_json:
        click.echo(json.dumps(report))
    else:
        for key, value in report.items():
            click.echo(f"{key}: {', '.join(value) if isinstance(value, list) else value}")
        if report["ok"] and not report["active"]:
            click.echo(f"next: hermes config set memory.provider {PROVIDER_NAME}")
    if not report["ok"]:
        raise SystemExit(1)
