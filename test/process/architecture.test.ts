// The import rules of src/ (.dependency-cruiser.cjs), checked with dependency-cruiser's API: no
// import cycle, type-only imports included; the shared layers (http/, db/, lib/, jobs/) import
// nothing from modules/; modules import neither the processes nor the composition root.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { MODULES } from '../../src/composition.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function describeViolation(v: IViolation): string {
  const path = v.cycle?.length ? [v.from, ...v.cycle.map((step) => step.name)].join(' → ') : `${v.from} → ${v.to}`;
  return `${v.rule.name}: ${path}`;
}

async function cruiseSrc(): Promise<ICruiseResult> {
  const cwd = process.cwd();
  // dependency-cruiser reads paths (and reports them) relative to the working directory.
  process.chdir(ROOT);
  try {
    const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
    const tsConfig = extractTSConfig('tsconfig.json');
    const { output } = await cruise(['src'], { ...options, validate: true }, undefined, { tsConfig });
    if (typeof output === 'string') throw new Error('dependency-cruiser answered text, not a result');
    return output;
  } finally {
    process.chdir(cwd);
  }
}

describe('architecture', () => {
  it('has no import cycle and no import from the shared layers into modules/', async () => {
    const result = await cruiseSrc();
    // The rules only mean something on a graph that was really read: every module of src/, with
    // its imports (`.ts` extensions and type-only ones) resolved.
    expect(result.summary.totalCruised).toBeGreaterThan(150);
    const app = result.modules.find((m) => m.source === 'src/app.ts');
    expect(app?.dependencies.some((d) => d.resolved === 'src/http/pipeline.ts')).toBe(true);
    const typeOnly = result.modules.flatMap((m) => m.dependencies).filter((d) => d.dependencyTypes.includes('type-only'));
    expect(typeOnly.length).toBeGreaterThan(0);

    const violations = result.summary.violations.map(describeViolation);
    if (violations.length) console.error(`dependency rules broken (.dependency-cruiser.cjs):\n  ${violations.join('\n  ')}`);
    expect(violations).toEqual([]);
  }, 60_000);

  it('assembles every module from its index.ts in the composition root', () => {
    const folders = readdirSync(new URL('../../src/modules/', import.meta.url), { withFileTypes: true }).filter((d) => d.isDirectory());
    for (const folder of folders) expect(readdirSync(new URL(`../../src/modules/${folder.name}/`, import.meta.url)), folder.name).toContain('index.ts');
    expect(MODULES.map((m) => m.name).sort()).toEqual(folders.map((d) => d.name).sort());
  });
});
