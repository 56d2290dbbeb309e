//! Vectors from the host's `embedder` import, for stores opened with `embeddings.host`.
//!
//! The text of a turn is the core's `embedding_text`, as for the built-in embedder. Every answer is checked: one vector per text, none empty. The core checks
//! the rest (finite, non-zero, the store's dimension) when the turn is added.

use memdag_core::{embedding_text, Error as CoreError, NewTurn};

use crate::bindings::memdag::core::embedder;

/// Calls the embedder on `texts`; an error or a malformed answer is a host error.
pub fn texts(texts: &[String]) -> Result<Vec<Vec<f32>>, CoreError> {
    let vectors = embedder::embed(texts).map_err(|message| CoreError::Host {
        message: format!("embedder failed: {message}"),
    })?;
    if vectors.len() != texts.len() {
        return Err(CoreError::Host {
            message: format!(
                "embedder returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            ),
        });
    }
    if vectors.iter().any(Vec::is_empty) {
        return Err(CoreError::Host {
            message: "embedder returned an empty vector".into(),
        });
    }
    Ok(vectors)
}

/// Embeds every turn that has no embedding, in one call.
pub fn turns(turns: &mut [NewTurn]) -> Result<(), CoreError> {
    let missing: Vec<usize> = (0..turns.len())
        .filter(|&i| turns[i].embedding.is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> = missing
        .iter()
        .map(|&i| embedding_text(&turns[i].input, &turns[i].output))
        .collect();
    for (i, vector) in missing.into_iter().zip(self::texts(&texts)?) {
        turns[i].embedding = Some(vector);
    }
    Ok(())
}

/// The vector of one query text.
pub fn text(text: &str) -> Result<Vec<f32>, CoreError> {
    let mut vectors = texts(&[text.to_string()])?;
    Ok(vectors.remove(0))
}
