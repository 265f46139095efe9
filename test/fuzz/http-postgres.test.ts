// The HTTP fuzz suite (http.test.ts) on a PostgreSQL store: a throwaway cluster when run alone
// (test/helpers/pg.ts), the run's cluster under `npm test`. PostgreSQL refuses text that sqlite
// stores (a NUL), so hostile text must be refused or treated as unknown at the edge, never 500.

process.env.SVC_FUZZ_STORE = 'postgres';
await import('./http.test.js');
