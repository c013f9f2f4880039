// A throw-away project that uses the built SDK as an installed package would be used: its
// node_modules is the repository's, where the workspace links @onekhusa-sandbox/sdk to
// packages/sdk (whose exports point at dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers.ts';
import { run } from './harness.ts';

export interface Consumer {
  dir: string;
  write(name: string, text: string): string;
  /** `tsc --strict` over `files` (Node's types; ES modules for .mts, CommonJS for .cts). */
  typecheck(files: string[], options?: { lib?: string[]; types?: string[] }): Promise<{ code: number | null; output: string }>;
  remove(): void;
}

const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

export function consumer(): Consumer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onekhusa-sdk-consumer-'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    write(name, text) {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    },
    async typecheck(files, options = {}) {
      const config = {
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: options.lib ?? ['ES2022'], types: options.types ?? ['node'] },
        files,
      };
      const project = `tsconfig-${Math.random().toString(36).slice(2)}.json`;
      fs.writeFileSync(path.join(dir, project), JSON.stringify(config));
      const result = await run(process.execPath, [TSC, '-p', project], { cwd: dir, timeoutMs: 120_000 });
      return { code: result.code, output: result.stdout + result.stderr };
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
