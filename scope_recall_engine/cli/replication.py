"""``scope-recall replicate`` and ``restore``: the store streamed to object storage by Litestream, and back."""

from __future__ import annotations

import signal
from dataclasses import replace

import click

from scope_recall_engine import config as settings
from scope_recall_engine import objectstore
from scope_recall_engine import replication as litestream
from scope_recall_engine.cli.options import db_path, emit, json_option, load_config, open_db
from scope_recall_engine.hookspecs import hookimpl


@hookimpl
def register_commands(cli):
    for command in (replicate, restore):
        cli.add_command(command)


endpoint_option = click.option(
    "--endpoint", help="An S3-compatible endpoint, e.g. http://127.0.0.1:9000 (default: the object_store_endpoint "
                       "setting, else $AWS_ENDPOINT_URL, else AWS S3). Credentials: AWS_ACCESS_KEY_ID and "
                       "AWS_SECRET_ACCESS_KEY in the environment.")


@click.command()
@click.option("--to", "url", help="s3://BUCKET/PREFIX (default: the replica_url setting).")
@endpoint_option
@click.option("--sync-interval", type=click.FloatRange(min=0.1), help="Seconds between uploads (default: the "
              "sync_interval_seconds setting, 1): at most this much acknowledged work is lost with the machine.")
def replicate(url, endpoint, sync_interval):
    """Stream the store to object storage with Litestream until stopped (Ctrl-C or SIGTERM).

    The settings are saved to config.json beside the store, so ``doctor`` reports the replica's last sync."""
    db = open_db()
    db.close()
    config = load_config()
    url = url or config.replica_url
    if not url:
        raise click.UsageError("name the replica with --to s3://BUCKET/PREFIX")
    location = objectstore.parse(url, endpoint or config.object_store_endpoint)
    interval = sync_interval or config.sync_interval_seconds
    objectstore.probe(location)
    settings.save(db_path(), replace(config, replica_url=location.url, object_store_endpoint=location.endpoint,
                                     sync_interval_seconds=interval))
    process = litestream.start(db_path(), location, interval)
    click.echo(f"replicating {db_path()} to {location.url} at {location.where} every {interval:g}s "
               f"(Litestream pid {process.pid}); Ctrl-C stops", err=True)
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        code = process.wait()
    except KeyboardInterrupt:
        process.terminate()
        code = process.wait()
    raise SystemExit(0 if code in (0, -signal.SIGTERM) else 1)


@click.command()
@click.option("--from", "url", required=True, help="s3://BUCKET/PREFIX the store was replicated to.")
@click.option("--db", "target", required=True, type=click.Path(dir_okay=False), help="Store file to restore into.")
@click.option("--timestamp", help="Restore the store as it was at this moment (RFC 3339, UTC if no zone).")
@click.option("--force", is_flag=True, help="Replace a store that already exists at --db.")
@endpoint_option
@json_option
def restore(url, target, timestamp, force, endpoint, as_json):
    """Restore a replicated store (its latest state, or as of --timestamp) into --db."""
    location = objectstore.parse(url, endpoint)
    out = litestream.restore(location, target, timestamp=timestamp, force=force)
    memories = open_restored(out)
    emit({"restored": str(out), "from": location.url, "timestamp": timestamp, "memories": memories}, as_json,
         f"restored {location.url} into {out}: {memories} memories.\nNext: copy {out.stem}.secret and config.json "
         "from the old machine's backup if you have them (purged values stay refused only with the secret); run "
         f"scope-recall --db {out} index drain (unless the companion is on object storage), then doctor.")


def open_restored(path) -> int:
    """Open the restored store once (migrating it to this version) and count its memories. A companion that
    stayed on the lost machine is rebuilt by the next drain: every row is queued for it."""
    from scope_recall_engine.companion import vectors
    from scope_recall_engine.truth.store import connect

    db = connect(path)
    try:
        if not vectors.exists(db):
            vectors.queue_all(db)
        return db["memories"].count
    finally:
        db.close()
