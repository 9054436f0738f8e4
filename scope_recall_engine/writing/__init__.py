"""The write path: the transition table and its transitions (lifecycle), the journal and its redaction, the digest
and its adjudication, import/export, decay, and the review queue a person decides from."""
