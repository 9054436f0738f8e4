"""The LanceDB vector companion: rebuildable from truth, fed by the outbox (vectors), the embedding models
(embedders, through llm) and the dense lane whose hits are re-read from truth before they count (dense)."""
