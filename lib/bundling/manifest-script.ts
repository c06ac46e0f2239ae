import { TOOL_MANIFEST_SYMBOL_KEY } from '../../lambda/construct-contract';

/**
 * The script the construct runs at synth, in a child `node` process, to read the tools manifest
 * from a staged bundle. argv: <bundle file> <out file> <export name> <stubbed modules JSON>.
 *
 * It stubs the AWS SDK (`@aws-sdk/*`, `@smithy/*`) and the function's external modules with a
 * Proxy that answers every use, loads the bundle, finds the export, reads the manifest through the
 * `Symbol.for` marker that `toolHandler` set, writes the outcome as JSON and exits. Plain
 * JavaScript in a string: it ships inside the construct library and runs without TypeScript.
 */
export const MANIFEST_SCRIPT = `'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const [bundle, out, exportName, stubbedJson] = process.argv.slice(2);
const stubbed = JSON.parse(stubbedJson);
const write = (outcome) => { fs.writeFileSync(out, JSON.stringify(outcome)); process.exit(0); };
const isStubbed = (request) => stubbed.some((s) => s.endsWith('/') ? request.startsWith(s) : request === s || request.startsWith(s + '/'));
function stub() {
  return new Proxy(function () {}, {
    get(target, key) {
      if (key === 'then' || key === Symbol.iterator || key === Symbol.asyncIterator) return undefined;
      if (key === '__esModule') return true;
      if (key === Symbol.toPrimitive) return () => '';
      if (key === 'prototype') return target.prototype;
      return stub();
    },
    apply: () => stub(),
    construct: () => stub(),
  });
}
const load = Module._load;
Module._load = function (request) {
  return isStubbed(request) ? stub() : load.apply(this, arguments);
};
let mod;
try {
  mod = require(bundle);
} catch (error) {
  write({ problem: 'load', message: String((error && error.message) || error) });
}
const handler = mod == null ? undefined : mod[exportName];
if (handler === undefined) write({ problem: 'missing', exports: mod == null ? [] : Object.keys(mod) });
const manifest = handler == null ? undefined : handler[Symbol.for(${JSON.stringify(TOOL_MANIFEST_SYMBOL_KEY)})];
if (typeof manifest !== 'function') write({ problem: 'notToolHandler', got: handler === null ? 'null' : typeof handler });
Promise.resolve()
  .then(() => write({ tools: manifest() }))
  .catch((error) => write({ problem: 'manifest', message: String((error && error.message) || error) }));
`;
