// A test-only Worker: runs the one storage-adapter conformance suite
// (tests/storage/adapter-suite.mjs) inside a Durable Object, against the package's
// DurableObjectStorage adapter on real workerd storage. Loaded by worker.test.mjs.
import { DurableObjectStorage, Memory } from '../../pkg/workerd.js';
import { runInPage } from '../storage/adapter-suite.mjs';

export class SuiteObject {
  constructor(ctx) {
    this.ctx = ctx;
  }

  async fetch() {
    const fresh = async () => {
      const adapter = new DurableObjectStorage(this.ctx.storage);
      await adapter.removeRange('');
      return adapter;
    };
    // The scans for forgotten bytes read the object's whole storage, beneath the adapter.
    const entries = async () => [...(await this.ctx.storage.list())];
    const results = await runInPage(fresh, async () => new DurableObjectStorage(this.ctx.storage), { Memory, entries, paged: true });
    results.push(await pagedListing(fresh, this.ctx.storage));
    return new Response(JSON.stringify(results), { headers: { 'content-type': 'application/json' } });
  }
}

/** A check of this adapter alone, as the suite reports one (the suite's paged cases check what
 * `loadPages` hands over): `Memory.open` lists a store with one `list` call a page of at most
 * `pageEntries`. */
async function pagedListing(fresh, storage) {
  const name = 'DurableObjectStorage.loadPages lists a page of at most pageEntries a list call';
  const check = (ok, message) => {
    if (!ok) throw new Error(message);
  };
  try {
    // A memory opened by listing pages of two entries: fewer a call than the store has.
    const first = await Memory.open({ name: 'paged', storage: await fresh(), sync: false });
    await first.addMany(Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, thread: 't', input: `paged turn ${i} about the ferry timetable` })));
    for (let i = 0; i < 5; i++) await first.add({ id: `q${i}`, thread: 't', input: `one more ${i}`, parents: [`p${i}`] });
    await first.close();
    let lists = 0;
    let most = 0;
    const counting = new Proxy(storage, {
      get(target, prop) {
        if (prop !== 'list') return typeof target[prop] === 'function' ? target[prop].bind(target) : target[prop];
        return async (options) => {
          lists++;
          const found = await target.list(options);
          most = Math.max(most, found.size);
          return found;
        };
      },
    });
    const stored = (await storage.list()).size;
    const again = await Memory.open({ name: 'paged', storage: new DurableObjectStorage(counting, { pageEntries: 2 }), sync: false });
    check(again.len === 305, `reopened ${again.len}`);
    check(again.get('p299')?.input === 'paged turn 299 about the ferry timetable', 'the bulk turns');
    check(JSON.stringify(again.get('q4')?.parents) === '["p4"]', 'the single adds');
    check(stored > 2 && lists === Math.floor(stored / 2) + 1 && most <= 2, `${stored} entries in ${lists} lists of at most ${most}`);
    again.free();
    return { name, error: null };
  } catch (e) {
    return { name, error: `${e?.code ?? ''} ${e?.message ?? e}` };
  }
}

export default {
  fetch(request, env) {
    return env.SUITE.get(env.SUITE.idFromName('suite')).fetch(request);
  },
};
