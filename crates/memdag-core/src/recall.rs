//! Mode-1 recall: the block an agent gets at the start of every turn.
