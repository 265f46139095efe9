// Loaded into every node process of a test run (scripts/run-tests.mjs puts it in NODE_OPTIONS): the
// test processes, `svc` and its worker threads, npm. WebAssembly (sql.js) runs on V8's baseline
// compiler only. A test process lives seconds, and the optimising tier's compiles of sql.js's
// largest functions cost more CPU than their faster code saves: a run of the store, http, network
// and crash areas took 15% less CPU this way. Servers in production and the benchmark keep V8's
// defaults; the flag changes speed, never behaviour.
//
// CommonJS through --require: an --import preload starts the ESM loader before the program, which
// cost each of a run's ~1,100 processes (most of them short CLI commands) about 8 ms more.

require('node:v8').setFlagsFromString('--liftoff-only');
