// Exclusive locks across tabs: Web Locks (navigator.locks) where the platform has them, else
// a promise chain, which is exclusive within this JS realm only (Node, old browsers).
const chains = new Map();

/** Runs `fn` holding the exclusive lock `name`; resolves to what `fn` returns. */
export function withLock(name, fn) {
  const locks = globalThis.navigator?.locks;
  if (locks && typeof locks.request === 'function') {
    return locks.request(name, { mode: 'exclusive' }, fn);
  }
  const previous = chains.get(name) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => {});
  chains.set(name, tail);
  tail.then(() => {
    if (chains.get(name) === tail) chains.delete(name);
  });
  return run;
}
