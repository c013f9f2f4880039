// Human-readable logs on a terminal: pino writes JSON lines, and when stdout is a TTY each is
// turned into `time level msg key=value…` before it reaches the screen. Anywhere else (a pipe, a
// file, a log collector) the JSON goes out unchanged. Redaction happens in pino, before the line
// is written, so a secret is "[redacted]" in both forms. No dependency (pino-pretty is not one).
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLOURS: Record<number, string> = { 10: '\x1b[90m', 20: '\x1b[36m', 30: '\x1b[32m', 40: '\x1b[33m', 50: '\x1b[31m', 60: '\x1b[35m' };
const RESET = '\x1b[0m';
/** Fields every line has, shown in the prefix or not at all. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);
/** Nested objects are flattened to dotted keys this deep; deeper values are shown as JSON. */
const MAX_DEPTH = 3;

function clock(time: unknown): string {
  const date = typeof time === 'number' || typeof time === 'string' ? new Date(time) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) return '--:--:--.---';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A value as written after `key=`: bare when it is one plain word, else as a JSON string. */
function shown(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=\\\x00-\x1f\x7f]+$/.test(value) ? value : JSON.stringify(value);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? String(value);
}

function pairs(value: Record<string, unknown>, prefix: string, depth: number, out: string[], stacks: string[]): void {
  for (const [key, field] of Object.entries(value)) {
    if (prefix === '' && OMITTED.has(key)) continue;
    const name = prefix + key;
    // An error's stack goes below the line, where it can be read.
    if (key === 'stack' && typeof field === 'string') {
      stacks.push(field);
      continue;
    }
    if (field !== null && typeof field === 'object' && !Array.isArray(field) && depth < MAX_DEPTH) {
      pairs(field as Record<string, unknown>, `${name}.`, depth + 1, out, stacks);
      continue;
    }
    if (field === undefined) continue;
    out.push(`${name}=${shown(field)}`);
  }
}

/** One pino JSON line as `time LEVEL msg key=value…` (and an error's stack below it). Not JSON: as it is. */
export function formatLine(line: string, colours = false): string {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return line;
  const record = entry as Record<string, unknown>;
  const levelNumber = typeof record.level === 'number' ? record.level : 30;
  const label = (LEVELS[levelNumber] ?? `L${levelNumber}`).padEnd(5);
  const level = colours ? `${COLOURS[levelNumber] ?? ''}${label}${RESET}` : label;
  const fields: string[] = [];
  const stacks: string[] = [];
  pairs(record, '', 0, fields, stacks);
  const message = typeof record.msg === 'string' ? record.msg : record.msg === undefined ? '' : shown(record.msg);
  const head = [clock(record.time), level, message, ...fields].filter((part) => part !== '').join(' ');
  return stacks.length === 0 ? head : `${head}\n${stacks.map((stack) => stack.replace(/^/gm, '    ')).join('\n')}`;
}

/**
 * A pino destination that writes each JSON line formatted to `out`. Each write goes through at
 * once (a Writable calls _write synchronously when nothing is queued): a line logged just before
 * process.exit() is not lost.
 */
export function prettyDestination(out: NodeJS.WritableStream, options: { colours?: boolean } = {}): Writable {
  const colours = options.colours ?? false;
  return new Writable({
    decodeStrings: false,
    write(chunk: Buffer | string, _encoding, done) {
      // pino writes one line per call; several at once are handled all the same.
      const text = String(chunk).replace(/\n$/, '');
      out.write(
        text
          .split('\n')
          .map((line) => formatLine(line, colours))
          .join('\n') + '\n',
      );
      done();
    },
  });
}

/**
 * The destination for a process's logs: formatted for people when `stdout` is a terminal (coloured
 * unless NO_COLOR is set), else undefined: pino's own JSON destination.
 */
export function terminalDestination(stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): Writable | undefined {
  if (!stdout.isTTY) return undefined;
  return prettyDestination(stdout, { colours: !env.NO_COLOR });
}
