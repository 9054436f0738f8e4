"""Reading back: the lexical lanes, fusion and abstention (retrieval), the recall packet (recall), the recall
ledger (ledger) and the agent's memory tools (agent_tools)."""
