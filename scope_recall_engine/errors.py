"""Every error the engine raises on purpose; adapters map them to exit codes, HTTP status or tool JSON here."""


class ScopeRecallError(Exception):
    """Base class: a refusal or invalid request the caller can act on."""

    exit_code = 1
    http_status = 400


class InvalidInput(ScopeRecallError):
    """Content, target, identity or query that the engine will not accept."""


class NotFound(ScopeRecallError):
    http_status = 404


class NotPermitted(ScopeRecallError):
    """The principal's kind may not perform this transition (DESIGN §2)."""

    http_status = 403


class IllegalTransition(ScopeRecallError):
    """The memory's lifecycle state does not allow this transition."""

    http_status = 409


class Tombstoned(ScopeRecallError):
    """The value was rejected or purged by a person and may not come back on its own."""

    http_status = 409


class ConfigError(ScopeRecallError):
    """Missing or invalid configuration (model ids, paths, passwords)."""


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
            "set digest_model in config.json, or choose the offline extractor with --extractor rules")


class ExtractionFailed(ScopeRecallError):
    """The digest model's reply was unusable; the entries stay unprocessed for the next run."""

    http_status = 502


class LeaseHeld(ScopeRecallError):
    """Another process holds the digest lease; try again after it expires."""

    exit_code = 75  # EX_TEMPFAIL: a scheduler may retry
    http_status = 409
