"""Measuring the product from outside: evaluations, benchmarks and the fault harness. Above the engine and the
adapters (it drives the console and the Hermes provider as their users do); nothing below imports it."""
