// The snippets of the package's guide (pkg/README.md), for the tests that run them: every
// fenced block with its language, its marker and the `text output` block that follows it.
//
//   js test       runs in Node against the built package (tests/node/guide.test.mjs); its
//                 stdout must equal the `text output` block right after it, when there is one
//   html browser  a page run in headless Chromium (tests/browser/guide.test.mjs)
//   js worker     a Worker module run on workerd (tests/worker/guide.test.mjs)
//   js parse      checked to parse only (bundler configurations; no bundler is installed)
//   sh, toml      shown, not run
//
// Imports only what every runtime has, so Node tests import it whatever they run.

/** The guide's path, from a test directory's `import.meta.url`. */
export const GUIDE = new URL('../../pkg/README.md', import.meta.url);

/** The markers a block may carry, by language. */
export const RUN = { js: ['test', 'worker', 'parse'], html: ['browser'], text: ['output'], sh: [''], toml: [''] };

/** Every fenced block: `{ lang, marker, code, line, output }` (output: the next `text output`
 * block's text, attached to the block before it). */
export function snippets(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^(`{3,})(\S*)\s*(\S*)\s*$/);
    if (!open) continue;
    const [, fence, lang, marker] = open;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== fence) end++;
    if (end === lines.length) throw new Error(`pkg/README.md:${i + 1}: an unclosed fence`);
    blocks.push({ lang, marker, code: lines.slice(start, end).join('\n') + '\n', line: i + 1, output: null });
    i = end;
  }
  const out = [];
  for (const block of blocks) {
    if (block.lang === 'text' && block.marker === 'output') {
      const before = out.at(-1);
      if (!before || before.marker !== 'test') throw new Error(`pkg/README.md:${block.line}: an output block after no js test block`);
      before.output = block.code;
    } else {
      out.push(block);
    }
  }
  return out;
}

/** `code` with the package's name resolved to `specifier`. */
export const resolvePackage = (code, specifier) => code.replace(/from 'memdag'/g, `from '${specifier}'`);
