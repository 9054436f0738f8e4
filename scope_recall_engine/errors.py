"""Every error the engine raises on purpose; each carries the CLI exit code it maps to."""


class ScopeRecallError(Exception):
    """Base class: a refusal or invalid request the caller can act on."""

    exit_code = 1


class InvalidInput(ScopeRecallError):
    """Content, target, identity or query that the engine will not accept."""


class NotFound(ScopeRecallError):
    """No such memory, store or entry."""


class NotPermitted(ScopeRecallError):
    """The principal's kind may not perform this transition (the transition table in writing/lifecycle.py)."""


class IllegalTransition(ScopeRecallError):
    """The memory's lifecycle state does not allow this transition."""


class Tombstoned(ScopeRecallError):
    """The value was rejected or purged by a person and may not come back on its own."""


class ConfigError(ScopeRecallError):
    """Missing or invalid configuration (model ids, paths, passwords)."""


class MissingKey(ConfigError):
    """A model that needs an API key has none (``llm keys set NAME`` or its environment variable)."""


class ConflictingOptions(ConfigError):
    """Choices that exclude each other: a usage error, exit 2 like click's own."""

    exit_code = 2


class NoExtractor(ConfigError):
    """The digest has neither a configured model nor an explicit ``--extractor rules``: the backlog waits."""

    exit_code = 2

    def __init__(self, backlog: int):
        self.backlog = backlog
        super().__init__(
            f"{backlog} journal entries wait for the digest, but no digest model is configured: pass --model ID, "
            "set digest_model (or digest_extractor) in config.json, or choose the offline extractor with "
            "--extractor rules")


class ExtractionFailed(ScopeRecallError):
    """The digest model's reply was unusable; the entries stay unprocessed for the next run."""


class LeaseHeld(ScopeRecallError):
    """Another process holds the digest lease; try again after it expires."""

    exit_code = 75  # EX_TEMPFAIL: a scheduler may retry
