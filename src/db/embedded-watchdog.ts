// The embedded PostgreSQL's watchdog: a small detached process, started with the server, that
// stops the server once no process holding a lease on it is alive, also when the last one died
// by SIGKILL and could not stop it. Processes that stop normally stop the server themselves (the
// last one out); this covers the ones that cannot. It exits as soon as the server is gone.
//
//   node src/db/embedded-watchdog.ts <DATA_DIR> <postmaster pid> <postmaster start time>
//
// Run by Node alone (type stripping), without the service's loader: it needs only embedded-lease.ts.
import { isAlive, liveLeases, stopPostmaster, tryLock, type ProcessId } from './embedded-lease.ts';

const INTERVAL_MS = 1000;

const [dataDir, pid, start] = process.argv.slice(2);
const postmaster: ProcessId = { pid: Number(pid), start: start || null };
if (!dataDir || !Number.isInteger(postmaster.pid) || postmaster.pid <= 0) {
  process.stderr.write('usage: embedded-watchdog.ts <DATA_DIR> <postmaster pid> [<start time>]\n');
  process.exit(2);
}

let busy = false;
async function check(): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    if (!isAlive(postmaster)) process.exit(0);
    if (liveLeases(dataDir).length > 0) return;
    // The decision is taken under the start/stop lock: a process sharing the server adds its
    // lease under it, so no lease can appear between the check and the stop.
    const held = await tryLock(dataDir);
    if (!held) return;
    try {
      if (liveLeases(dataDir).length === 0) {
        await stopPostmaster(postmaster);
        process.exit(0);
      }
    } finally {
      held.release();
    }
  } catch {
    // A failure to read or lock is retried on the next round.
  } finally {
    busy = false;
  }
}

setInterval(() => void check(), INTERVAL_MS);
