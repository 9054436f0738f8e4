"""The ``scope-recall eval`` commands: retrieval measured on LoCoMo and on the negative fixture, extraction on the
digest fixture."""

from __future__ import annotations

import json
import sys

import click

from scope_recall_bench import eval_digest
from scope_recall_bench.evals import FIXTURES, compare, locomo, negative, table
from scope_recall_engine.cli.options import emit, json_option
from scope_recall_engine.config import Config


@click.command(name="locomo")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--ranks", type=click.File("w", encoding="utf-8"), help="Write one JSON line per question.")
@json_option
def locomo_command(file, ranks, as_json):
    """Store each LoCoMo conversation in its own scope and rank its questions (product vs plain BM25)."""
    with click.progressbar(length=0, label="embedding turns", file=sys.stderr) as bar:
        report = locomo(file, ranks, progress=bar.update)
    emit(report, as_json, table(report))

@click.command(name="negative")
@click.option("--update", is_flag=True, help="Rewrite the expected JSON from this run (review the diff).")
@json_option
def negative_command(update, as_json):
    """Positive probes must come back in the top 3; negative queries must return nothing anywhere."""
    actual = negative()
    expected_path = FIXTURES / "negative_expected.json"
    if update:
        expected_path.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    problems = compare(actual, json.loads(expected_path.read_text(encoding="utf-8")))
    summary = {"positives": len(actual["positives"]), "negatives": len(actual["negatives"]),
               "ok": not problems, "problems": problems}
    emit(summary, as_json, "\n".join(problems) or
         f"ok: {summary['positives']} positives in the top 3, {summary['negatives']} negatives returned nothing")
    if problems:
        sys.exit(1)


@click.command(name="personal")
@click.argument("fixtures", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--held-out", is_flag=True, help="Every fixture held out from fitting the probes (the files a change "
              "is judged on), with their total.")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Fixtures measured at a time, each in a process of its own.")
@click.option("--drain", is_flag=True, help="Run index drain before the messages (for comparison).")
@click.option("--misses", is_flag=True, help="List each message whose packet missed, and each unrelated leak.")
@click.option("--embedding-model", help="llm embedding model id for the temporary store (default: the product's).")
@click.option("--typos", is_flag=True, help="Give each message one typo (its longest word, middle letters swapped).")
@json_option
def personal_command(fixtures, held_out, jobs, drain, misses, embedding_model, typos, as_json):
    """Recall in small personal stores (default: the packaged personal.json): hit@1, hit@3, all-wanted@3 per split
    and kind, the unrelated-leak rate and cross-user hits, through the recall packet with abstention on. Given
    several fixtures (or --held-out), a line for each and their total."""
    from scope_recall_bench.eval_personal import many, many_table, personal, table
    from scope_recall_bench.fit_resting import HELD_OUT

    paths = [*fixtures, *(str(FIXTURES / f"{name}.json") for name in HELD_OUT if held_out)]
    options = {"drain": drain, "model": embedding_model, "misses": misses, "typos": typos}
    if len(paths) > 1:
        result = many(paths, jobs=jobs, **options)
        emit(result, as_json, many_table(result))
    else:
        report = personal(paths[0] if paths else None, **options)
        emit(report, as_json, table(report))


@click.command(name="digest")
@click.argument("fixture", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--extractor", type=click.Choice(["rules"]), help="Measure the deterministic offline extractor.")
@click.option("--model", "model_id", help="Measure an llm chat model id (it is called for every session).")
@click.option("--split", type=click.Choice(eval_digest.SPLITS), help="Only this split (default: both).")
@json_option
def digest_command(fixture, extractor, model_id, split, as_json):
    """Recall and precision of the digest's extraction on labelled conversations (FIXTURE: default, the packaged
    fixtures/digest.json), per split and category, with updates, turns that must yield nothing, and the misses."""
    from scope_recall_engine.writing import digest  # here: the other eval commands skip llm

    chosen = digest.choose(extractor, model_id, Config())
    if chosen is None:
        raise click.UsageError("choose what to measure: --extractor rules or --model ID")
    report = eval_digest.measure(chosen, fixture, (split,) if split else eval_digest.SPLITS)
    emit(report, as_json, eval_digest.render(report))
