// Who calls the MCP endpoint: a bearer token that the deployment's secret signed for one user.
//
//   Authorization: Bearer <user>.<signature>
//   <user>       the user's name, percent-encoded (encodeURIComponent)
//   <signature>  hex HMAC-SHA256, keyed with the secret MCP_SECRET, of "memdag-mcp:" + the name
//
// The Worker keeps no table of tokens: whoever holds MCP_SECRET mints a user's token (the
// README shows it with openssl), and the Worker checks the signature with WebCrypto
// (`crypto.subtle.verify`, which compares in constant time). A client cannot name another
// user without the secret. Rotating MCP_SECRET revokes every token at once. Without the secret
// (or with one shorter than 32 characters) the endpoint refuses every call: it never falls
// back to a user the client merely claims.

/** What `MCP_SECRET` must at least hold, in characters. */
const MIN_SECRET = 32;

const encoder = new TextEncoder();

/** The signed text of `user`'s token: a prefix keeps the secret's signatures to this use. */
const signed = (user) => encoder.encode(`memdag-mcp:${user}`);

const hmacKey = (secret, usage) =>
  crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);

/** Whether the deployment has a usable MCP_SECRET. */
export const configured = (env) => typeof env.MCP_SECRET === 'string' && env.MCP_SECRET.length >= MIN_SECRET;

/** `user`'s token under `secret` (for tools that hand tokens out; the Worker only checks). */
export async function mintToken(secret, user) {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret, 'sign'), signed(user)));
  return `${encodeURIComponent(user)}.${[...mac].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The user a request's bearer token was signed for, or `null` when the request carries no
 * token, a malformed one, one for a blank name, or one the secret did not sign. Only call it
 * when `configured(env)`.
 */
export async function authenticate(request, env) {
  const header = request.headers.get('authorization') ?? '';
  const m = /^Bearer\s+(\S+)\.([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return null;
  let user;
  try {
    user = decodeURIComponent(m[1]);
  } catch {
    return null;
  }
  if (user.trim() === '') return null;
  const mac = Uint8Array.from(m[2].match(/../g), (h) => parseInt(h, 16));
  const ok = await crypto.subtle.verify('HMAC', await hmacKey(env.MCP_SECRET, 'verify'), mac, signed(user));
  return ok ? user : null;
}
