"""``bench embedder`` times the passes a search makes: the latent-terms pass only for a model that has one."""

import json

from click.testing import CliRunner

from scope_recall_engine.cli.main import cli
from scope_recall_engine.companion import embedders


def embedder_report(model: str) -> dict:
    result = CliRunner().invoke(cli, ["bench", "embedder", "--model", model, "--messages", "10", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_each_bench_s_messages_are_timed_with_both_passes_for_a_model_with_latent_terms():
    report = embedder_report(embedders.E5_MODEL_ID)
    for bench in ("recall", "prefetch"):
        assert report[bench]["vector_pass"]["n"] == 10
        assert report[bench]["vector_and_terms"]["n"] == 10
        assert report[bench]["vector_pass"]["p50_ms"] > 0


def test_a_model_without_latent_terms_is_timed_on_its_vector_pass_alone():
    report = embedder_report(embedders.HASH_MODEL_ID)
    assert report["recall"]["vector_pass"]["n"] == 10 and report["recall"]["vector_and_terms"] is None
