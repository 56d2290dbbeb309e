//! Mode-2 search: BM25 full text, vectors, hybrid ranking, filters and grep over raw logs.
