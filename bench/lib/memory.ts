// A service process's memory: its resident set sampled from /proc (peak per phase, and VmHWM,
// the kernel's own peak), and what the service reports of itself on /metrics.
import fs from 'node:fs';
import { round1 } from './common.ts';

const RSS_SAMPLE_MS = 100;

/** Peak VmRSS per phase, sampled; VmHWM read at the end. */
export class RssSampler {
  private phase = 'start-up';
  readonly peaksKb: Record<string, number> = {};
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), RSS_SAMPLE_MS);
  }

  private read(field: 'VmRSS' | 'VmHWM'): number | undefined {
    try {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${this.pid}/status`, 'utf8'));
      return m ? Number(m[1]) : undefined;
    } catch {
      return undefined;
    }
  }

  sample(): void {
    const rss = this.read('VmRSS');
    if (rss !== undefined) this.peaksKb[this.phase] = Math.max(this.peaksKb[this.phase] ?? 0, rss);
  }

  enter(phase: string): void {
    this.sample();
    this.phase = phase;
  }

  stop(): { hwmKb: number | undefined; rssKb: number | undefined } {
    this.sample();
    clearInterval(this.timer);
    return { hwmKb: this.read('VmHWM'), rssKb: this.read('VmRSS') };
  }
}

/** The peaks per phase in MB. */
export const peaksMb = (peaksKb: Record<string, number>) => Object.fromEntries(Object.entries(peaksKb).map(([k, v]) => [k, round1(v / 1024)]));

/** The service's own view of its memory (GET /metrics, prom-client's default gauges), in MB. */
export async function serviceMemory(baseUrl: string): Promise<Record<string, number>> {
  const wanted: Record<string, string> = {
    process_resident_memory_bytes: 'rss',
    nodejs_heap_size_total_bytes: 'heapTotal',
    nodejs_heap_size_used_bytes: 'heapUsed',
    nodejs_external_memory_bytes: 'external',
  };
  const out: Record<string, number> = {};
  try {
    const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    for (const line of text.split('\n')) {
      const [name, value] = line.split(' ');
      if (wanted[name] !== undefined) out[wanted[name]] = round1(Number(value) / 1048576);
    }
  } catch {
    // not available: reported empty
  }
  return out;
}
