//! Token counting: tiktoken-rs behind the `tiktoken` feature, a cheap estimator otherwise.
