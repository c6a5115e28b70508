// Peer for `make bench`: ruff's WebAssembly build (default settings, one
// thread) over the files named on standard input, one path per line.
// Usage: node bench/ruff_wasm.js MODULE_DIR < files.txt
'use strict';
const fs = require('fs');
const path = require('path');
const ruff = require(path.resolve(process.argv[2]));
const ws = new ruff.Workspace(ruff.Workspace.defaultSettings(), ruff.PositionEncoding.Utf8);
const files = fs.readFileSync(0, 'utf8').split('\n').filter((f) => f.length > 0);
let diagnostics = 0, failed = 0;
for (const f of files) {
  try {
    diagnostics += ws.check(fs.readFileSync(f, 'utf8')).length;
  } catch (e) {
    failed++;
  }
}
console.log(`${files.length} files, ${diagnostics} diagnostics, ${failed} failed, ruff ${ruff.Workspace.version()}`);
