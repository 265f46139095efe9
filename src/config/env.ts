// Reading the environment. A variable set to the empty string counts as unset everywhere: a shell's
// `SVC_CONFIG=` or a service manager's `Environment=SVC_URL=` is how people clear one, and taking
// '' as a value made `svc serve` read the current folder as its config file (EISDIR).

/** The value of environment variable `name`, or undefined when it is unset or empty. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}
