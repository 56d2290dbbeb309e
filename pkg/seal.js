// Encryption at rest on the host: seal v2 (AES-256-GCM) through WebCrypto, so that no byte of
// a large store goes through a cipher in wasm (see memdag-core's `cipher` for the format and
// why the nonces are random). Where `crypto.subtle` exists (browsers, workerd, Node 20),
// PersistentMemory seals every value of a change set here before writing it, and opens every
// v2 value here before loading; the core then loads with the list of keys opened, and seals
// nothing itself. Without WebCrypto the core seals (v1) and opens everything.
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

/** The v2 sealer for the 32-byte master key `raw`, or `null` without WebCrypto (the core then
 * seals v1). The AES key is derived by the core and imported as a non-extractable CryptoKey;
 * its raw bytes are wiped. */
export async function hostSealer(raw) {
  const c = webCrypto();
  if (raw == null || !c) return null;
  const { key, header } = Memory.hostKey(raw);
  try {
    const aes = await c.subtle.importKey('raw', key, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
    return new HostSealer(c, aes, header);
  } catch {
    return null; // a WebCrypto without AES-GCM: the core seals
  } finally {
    key.fill(0);
  }
}

class HostSealer {
  #crypto;
  #key;
  #header;

  constructor(crypto, key, header) {
    this.#crypto = crypto;
    this.#key = key;
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
    const sealed = await this.#crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: this.#aad(storageKey), tagLength: TAG * 8 }, this.#key, value);
    const out = new Uint8Array(this.#header.length + NONCE + sealed.byteLength);
    out.set(this.#header);
    out.set(iv, this.#header.length);
    out.set(new Uint8Array(sealed), this.#header.length + NONCE);
    return out;
  }

  /** The plain value of a v2 value sealed for `storageKey` with this key, else `null`. */
  async open(storageKey, value) {
    const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
    const h = this.#header;
    if (bytes.length < h.length + NONCE + TAG || h.some((b, i) => bytes[i] !== b)) return null;
    try {
      const plain = await this.#crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: bytes.subarray(h.length, h.length + NONCE), additionalData: this.#aad(storageKey), tagLength: TAG * 8 },
        this.#key, bytes.subarray(h.length + NONCE));
      return new Uint8Array(plain);
    } catch {
      return null; // the core opens it again and names what is wrong
    }
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
