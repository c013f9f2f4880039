// Builds dist/esm (import) and dist/cjs (require), each with its declarations, from src/ with tsc:
// `npm run -w @onekhusa-sandbox/sdk build`. Plain JavaScript, so it runs on a bare Node.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

function compile(project) {
  const { status } = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
  if (status !== 0) throw new Error(`tsc -p ${project} failed (exit ${status})`);
}

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
compile('tsconfig.json');
compile('tsconfig.cjs.json');
// The package is "type": "module": without this marker Node would read dist/cjs's .js as ES modules.
writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
