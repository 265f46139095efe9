// The HTTP fuzz suite (http.test.ts) on a PostgreSQL store: a throwaway cluster when run alone
// (test/helpers/pg.ts), the run's cluster under `npm test`. PostgreSQL refuses text that sqlite
// stores (a NUL), so hostile text must be refused or treated as unknown at the edge, never 500.
// tests: a process of its own (the variable must reach only this suite, and a process that had
// imported http.test.js already would run nothing here)

process.env.SVC_FUZZ_STORE = 'postgres';
await import('./http.test.js');
