// Encryption at rest on the host: seal v2 (AES-256-GCM) with the runtime's native cipher, so
// that no byte of a large store goes through a cipher in wasm (see memdag-core's `cipher` for
// the format and why the nonces are random). Where WebCrypto exists (browsers, workerd, Node
// 20), PersistentMemory seals every value of a change set here before writing it, and opens
// every v2 value here before loading; the core then loads with the list of keys opened, and
// seals nothing itself. Without WebCrypto the core seals (v1) and opens everything. The AES-GCM
// is WebCrypto's, but in Node node:crypto's: the same OpenSSL, a synchronous call per value,
// where Node's WebCrypto copies each value twice and hops to a thread for it (about three
// times the CPU: `node tests/bench/run-wasm.mjs --seal` times both). Nonces are
// `crypto.getRandomValues` either way.
//
// The core stays the judge of what is stored: a value this host cannot open (sealed v1 by the
// core or the CLI, sealed with another key, altered, moved to another key, cut short, or plain)
// is handed to the core as it is stored, and the core opens it (v1, or v2 in software) or
// refuses it with its own error: LOCKED for another key, CORRUPT_DATA naming the key for
// damage, and only when the open needs that value (a torn segment newer than `head` is
// skipped). So the errors are the core's exactly, and a plain value is never taken as opened.
import { Memory } from './dist/memdag_wasm.js';

const NONCE = 12;
const TAG = 16;
const utf8 = new TextEncoder();

/** The WebCrypto of this runtime, when it has AES-GCM and a random source. */
function webCrypto() {
  const c = globalThis.crypto;
  return c?.subtle && typeof c.getRandomValues === 'function' ? c : null;
}

/** node:crypto, when this runs in Node. */
async function nodeCrypto() {
  if (!globalThis.process?.versions?.node) return null;
  try {
    // A computed specifier keeps bundlers from resolving node:crypto into browser builds.
    const name = 'node:crypto';
    return await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  } catch {
    return null;
  }
}

/** The v2 sealer for the 32-byte master key `raw`, or `null` without WebCrypto (the core then
 * seals v1). The AES key is derived by the core and kept only as a non-extractable CryptoKey
 * or a node:crypto KeyObject; its raw bytes are wiped. `{ webCrypto: true }` takes WebCrypto's
 * AES-GCM in Node too (for the tests and the benchmark). */
export async function hostSealer(raw, { webCrypto: forceWeb = false } = {}) {
  const c = webCrypto();
  if (raw == null || !c) return null;
  const { key, header } = Memory.hostKey(raw);
  try {
    const node = forceWeb ? null : await nodeCrypto();
    const aead = node
      ? new NodeAead(node, node.createSecretKey(key))
      : new WebAead(c.subtle, await c.subtle.importKey('raw', key, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']));
    return new HostSealer(c, aead, header);
  } catch {
    return null; // a runtime without AES-GCM: the core seals
  } finally {
    key.fill(0);
  }
}

/** AES-256-GCM through WebCrypto: `seal` gives ciphertext ‖ tag; `open` null when the tag fails. */
class WebAead {
  #subtle;
  #key;

  constructor(subtle, key) {
    this.#subtle = subtle;
    this.#key = key;
  }

  async seal(iv, additionalData, value) {
    return new Uint8Array(await this.#subtle.encrypt({ name: 'AES-GCM', iv, additionalData, tagLength: TAG * 8 }, this.#key, value));
  }

  async open(iv, additionalData, sealed) {
    try {
      return new Uint8Array(await this.#subtle.decrypt({ name: 'AES-GCM', iv, additionalData, tagLength: TAG * 8 }, this.#key, sealed));
    } catch {
      return null;
    }
  }
}

/** AES-256-GCM through node:crypto, as WebAead. */
class NodeAead {
  #crypto;
  #key;

  constructor(crypto, key) {
    this.#crypto = crypto;
    this.#key = key;
  }

  async seal(iv, aad, value) {
    const c = this.#crypto.createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG });
    c.setAAD(aad);
    const out = new Uint8Array(value.length + TAG);
    out.set(c.update(value));
    c.final();
    out.set(c.getAuthTag(), value.length);
    return out;
  }

  async open(iv, aad, sealed) {
    if (sealed.length < TAG) return null;
    const d = this.#crypto.createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG });
    d.setAAD(aad);
    d.setAuthTag(sealed.subarray(sealed.length - TAG));
    const plain = d.update(sealed.subarray(0, sealed.length - TAG));
    try {
      d.final(); // checks the tag: nothing is returned before it holds
    } catch {
      return null;
    }
    return new Uint8Array(plain.buffer, plain.byteOffset, plain.length);
  }
}

class HostSealer {
  #crypto;
  #aead;
  #header;

  constructor(crypto, aead, header) {
    this.#crypto = crypto;
    this.#aead = aead;
    this.#header = header;
  }

  /** The associated data: the header, then the storage key in UTF-8. */
  #aad(storageKey) {
    const name = utf8.encode(storageKey);
    const aad = new Uint8Array(this.#header.length + name.length);
    aad.set(this.#header);
    aad.set(name, this.#header.length);
    return aad;
  }

  /** `value` sealed v2 for `storageKey`, under a fresh random nonce. */
  async seal(storageKey, value) {
    const iv = this.#crypto.getRandomValues(new Uint8Array(NONCE));
    const sealed = await this.#aead.seal(iv, this.#aad(storageKey), value);
    const out = new Uint8Array(this.#header.length + NONCE + sealed.length);
    out.set(this.#header);
    out.set(iv, this.#header.length);
    out.set(sealed, this.#header.length + NONCE);
    return out;
  }

  /** The plain value of a v2 value sealed for `storageKey` with this key, else `null` (the
   * core opens it again and names what is wrong). */
  async open(storageKey, value) {
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    const h = this.#header;
    if (bytes.length < h.length + NONCE + TAG || h.some((b, i) => bytes[i] !== b)) return null;
    return this.#aead.open(bytes.subarray(h.length, h.length + NONCE), this.#aad(storageKey), bytes.subarray(h.length + NONCE));
  }

  /** A change set with every value sealed (deletions as they are), in its order. */
  sealChanges(changes) {
    return Promise.all(changes.map(async ([k, v]) => [k, v == null ? v : await this.seal(k, v)]));
  }

  /** Stored entries with every v2 value this key opens opened, and the keys opened (for
   * `Memory.load(entries, key, opened)`); every other value as it was stored. */
  async openEntries(entries) {
    const opened = [];
    const out = await Promise.all([...entries].map(async ([k, v]) => {
      const plain = v == null ? null : await this.open(k, v);
      if (plain === null) return [k, v];
      opened.push(k);
      return [k, plain];
    }));
    return { entries: out, opened };
  }
}
