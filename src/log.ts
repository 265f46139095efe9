// One logger: text lines on stderr. Never pass a token to it.

export type Level = 'debug' | 'info' | 'warn' | 'error';

export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

export function createLogger(opts: { quiet?: boolean; debug?: boolean } = {}): Logger {
  return (level, msg, fields) => {
    if (opts.quiet && level !== 'error') return;
    if (level === 'debug' && !opts.debug) return;
    const kv = fields
      ? Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
          .join('')
      : '';
    process.stderr.write(`${new Date().toISOString()} ${level} ${msg}${kv}\n`);
  };
}

export const silentLogger: Logger = () => {};
