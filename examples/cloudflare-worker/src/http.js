// The HTTP side of the Worker's routes: JSON answers, errors with memdag's stable codes, the
// query and body readers, and the user a request acts for.

/** The HTTP status of each error code; any other code is a 500. */
const STATUS = { NOT_FOUND: 404, INVALID_INPUT: 400, UNKNOWN_PARENT: 400, DUPLICATE_ID: 400 };

export const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export function errorResponse(e) {
  const code = typeof e?.code === 'string' ? e.code : 'INTERNAL';
  return json({ error: { code, message: String(e?.message ?? e) } }, STATUS[code] ?? 500);
}

/** Reads what is left of a request's body: a response sent while the client still sends
 * its body makes workerd reset the connection. */
export async function drain(request) {
  if (request.body && !request.bodyUsed) await request.arrayBuffer().catch(() => {});
}

/** An error with a stable code. */
export const failure = (code, message) => Object.assign(new Error(message), { code });

export const invalid = (message) => failure('INVALID_INPUT', `invalid input: ${message}`);

/** A query parameter that must be there. */
export function need(q, name) {
  const value = q.get(name);
  if (value == null || value === '') throw invalid(`the query parameter ${name} is required`);
  return value;
}

/** A whole number from the query, or `fallback`. */
export const int = (q, name, fallback) => (q.get(name) == null ? fallback : Number(q.get(name)));

/** The request body as text, refused when empty. */
export async function text(request) {
  const t = await request.text();
  if (t.trim() === '') throw invalid('a body is required');
  return t;
}

/** The request body as JSON; `empty` when there is none (else a missing body is refused). */
export async function body(request, empty) {
  const t = await request.text();
  if (t.trim() === '') {
    if (empty !== undefined) return empty;
    throw invalid('a JSON body is required');
  }
  let value;
  try {
    value = JSON.parse(t);
  } catch (e) {
    throw invalid(`the body is not JSON: ${e.message}`);
  }
  return value;
}

/** The request body as a JSON object (a query, an item, an update). */
export async function object(request, empty) {
  const value = await body(request, empty);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('the body must be a JSON object');
  return value;
}

/**
 * The user a request acts for: the header `x-memdag-user`, else `?user=`; `undefined` when
 * neither is there, which is the store-wide view (every user's memory: an admin or a
 * single-user app). The header wins over the parameter. An empty or blank name is
 * `INVALID_INPUT`, never "every user": memdag-core's rule (crates/memdag-core/src/scope.rs),
 * checked here too because a few routes filter by the user in the Worker (listings, export).
 * The header is trusted: the HTTP API serves the agent's own backend, which knows who the
 * user is (see the README); the MCP endpoint authenticates its user itself (mcp.js).
 */
export function userOf(request, q) {
  const user = request.headers.get('x-memdag-user') ?? q.get('user');
  if (user == null) return undefined;
  if (user.trim() === '') {
    throw invalid(`user ${JSON.stringify(user)} names nobody: name a user, or send no x-memdag-user header to read every user's memory`);
  }
  return user;
}

/**
 * `value` (a turn, an item, a query) made the acting user's: when the request acts for a user,
 * a value naming none gets theirs, and a value naming another is refused.
 */
export function own(value, user, what) {
  if (user === undefined) return value;
  if (value.user != null && value.user !== user) {
    throw invalid(`${what} names the user ${JSON.stringify(value.user)}, but the request acts for ${JSON.stringify(user)}`);
  }
  return { ...value, user };
}
