// `complete` functions for the models a host has at hand, each `(prompt, { schema }) =>
// Promise<string>`: memdag passes the JSON Schema of its answer when it extracts (see
// learn.js), none when it compacts. Each adapter asks its model for JSON that follows the
// schema where the model can be told one; memdag checks every answer anyway.

/** Chrome's built-in Prompt API (`LanguageModel`), or null when this browser has none (or says
 * it is unavailable): pass the result as `complete`, and memory falls back to the rules when
 * it is null. Each call prompts a fresh clone of one session, so calls do not see each other. */
export async function promptApiComplete({ languageModel = globalThis.LanguageModel, options = {} } = {}) {
  if (!languageModel?.create) return null;
  const availability = await languageModel.availability?.(options);
  if (availability === 'unavailable') return null;
  let base = null;
  return async (prompt, { schema } = {}) => {
    base ??= await languageModel.create(options);
    const session = base.clone ? await base.clone() : await languageModel.create(options);
    try {
      return await session.prompt(prompt, schema ? { responseConstraint: schema } : {});
    } finally {
      session.destroy?.();
    }
  };
}

/** A Workers AI binding (`env.AI` in a Cloudflare Worker) as `complete`, with JSON mode when a
 * schema is given. `model` defaults to a small instruct model. */
export function workersAiComplete(ai, { model = '@cf/meta/llama-3.1-8b-instruct', maxTokens = 2048 } = {}) {
  if (typeof ai?.run !== 'function') throw new TypeError('workersAiComplete needs a Workers AI binding (env.AI)');
  return async (prompt, { schema } = {}) => {
    const input = { messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens };
    if (schema) input.response_format = { type: 'json_schema', json_schema: schema };
    const out = await ai.run(model, input);
    const response = out?.response ?? out;
    return typeof response === 'string' ? response : JSON.stringify(response);
  };
}

/** An OpenAI-compatible chat completions endpoint (OpenAI, vLLM, llama.cpp's server, Ollama,
 * LM Studio, ...) as `complete`, with strict structured outputs when a schema is given.
 * `fetch` defaults to the global one. Rejects with the status and body of a failed request. */
export function openAiComplete({ baseUrl = 'https://api.openai.com/v1', apiKey, model, fetch = globalThis.fetch, temperature = 0 } = {}) {
  if (!model) throw new TypeError('openAiComplete needs a model');
  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return async (prompt, { schema } = {}) => {
    const body = { model, temperature, messages: [{ role: 'user', content: prompt }] };
    if (schema) body.response_format = { type: 'json_schema', json_schema: { name: 'memdag_facts', strict: true, schema } };
    const headers = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const content = (await res.json())?.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error(`${url}: the answer has no message content`);
    return content;
  };
}
