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
    const results = await runInPage(fresh, async () => new DurableObjectStorage(this.ctx.storage), { Memory, entries });
    return new Response(JSON.stringify(results), { headers: { 'content-type': 'application/json' } });
  }
}

export default {
  fetch(request, env) {
    return env.SUITE.get(env.SUITE.idFromName('suite')).fetch(request);
  },
};
