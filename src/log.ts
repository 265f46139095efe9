// One logger: text lines on stderr. Never pass a token to it.

export type Level = 'debug' | 'info' | 'warn' | 'error';

export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

export interface LoggerOptions {
  quiet?: boolean;
  debug?: boolean;
  /** Where each line goes (stderr when unset); a test running the app in its own process keeps them. */
  write?: (line: string) => void;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(line));
  return (level, msg, fields) => {
    if (opts.quiet && level !== 'error') return;
    if (level === 'debug' && !opts.debug) return;
    const kv = fields
      ? Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
          .join('')
      : '';
    write(`${new Date().toISOString()} ${level} ${msg}${kv}\n`);
  };
}

export const silentLogger: Logger = () => {};
