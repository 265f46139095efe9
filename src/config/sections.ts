// What the declaration sections of svc.yaml (outbound and inbound hooks, remote A2A agents) check
// alike once the schema has accepted them: unique ids within a list, and how their secrets are read
// from the environment depending on who loads the file.

/** Fails on the second of two entries with one id (`where` is the list's key path). */
export function checkUniqueIds(ids: readonly string[], where: string, fail: (line: string) => never): void {
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    const j = seen.get(id);
    if (j !== undefined) fail(`${where}[${i}].id: duplicate id "${id}" (also ${where}[${j}])`);
    seen.set(id, i);
  });
}

/**
 * How hook secrets are read. `serve`: a missing or unusable variable fails the load (the server
 * signs and checks with them, read from its own environment when it starts). `apply`: fails too,
 * as svc apply sends the secret it reads. `client`: only the serving process needs them, so any
 * other command or doctor in another shell gets a warning naming the variable, and the hook keeps
 * an empty secret.
 */
export type HookSecrets = 'serve' | 'apply' | 'client';
