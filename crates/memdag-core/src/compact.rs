//! Turn compaction: the prompt for the host LLM, its parser, and the extractive fallback.
