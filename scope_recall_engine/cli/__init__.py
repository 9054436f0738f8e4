"""The ``scope-recall`` command line: a thin adapter over the engine. ``main`` holds the group; each command
family is a module that joins it through the engine's ``register_commands`` hook, as the console, the Hermes
provider and the benchmarks do from their own packages."""
