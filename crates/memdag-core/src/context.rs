//! Context-window tools: token counting, splitting a context safely, truncating tool output.
