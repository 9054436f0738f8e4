"""Scope Recall: scoped, auditable long-term memory for LLM agents."""
