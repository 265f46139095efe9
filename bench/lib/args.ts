// The command line of the bench and its tools: `--name value` options and bare flags.

/** The arguments after the script. */
export const argv = process.argv.slice(2);

/** Whether `--name` was given. */
export const flag = (name: string): boolean => argv.includes(name);

/** The value after `--name`, if it was given. */
export const opt = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
