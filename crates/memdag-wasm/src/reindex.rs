//! Reindex from JS: moving a memory to another embedding model, batch by batch.
//!
//! The core's reindex (`memdag_core::reindex`) is split so an asynchronous embedder can drive
//! it: `reindexBegin()`, then `reindexBatch(n)` for texts and `reindexSupply(vectors)` for
//! their vectors until the batch is empty, then `reindexFinish()`, which swaps every vector in
//! at once. The job lives inside the `Memory`; a new `reindexBegin()` drops an unfinished
//! one. `reindexBuiltin()` does it all with the built-in embedder. `PersistentMemory.reindex`
//! (pkg/persistent.js) runs the steps with the host's `embed` and reports progress.

use js_sys::{Array, Float32Array};
use memdag_core::reindex::{Reindex, ReindexPhase, ReindexProgress};
use memdag_core::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::throw;
use crate::fields::to_plain;
use crate::memory::Memory;

#[wasm_bindgen]
impl Memory {
    /// Starts re-embedding every record (dropping an unfinished job). Returns the progress,
    /// `{ phase: 'embedding', done: 0, total }`.
    #[wasm_bindgen(js_name = reindexBegin)]
    pub fn reindex_begin(&self) -> Result<JsValue, JsValue> {
        let job = self.read(|s| Ok(s.begin_reindex()))?;
        let progress = progress_of(&job);
        *self.job()? = Some(job);
        to_plain("progress", &progress).map_err(throw)
    }

    /// The embedding texts of the next `n` records (default 64), `[]` once every record was
    /// handed out. Throws `INVALID_INPUT` with no job, or while the last batch waits for its
    /// vectors.
    #[wasm_bindgen(js_name = reindexBatch)]
    pub fn reindex_batch(&self, n: Option<f64>) -> Result<Array, JsValue> {
        let n = match n {
            None => memdag_core::reindex::DEFAULT_REINDEX_BATCH,
            Some(n) if n.is_finite() && n >= 1.0 => n.min(1e6) as usize,
            Some(n) => {
                return Err(throw(Error::invalid(format!(
                    "n must be at least 1, got {n}"
                ))))
            }
        };
        let mut job = self.job()?;
        let job = job.as_mut().ok_or_else(no_job)?;
        let texts = self.read(|s| s.reindex_batch(job, n))?;
        Ok(texts.into_iter().map(JsValue::from).collect())
    }

    /// Takes the vectors of the last batch: an array with one `Float32Array` or number array
    /// per text, in order, all of one length. Returns the progress. Throws `INVALID_INPUT` for
    /// a wrong count, an empty, non-finite or zero vector, or another length than earlier
    /// batches; the job is then as it was.
    #[wasm_bindgen(js_name = reindexSupply)]
    pub fn reindex_supply(&self, vectors: &JsValue) -> Result<JsValue, JsValue> {
        let vectors = vectors_from_js(vectors).map_err(throw)?;
        let mut job = self.job()?;
        let job = job.as_mut().ok_or_else(no_job)?;
        job.supply(vectors).map_err(throw)?;
        to_plain("progress", &progress_of(job)).map_err(throw)
    }

    /// Swaps every new vector in and rebuilds the vector graph; the next `takeChanges`
    /// rewrites the store. Returns `{ records, previousDimension, dimension }`. Throws
    /// `INVALID_INPUT`, changing nothing and keeping the job, when it is incomplete or records
    /// were added since `reindexBegin` (then begin again).
    #[wasm_bindgen(js_name = reindexFinish)]
    pub fn reindex_finish(&self) -> Result<JsValue, JsValue> {
        let mut slot = self.job()?;
        let job = slot.clone().ok_or_else(no_job)?;
        let done = self.write(|s| s.finish_reindex(job, &mut |_| {}))?;
        *slot = None;
        to_plain("reindexed", &done).map_err(throw)
    }

    /// Re-embeds every record with the built-in embedder, at once. Returns
    /// `{ records, previousDimension, dimension }`.
    #[wasm_bindgen(js_name = reindexBuiltin)]
    pub fn reindex_builtin(&self) -> Result<JsValue, JsValue> {
        let done = self.write(|s| s.reindex_builtin())?;
        to_plain("reindexed", &done).map_err(throw)
    }
}

/// The text a turn is embedded from (the core's rule): `input`, a newline, `output`. A host
/// embedder is given exactly this, in every face.
#[wasm_bindgen(js_name = embeddingText)]
pub fn embedding_text(input: &JsValue, output: &JsValue) -> Result<String, JsValue> {
    let input = crate::memory::string("input", input)?;
    let output = crate::memory::string("output", output)?;
    Ok(memdag_core::embedding_text(&input, &output))
}

fn no_job() -> JsValue {
    throw(Error::invalid(
        "no reindex under way: call reindexBegin() first",
    ))
}

fn progress_of(job: &Reindex) -> ReindexProgress {
    ReindexProgress {
        phase: ReindexPhase::Embedding,
        done: job.done(),
        total: job.total(),
    }
}

/// An array of vectors, each a `Float32Array` or an array of numbers, none empty.
fn vectors_from_js(value: &JsValue) -> Result<Vec<Vec<f32>>, Error> {
    let array = value
        .dyn_ref::<Array>()
        .ok_or_else(|| Error::invalid("vectors must be an array"))?;
    let mut out = Vec::with_capacity(array.length() as usize);
    for (i, v) in array.iter().enumerate() {
        let vector: Vec<f32> = if let Some(f) = v.dyn_ref::<Float32Array>() {
            f.to_vec()
        } else if let Some(a) = v.dyn_ref::<Array>() {
            a.iter()
                .map(|x| {
                    x.as_f64()
                        .map(|x| x as f32)
                        .ok_or_else(|| Error::invalid(format!("vector {i} must hold only numbers")))
                })
                .collect::<Result<_, _>>()?
        } else {
            return Err(Error::invalid(format!(
                "vector {i} must be a Float32Array or an array of numbers"
            )));
        };
        if vector.is_empty() {
            return Err(Error::invalid(format!("vector {i} is empty")));
        }
        out.push(vector);
    }
    Ok(out)
}
