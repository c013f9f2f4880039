// The import rules of src/, checked by dependency-cruiser: `npm run depcheck` for people,
// test/process/architecture.test.ts in `npm test`. The layers:
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
      name: 'route-files-are-leaves',
      severity: 'error',
      comment:
        'A route file (a file under a routes/ folder) is imported only by its module\'s registration (index.ts): ' +
        'a schema, document or helper another file needs lives beside routes/, not in it.',
      from: { pathNot: '^src/modules/[^/]+/index\\.ts$' },
      to: { path: '^src/modules/([^/]+|console/[^/]+)/routes/' },
    },
    {
      name: 'route-files-registered-by-their-module',
      severity: 'error',
      comment: 'A module registers its own route files, never another module\'s.',
      from: { path: '^src/modules/([^/]+)/index\\.ts$' },
      to: { path: '^src/modules/([^/]+|console/[^/]+)/routes/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'console-areas-independent',
      severity: 'error',
      comment:
        'An area of the console (src/modules/console/<area>/) imports kit/, itself, and domain or shared code, never ' +
        'another area: what two areas share belongs in kit/ (or in the domain, if it is a rule or a query of it).',
      from: { path: '^src/modules/console/([^/]+)/' },
      to: { path: '^src/modules/console/[^/]+/', pathNot: '^src/modules/console/($1|kit)/' },
    },
    {
      name: 'console-kit-knows-no-area',
      severity: 'error',
      comment: 'kit/ is what every area of the console stands on: it imports no area and not the console\'s registration.',
      from: { path: '^src/modules/console/kit/' },
      to: { path: '^src/modules/console/', pathNot: '^src/modules/console/kit/' },
    },
    {
      name: 'console-areas-in-folders',
      severity: 'error',
      comment: 'The console is its registration (index.ts), kit/ and one folder per area: no loose file beside them.',
      from: { path: '^src/modules/console/[^/]+$', pathNot: '^src/modules/console/index\\.ts$' },
      to: {},
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
