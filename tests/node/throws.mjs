// What a call threw or a promise rejected with, for the tests to assert on; either fails the
// test when nothing was thrown. Not a test file itself (node --test runs *.test.mjs).
import assert from 'node:assert/strict';

/** The error `fn()` throws. */
export function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

/** The error `promise` rejects with. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}
