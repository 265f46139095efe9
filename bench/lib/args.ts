// The command line of the bench and its tools: `--name value` options and bare flags.

/** The arguments after the script. */
export const argv = process.argv.slice(2);

/** Whether `--name` was given. */
export const flag = (name: string): boolean => argv.includes(name);

/** The value after `--name`, if it was given. */
export const opt = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

/** The arguments that are neither an option nor the value of one of the `valued` options. */
export const positional = (valued: readonly string[] = []): string[] =>
  argv.filter((a, i) => !a.startsWith('--') && !valued.includes(argv[i - 1] ?? ''));

/** The space-separated words of `--name`'s value (node flags, say); none when it was not given. */
export const words = (name: string): string[] => (opt(name) ?? '').split(' ').filter(Boolean);
