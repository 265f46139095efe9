// Loaded into every node process of a test run through NODE_OPTIONS (scripts/run-tests.mjs): test
// processes, `svc` and its worker threads, npm. sql.js's WebAssembly runs on V8's baseline tier only:
// in processes that live seconds the optimising compiles cost more CPU than they gave back (15% of the
// store, http, network and crash areas). Production and the benchmark keep V8's defaults. CommonJS
// (--require): an --import preload cost each of a run's ~1,100 processes about 8 ms more.

require('node:v8').setFlagsFromString('--liftoff-only');
