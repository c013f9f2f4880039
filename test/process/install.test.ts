// `npm install` on the machine's Node 20 (issue 27): the project installs Node 24 for its own
// scripts (the `node` dev dependency), so the install itself runs on whatever Node runs npm, by
// design. It must not greet a newcomer with engine warnings for the project itself or for tools
// that have a release supporting Node 20. Two remain, from Fastify's own tree (its request
// injector's `cookie` and its static files' `content-disposition`, whose current majors want Node
// 22 and whose older majors have another API): they run only under the project's Node 24, and
// the README says so. A new one fails here, naming the package.
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.ts';

/** The Node that runs `npm install` on the machines here (20.20). */
const INSTALLING_NODE = '20.20.0';
/** Fastify's dependencies that want Node 22 and run only under the project's Node 24 (see the header). */
const KNOWN = new Set(['cookie', 'content-disposition']);

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
  optional?: boolean;
  os?: string[];
}

describe('npm install on Node 20', () => {
  it("asks for a Node that runs npm, and every package's engines admit it but Fastify's two", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(semver.satisfies(INSTALLING_NODE, manifest.engines.node), `package.json engines.node ${manifest.engines.node}`).toBe(true);

    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    const warned: string[] = [];
    for (const [where, entry] of Object.entries(lock.packages)) {
      if (where === '' || entry.optional) continue;
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
      if (range && !semver.satisfies(INSTALLING_NODE, range) && !KNOWN.has(name)) warned.push(`${name}@${entry.version} wants node ${range}`);
    }
    expect(warned).toEqual([]);
  });
});
