"""The host's model for the digest: inside Hermes, the model Hermes uses for side tasks (its auxiliary client,
``agent.auxiliary_client.call_llm``), so a Hermes user configures no second model or key.

The engine never imports Hermes: this adapter hands it a ``complete(system, prompt) -> text`` callable, wrapped as
the engine's ``ChatExtractor`` (the same interface as an ``llm`` model, so the prompt version and model are recorded
on each run). The calls go out as Hermes' auxiliary task ``scope_recall_digest``, so ``auxiliary.
scope_recall_digest.provider`` / ``.model`` in Hermes' config.yaml can point the digest at another model, like any
other side task.
"""

from __future__ import annotations

from scope_recall_engine.config import Config
from scope_recall_engine.errors import ConfigError
from scope_recall_engine.writing import digest
from scope_recall_engine.writing.extraction_model import ChatExtractor, ModelExtractor

TASK = "scope_recall_digest"
TIMEOUT_SECONDS = 120.0


def complete(system: str, prompt: str) -> str:
    """One chat completion on Hermes' side-task model (the text, or a reasoning model's reasoning)."""
    from agent.auxiliary_client import call_llm, extract_content_or_reasoning

    response = call_llm(task=TASK, timeout=TIMEOUT_SECONDS, messages=[
        {"role": "system", "content": system}, {"role": "user", "content": prompt}])
    return extract_content_or_reasoning(response)


def available() -> ChatExtractor | None:
    """The digest extractor on Hermes' side-task model, or None when Hermes has no model it can call."""
    try:
        from agent.auxiliary_client import get_text_auxiliary_client
    except ImportError:
        return None
    client, model = get_text_auxiliary_client(TASK)
    return ChatExtractor(complete, f"hermes:{model or 'default'}", "host") if client is not None else None


def extractor() -> ChatExtractor:
    """Like ``available``, but a missing model is a one-line error saying what to run."""
    if (found := available()) is None:
        raise ConfigError("Hermes has no model to lend the digest: run `hermes setup` (or `hermes model`), or "
                          "choose the rules extractor")
    return found


def digest_extractor(config: Config):
    """What a Hermes session digests with: the configured choice (digest_extractor, digest_model), else Hermes'
    own model when it has one, else None (the journal waits). For ``Runtime.end_session``."""
    unset = config.digest_extractor is None and not config.digest_model
    host = extractor() if config.digest_extractor == "host" else available() if unset else None
    return digest.choose(None, None, config, host=host)


def check(choice: str, model_id: str | None = None) -> str:
    """The setup flow's one-line test of a choice (rules | host | llm with ``model_id``): a short call to the
    model, returning what answered; a choice that cannot work raises a ScopeRecallError with a one-line message."""
    if choice == "rules":
        return "rules: the offline extractor, no model to call"
    if choice == "host":
        return extractor().check()
    if choice == "llm":
        if not model_id:
            raise ConfigError("the llm choice needs a model id (e.g. gpt-4o-mini; `llm models` lists them)")
        return ModelExtractor(model_id).check()
    raise ConfigError(f"unknown digest extractor {choice!r}: choose one of {digest.EXTRACTORS}")
