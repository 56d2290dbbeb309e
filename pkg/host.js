// Host delegation: the host's embedder and LLM, as async callbacks.
//
//   embed(texts: string[]) -> Promise<Float32Array[]>   one vector per text, same dimension
//   complete(prompt: string) -> Promise<string>
//
// Embedding requests made in the same tick (several add() calls without awaiting each) are
// batched into one embed() call. Every failure, or a malformed answer, is a `HOST` error.
import { embeddingText } from './dist/memdag_wasm.js';
import { hostError } from './errors.js';

/** Batches embedding requests into one host call per microtask. */
export class EmbedBatcher {
  /** @param {(texts: string[]) => Promise<ArrayLike<number>[]>} embed */
  constructor(embed) {
    this.embed = embed;
    this.pending = [];
  }

  /** The vector of one text. */
  one(text) {
    return new Promise((resolve, reject) => {
      this.pending.push({ text, resolve, reject });
      if (this.pending.length === 1) queueMicrotask(() => this.#run());
    });
  }

  /** The vectors of many texts, in one host call. */
  many(texts) {
    return Promise.all(texts.map((t) => this.one(t)));
  }

  async #run() {
    const batch = this.pending;
    this.pending = [];
    try {
      const vectors = await embedChecked(this.embed, batch.map((p) => p.text));
      batch.forEach((p, i) => p.resolve(vectors[i]));
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}

/** Calls the host's embed() and checks its answer. */
async function embedChecked(embed, texts) {
  let vectors;
  try {
    vectors = await embed(texts);
  } catch (e) {
    throw hostError(`embed: ${e?.message ?? e}`, e);
  }
  if (!Array.isArray(vectors) || vectors.length !== texts.length) {
    throw hostError(`embed returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${texts.length} texts`);
  }
  return vectors.map((v, i) => {
    const f = v instanceof Float32Array ? v : ArrayBuffer.isView(v) || Array.isArray(v) ? Float32Array.from(v) : null;
    if (!f || f.length === 0) throw hostError(`embed returned no vector for text ${i}`);
    return f;
  });
}

/** Calls the host's complete() and checks its answer is a string. */
export async function completeChecked(complete, prompt) {
  let answer;
  try {
    answer = await complete(prompt);
  } catch (e) {
    throw hostError(`complete: ${e?.message ?? e}`, e);
  }
  if (typeof answer !== 'string') throw hostError(`complete returned ${typeof answer}, not a string`);
  return answer;
}

/** The text a turn is embedded by: the core's rule, the same in every face. */
export function turnText(turn) {
  return embeddingText(turn.input ?? '', turn.output ?? '');
}
