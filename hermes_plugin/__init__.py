"""Scope Recall memory provider for Hermes Agent. Hermes finds this folder in ``$HERMES_HOME/plugins/`` and calls
``register(ctx)``, which hands it the provider (``ctx.register_memory_provider``). The provider, its runtime and
the ``scope-recall hermes`` commands live in the installed ``hermes_plugin`` package, so an upgrade of
scope-recall upgrades them too."""

PROVIDER_NAME = "scope-recall"  # the folder under HERMES_HOME/plugins/ and the memory.provider value


def register(ctx) -> None:
    from hermes_plugin.provider import ScopeRecallProvider

    ctx.register_memory_provider(ScopeRecallProvider())
