"""SQLite, the only truth: who a row belongs to (scope), who acts (principals), what may be stored (content),
the store and its schema (store, migrations), and the one visibility predicate every read goes through."""
