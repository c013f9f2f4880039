// The import rules of src/, checked by dependency-cruiser: `npm run depcheck` for people,
// test/architecture.test.ts in `npm test`. The layers:
//   src/lib, src/db, src/http, src/jobs   shared: they know no module
//   src/module.ts                         what a module presents (ModuleDefinition): shared too
//   src/modules/<name>/                   one feature each; src/modules/<name>/index.ts presents it
//   src/rails/                            payment rails behind one contract (rails/contract.ts): the
//                                         payout worker and the operator's view use them, they book
//                                         outcomes through modules/disbursements/outcomes.ts
//   src/composition.ts                    the list of modules, assembled for the API and the worker
//   src/app.ts, server.ts, worker.ts, runtime.ts, cli/   processes, built from the above
// Type-only imports count (tsPreCompilationDeps): a type is coupling too, and a cycle through
// types is a cycle the next value import turns into a load-order bug.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only ones included: split the shared part out, or pass it in.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-layers-not-to-modules',
      severity: 'error',
      comment:
        'http/, db/, lib/ and jobs/ are shared by every module and know none: a module offers what they need ' +
        '(routes, tasks, a token verifier) through its index.ts, and the composition root passes it in.',
      from: { path: '^src/((http|db|lib|jobs)/|module\\.ts$)' },
      to: { path: '^src/(modules|rails)/' },
    },
    {
      name: 'shared-layers-not-to-processes',
      severity: 'error',
      comment: 'The shared layers do not import the processes or the composition root that are built from them.',
      from: { path: '^src/((http|db|lib|jobs)/|module\\.ts$)' },
      to: { path: '^src/(app|server|worker|runtime|composition|banner|cli)(\\.ts$|/)' },
    },
    {
      name: 'modules-not-to-app-root',
      severity: 'error',
      comment: 'A module does not import the processes or the composition root that assemble it.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(app|server|worker|runtime|composition|banner|cli)(\\.ts$|/)' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves: an unresolved one would hide its edges from the rules above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    includeOnly: '^src/',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
