// The SQL lint behind test/db/citus-queries.test.ts: finds, in the SQL the service sends, the query
// shapes a Citus cluster distributed by merchant_account_number refuses (docs/scaling.md, "Beyond
// the catalog"; issue 28 met each of them on a real cluster). Not a SQL parser: the SQL is taken
// from the TypeScript AST, normalised, and read with regexes level by level (a level is one
// SELECT/INSERT/UPDATE/DELETE with its own subqueries masked). Its limits are in the test's header.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One SQL text as the service sends it, resolved from its template literal. */
export interface SqlText {
  /** Path relative to the repository, with forward slashes. */
  file: string;
  /** The enclosing function, method, variable or property that holds the SQL. */
  owner: string;
  line: number;
  sql: string;
}

export type ObstacleClass = 'insert-values-subquery' | 'multi-shard-lock' | 'group-by-functional-dependency' | 'non-immutable-upsert-set' | 'update-citus-refuses' | 'ctid-modification' | 'correlated-subquery-beside-srf' | 'cte-in-insert-returning';

export interface Finding {
  cls: ObstacleClass;
  /** `file#owner`: stable across edits that move lines. */
  where: string;
  line: number;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Extraction: string and template literals of src/**/*.ts, with `${CONST}` resolved.

/** What an unresolvable `${…}` stands for: an identifier, harmless in any clause. */
const HOLE = '__x__';
const SQL_START = /^\s*(with|select|insert|update|delete)\b/i;

function ownerOf(node: ts.Node): string {
  const names: string[] = [];
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) {
      names.push(n.name.getText());
      break;
    }
    // `const { rows } = …` names nothing; `text:` is the query's own property.
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) names.push(n.name.text);
    if ((ts.isPropertyAssignment(n) || ts.isPropertyDeclaration(n)) && n.name.getText() !== 'text') names.push(n.name.getText());
  }
  return names.reverse().join('.') || '(module)';
}

interface Parsed {
  file: string;
  source: ts.SourceFile;
  /** `const NAME = <string or template>` anywhere in the file. */
  consts: Map<string, ts.Expression>;
}

function parse(file: string, text: string): Parsed {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const consts = new Map<string, ts.Expression>();
  const visit = (n: ts.Node) => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer && ts.isVariableDeclarationList(n.parent) && n.parent.flags & ts.NodeFlags.Const) {
      consts.set(n.name.text, n.initializer);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return { file, source, consts };
}

function isStringy(e: ts.Node): boolean {
  return ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isTemplateExpression(e);
}

/** Consts used inside other SQL (fragments): analysed as part of those, not alone. */
function fragmentNames(p: Parsed): Set<string> {
  const used = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isTemplateSpan(n) && ts.isIdentifier(n.expression)) used.add(n.expression.text);
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      for (const side of [n.left, n.right]) if (ts.isIdentifier(side)) used.add(side.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(p.source);
  return used;
}

class Resolver {
  constructor(
    /** Exported-or-not consts by name across all files, only where the name is unique. */
    private readonly global: Map<string, { p: Parsed; e: ts.Expression }>,
  ) {}

  evaluate(p: Parsed, e: ts.Expression, seen = new Set<string>()): string {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
    if (ts.isTemplateExpression(e)) {
      let out = e.head.text;
      for (const span of e.templateSpans) out += this.evaluate(p, span.expression, seen) + span.literal.text;
      return out;
    }
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return this.evaluate(p, e.expression, seen);
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return this.evaluate(p, e.left, seen) + this.evaluate(p, e.right, seen);
    // `cond ? ' for update' : ''`: the branch with more SQL, so an optional lock or clause is checked.
    if (ts.isConditionalExpression(e)) {
      const a = this.evaluate(p, e.whenTrue, seen);
      const b = this.evaluate(p, e.whenFalse, seen);
      return a.trim().length >= b.trim().length ? a : b;
    }
    if (ts.isIdentifier(e) && !seen.has(e.text)) {
      const local = p.consts.get(e.text);
      const found = local && isResolvable(local) ? { p, e: local } : this.global.get(e.text);
      if (found && isResolvable(found.e)) return this.evaluate(found.p, found.e, new Set(seen).add(e.text));
    }
    return HOLE;
  }

  /** Every SQL text of a file: outermost string-valued expressions that read as a statement. */
  sqlOf(p: Parsed): SqlText[] {
    const fragments = fragmentNames(p);
    const out: SqlText[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isExpression(n) && (isStringy(n) || (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken && isResolvable(n)))) {
        const decl = n.parent;
        const isFragment = ts.isVariableDeclaration(decl) && ts.isIdentifier(decl.name) && fragments.has(decl.name.text);
        const sql = this.evaluate(p, n);
        if (!isFragment && SQL_START.test(stripComments(sql))) {
          out.push({ file: p.file, owner: ownerOf(n), line: p.source.getLineAndCharacterOfPosition(n.getStart()).line + 1, sql });
        }
        // Templates inside `${…}` were evaluated with their parent.
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(p.source);
    return out;
  }
}

function isResolvable(e: ts.Expression): boolean {
  if (isStringy(e)) return true;
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return isResolvable(e.expression);
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return isResolvable(e.left) || isResolvable(e.right);
  return false;
}

/** The SQL texts of these TypeScript sources (path → text). */
export function extractSql(sources: Map<string, string>): SqlText[] {
  const files = new Map([...sources].map(([file, text]) => [file, parse(file, text)]));
  const counts = new Map<string, number>();
  for (const p of files.values()) for (const name of p.consts.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
  const global = new Map<string, { p: Parsed; e: ts.Expression }>();
  for (const p of files.values()) for (const [name, e] of p.consts) if (counts.get(name) === 1) global.set(name, { p, e });
  const resolver = new Resolver(global);
  return [...files.values()].flatMap((p) => resolver.sqlOf(p));
}

/** Every .ts/.tsx file under `dir`, relative to `root`. */
export function readSources(root: string, dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.set(path.relative(root, full).split(path.sep).join('/'), fs.readFileSync(full, 'utf8'));
    }
  };
  walk(path.join(root, dir));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Normalisation and levels.

function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, ' ').replace(/\/\*[\s\S]*?\*\//g, ' ');
}

/** Lower case, no comments, string literals emptied ('' kept), one space between words. */
export function normalise(sql: string): string {
  let s = stripComments(sql);
  s = s.replace(/'(?:[^']|'')*'/g, "''").replace(/"([^"]*)"/g, (_, id: string) => id.toLowerCase().replace(/\W/g, '_'));
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** `s` with everything inside parentheses blanked (same length), so a regex sees depth 0 only. */
function depth0(s: string): string {
  let depth = 0;
  let out = '';
  for (const ch of s) {
    if (ch === '(') {
      out += depth === 0 ? '(' : ' ';
      depth++;
    } else if (ch === ')') {
      depth = Math.max(0, depth - 1);
      out += depth === 0 ? ')' : ' ';
    } else out += depth === 0 ? ch : ' ';
  }
  return out;
}

/** The index of the first ')' of `s` that closes a parenthesis opened before `s`, or undefined. */
function unmatchedClose(s: string): number | undefined {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && depth-- === 0) return i;
  }
  return undefined;
}

/** Splits at depth-0 occurrences of `sep` (a regex source). */
function splitTop(s: string, sep: string): string[] {
  const flat = depth0(s);
  const parts: string[] = [];
  let last = 0;
  for (const m of flat.matchAll(new RegExp(sep, 'g'))) {
    parts.push(s.slice(last, m.index));
    last = m.index! + m[0].length;
  }
  parts.push(s.slice(last));
  return parts.map((x) => x.trim()).filter(Boolean);
}

const SUBQUERY = /^\s*(with|select|insert|update|delete|values)\b/;

/** One level: its text with each subquery replaced by `(__sub__)`, and those subqueries' raw texts in order. */
export interface Level {
  text: string;
  subqueries: string[];
}

/**
 * The levels of a normalised statement: the statement itself and every parenthesised subquery
 * (CTE bodies included), each with its own subqueries replaced by `(__sub__)`.
 */
export function levelParts(sql: string): Level[] {
  const out: Level[] = [];
  const push = (masked: string, subs: string[]) => {
    let next = 0;
    for (const statement of splitTop(masked, ';')) {
      for (const branch of splitTop(statement, '\\b(?:union all|union|intersect|except)\\b')) {
        const n = branch.split('(__sub__)').length - 1;
        out.push({ text: branch, subqueries: subs.slice(next, next + n) });
        next += n;
      }
    }
  };
  const mask = (s: string, subs: string[]): string => {
    let result = '';
    let i = 0;
    while (i < s.length) {
      if (s[i] !== '(') {
        result += s[i++];
        continue;
      }
      let depth = 0;
      let j = i;
      for (; j < s.length; j++) {
        if (s[j] === '(') depth++;
        else if (s[j] === ')' && --depth === 0) break;
      }
      const inner = s.slice(i + 1, j);
      if (SUBQUERY.test(inner)) {
        const innerSubs: string[] = [];
        push(mask(inner, innerSubs), innerSubs);
        subs.push(inner);
        result += '(__sub__)';
      } else result += `(${mask(inner, subs)})`;
      i = j + 1;
    }
    return result;
  };
  const subs: string[] = [];
  push(mask(sql, subs), subs);
  return out;
}

export function levels(sql: string): string[] {
  return levelParts(sql).map((l) => l.text);
}

const CLAUSE_END = '\\b(?:where|group by|having|order by|limit|offset|window|for (?:update|no key update|share|key share)|returning|on conflict|set)\\b|$';
const JOIN_WORDS = new Set(['on', 'join', 'left', 'right', 'inner', 'full', 'cross', 'natural', 'using', 'where', 'lateral', 'outer', 'group', 'order', 'limit', 'for', 'set', 'returning', 'with']);

interface FromItem {
  table: string;
  alias: string;
}

/** The FROM clause of a select level (text between depth-0 `from` and the next clause). */
function fromClause(level: string): string | undefined {
  const flat = depth0(level);
  const m = /\bfrom\b/.exec(flat);
  if (!m) return undefined;
  const rest = flat.slice(m.index + 4);
  const end = new RegExp(CLAUSE_END).exec(rest);
  return level.slice(m.index + 4, m.index + 4 + (end ? end.index : rest.length));
}

function fromItems(from: string): FromItem[] {
  const items: FromItem[] = [];
  const flat = depth0(from);
  const re = /(?:^|,|\bjoin\b)\s*(?:lateral\s+)?(?:only\s+)?([a-z_][\w.]*)\b(?!\s*\()(?:\s+(?:as\s+)?([a-z_]\w*))?/g;
  for (const m of flat.matchAll(re)) {
    const table = m[1].replace(/^public\./, '');
    const alias = m[2] && !JOIN_WORDS.has(m[2]) ? m[2] : table;
    items.push({ table, alias });
  }
  return items;
}

/** Whether the level's FROM has more than one item: a join, a comma, or a subquery beside a table. */
function joins(from: string): boolean {
  const flat = depth0(from);
  return /\bjoin\b/.test(flat) || flat.includes(',');
}

// ---------------------------------------------------------------------------------------------
// The checks.

/** (a) `insert into t (…) values (…, (select …))`: Citus refuses subqueries inside INSERT … VALUES. */
export function insertValuesSubquery(sql: string): string | undefined {
  const s = normalise(sql);
  const re = /\binsert into [\w.]+\s*(?:\([^()]*\))?\s*(?:overriding (?:system|user) value\s*)?values\s*/g;
  for (const m of s.matchAll(re)) {
    let i = m.index! + m[0].length;
    // The rows: (…), (…), … each a balanced group.
    while (s[i] === '(') {
      let depth = 0;
      let j = i;
      for (; j < s.length; j++) {
        if (s[j] === '(') depth++;
        else if (s[j] === ')' && --depth === 0) break;
      }
      const row = s.slice(i, j + 1);
      if (/\bselect\b/.test(row)) return `a subquery inside INSERT … VALUES: ${row.slice(0, 160)}`;
      i = j + 1;
      while (s[i] === ' ' || s[i] === ',') i++;
    }
  }
  return undefined;
}

const LOCK = /\bfor (update|no key update|share|key share)\b(?:\s+of\s+([a-z_][\w]*(?:\s*,\s*[a-z_]\w*)*))?/;

/**
 * (b) FOR UPDATE/SHARE whose locked merchant-owned table is not pinned to one merchant by
 * `merchant_account_number = <parameter or variable>` (directly, or through an equality of
 * merchant_account_number with a pinned table of the same level): on Citus that lock spans shards.
 */
export function multiShardLocks(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const level of levels(normalise(sql))) {
    const flat = depth0(level);
    const lock = LOCK.exec(flat);
    if (!lock || !/^\s*select\b/.test(level)) continue;
    const from = fromClause(level);
    if (!from) continue;
    const items = fromItems(from);
    const lockedAliases = lock[2] ? lock[2].split(',').map((a) => a.trim()) : items.map((i) => i.alias);
    const byAlias = new Map(items.map((i) => [i.alias, i.table]));
    const owned = items.filter((i) => merchantOwned.has(i.table));
    const pinned = new Set<string>();
    const links: [string, string][] = [];
    // A parameter, a PL/pgSQL variable, a constant or another table's column; not any($1) or a call.
    const value = String.raw`(\$(?:\d+|__x__)(?:::\w+)?|(?!(?:any|all|some)\b)[a-z_]\w*(?:\.merchant_account_number)?\b(?!\s*[(.])|\d+)`;
    const column = String.raw`(?:([a-z_]\w*)\.)?merchant_account_number`;
    for (const m of level.matchAll(new RegExp(`${column}\\s*=\\s*${value}`, 'g'))) record(m[1], m[2]);
    for (const m of level.matchAll(new RegExp(`${value}\\s*=\\s*${column}(?!\\s*=)`, 'g'))) record(m[2], m[1]);
    function record(alias: string | undefined, other: string) {
      // An unqualified column belongs to the level's only merchant-owned table.
      const a = alias ?? (owned.length === 1 ? owned[0].alias : undefined);
      if (!a) return;
      const qualified = /^([a-z_]\w*)\.merchant_account_number$/.exec(other);
      if (qualified) links.push([a, qualified[1]]);
      else if (other !== 'merchant_account_number') pinned.add(a);
    }
    for (let changed = true; changed; ) {
      changed = false;
      for (const [a, b] of links) {
        if (pinned.has(a) !== pinned.has(b)) {
          pinned.add(a);
          pinned.add(b);
          changed = true;
        }
      }
    }
    for (const alias of lockedAliases) {
      const table = byAlias.get(alias);
      if (table && merchantOwned.has(table) && !pinned.has(alias)) {
        problems.push(`${lock[0]} locks ${table}${alias !== table ? ` (${alias})` : ''} without ${alias}.merchant_account_number = <parameter>: a lock across shards`);
      }
    }
  }
  return problems;
}

const AGGREGATES =
  'count|sum|min|max|avg|bool_and|bool_or|every|array_agg|string_agg|json_agg|jsonb_agg|json_object_agg|jsonb_object_agg|percentile_cont|percentile_disc|mode|stddev\\w*|variance|var_\\w+|bit_and|bit_or|xmlagg|row_number|rank|dense_rank|lag|lead|first_value|last_value|ntile';

/** `text` without aggregate calls (and their filter / within group / over clauses). */
function withoutAggregates(text: string): string {
  const re = new RegExp(`\\b(?:${AGGREGATES})\\s*\\(`, 'g');
  let out = text;
  for (let m = re.exec(out); m; m = re.exec(out)) {
    let j = m.index + m[0].length - 1;
    const skipGroup = (k: number) => {
      let depth = 0;
      for (; k < out.length; k++) {
        if (out[k] === '(') depth++;
        else if (out[k] === ')' && --depth === 0) return k + 1;
      }
      return out.length;
    };
    j = skipGroup(j);
    for (let tail = /^\s*(?:filter|within group|over)\s*\(/.exec(out.slice(j)); tail; tail = /^\s*(?:filter|within group|over)\s*\(/.exec(out.slice(j))) {
      j = skipGroup(j + tail[0].length - 1);
    }
    out = `${out.slice(0, m.index)} __agg__ ${out.slice(j)}`;
    re.lastIndex = 0;
  }
  return out;
}

function stripAlias(item: string): string {
  const m = /^(.*\S)\s+(?:as\s+)?([a-z_]\w*)$/.exec(item);
  if (m && !['end', 'null', 'true', 'false'].includes(m[2]) && !/\b(?:as|distinct)$/.test(m[1])) return m[1].trim();
  return item.trim();
}

/**
 * (c) A select that joins tables and groups, with a selected column (or `x.*`) neither grouped nor
 * inside an aggregate: PostgreSQL accepts it when the grouped key is a primary key (functional
 * dependency), Citus's multi-shard planner does not.
 */
export function groupByFunctionalDependency(sql: string): string[] {
  const problems: string[] = [];
  for (const level of levels(normalise(sql))) {
    const flat = depth0(level);
    const select = /^\s*select\s+(?:distinct\s+(?:on\s*\([^)]*\)\s*)?)?/.exec(flat);
    const group = /\bgroup by\b/.exec(flat);
    const fromAt = /\bfrom\b/.exec(flat);
    if (!select || !group || !fromAt) continue;
    const from = fromClause(level)!;
    if (!joins(from)) continue;
    const selectItems = splitTop(level.slice(select[0].length, fromAt.index), ',').map(stripAlias);
    const afterGroup = level.slice(group.index + group[0].length);
    const end = new RegExp('\\b(?:having|order by|limit|offset|window|for (?:update|no key update|share|key share))\\b|$').exec(depth0(afterGroup))!;
    const grouped = splitTop(afterGroup.slice(0, end.index), ',').map((g) => (/^\d+$/.test(g) ? (selectItems[Number(g) - 1] ?? g) : g));
    const aliases = new Set(fromItems(from).map((i) => i.alias));
    for (const item of selectItems) {
      if (grouped.includes(item)) continue;
      if (/^([a-z_]\w*\.)?\*$/.test(item)) {
        problems.push(`selects ${item} grouped by ${grouped.join(', ')}: every column must be grouped or aggregated`);
        continue;
      }
      let rest = withoutAggregates(item);
      for (const g of [...grouped].sort((a, b) => b.length - a.length)) rest = rest.split(g).join(' __grouped__ ');
      const loose = [...rest.matchAll(/\b([a-z_]\w*)\.([a-z_]\w*)\b(?!\s*\()/g)].filter((m) => aliases.has(m[1])).map((m) => m[0]);
      if (loose.length > 0) problems.push(`selects ${[...new Set(loose)].join(', ')} grouped by ${grouped.join(', ')} only: group by every selected column, or aggregate in a subquery`);
    }
  }
  return problems;
}

/** Functions that are not IMMUTABLE and that this codebase calls (time, randomness, sequences). */
const NON_IMMUTABLE_CALL = /\b(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday|random|gen_random_uuid|nextval|currval|make_interval|age|to_char|to_timestamp)\s*\(|\b(current_timestamp|current_date|current_time|localtimestamp|localtime)\b/;

/**
 * (d) `insert into <merchant-owned table> … on conflict … do update set …` whose SET clause calls a
 * function that is not IMMUTABLE (now(), make_interval(), …): Citus refuses it on a distributed
 * table ("functions used in the DO UPDATE SET clause of INSERTs on distributed tables must be
 * marked IMMUTABLE"; issue 28, store_idempotent_answer of migration 0012). Compute the value first
 * (a PL/pgSQL variable, a parameter, or excluded.<column> from the inserted row).
 */
export function nonImmutableUpsertSet(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const s = normalise(sql);
  for (const m of s.matchAll(/\binsert into ([\w.]+)/g)) {
    const table = m[1].replace(/^public\./, '');
    if (!merchantOwned.has(table)) continue;
    const rest = s.slice(m.index! + m[0].length);
    const next = /\binsert into\b/.exec(rest);
    const statement = next ? rest.slice(0, next.index) : rest;
    const set = /\bon conflict\b[^;]*?\bdo update set\b/.exec(statement);
    if (!set) continue;
    // The SET list ends at its WHERE, RETURNING or the statement's end (depth 0).
    const after = statement.slice(set.index + set[0].length);
    const end = /\b(?:where|returning)\b|;|\)\s*,\s*[a-z_]\w*\s+as\s*\(|\)\s*(?:select|insert|update|delete)\b/.exec(depth0(after));
    const assignments = after.slice(0, end ? end.index : after.length);
    const call = NON_IMMUTABLE_CALL.exec(assignments);
    if (call) problems.push(`ON CONFLICT DO UPDATE SET on ${table} calls ${call[0].replace(/\s*\($/, '()')}: compute it first (a variable or parameter), Citus wants IMMUTABLE functions there`);
  }
  return problems;
}

/**
 * (e) `update <merchant-owned table> … ` whose RETURNING calls a function that is not IMMUTABLE
 * (now(), to_char(), …), or whose SET has a CASE or COALESCE that calls one, or a simple CASE (`case x when
 * …`): Citus refuses the first two on a distributed table ("non-IMMUTABLE functions are not
 * allowed in the RETURNING clause", "… in CASE or COALESCE statements") and deparses the simple
 * CASE for its workers as `WHEN NULL::boolean` ("operator does not exist: text = boolean"; issue
 * 28, Citus 13.2, the payout worker's decideChunk and completeBatches). Read the time first and
 * pass it in (or stamp the rows afterwards), and write `case when x = …`.
 */
export function updateCitusRefuses(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const s = normalise(sql);
  for (const m of s.matchAll(/\bupdate ([\w.]+)(?:\s+(?:as\s+)?([a-z_]\w*))?\s+set\b/g)) {
    const table = m[1].replace(/^public\./, '');
    if (!merchantOwned.has(table)) continue;
    const rest = s.slice(m.index! + m[0].length);
    // The statement ends where its parenthesis closes (a CTE) or at the text's end: at the first
    // ')' that closes nothing opened after SET (not at least(…)'s, which hid a CASE behind it).
    const flat = depth0(rest);
    const close = unmatchedClose(rest);
    const statement = rest.slice(0, close ?? rest.length);
    const flatStatement = flat.slice(0, close ?? flat.length);
    const ret = /\breturning\b/.exec(flatStatement);
    const setEnd = /\b(?:from|where|returning)\b/.exec(flatStatement);
    const assignments = statement.slice(0, setEnd ? setEnd.index : statement.length);
    if (ret) {
      const call = NON_IMMUTABLE_CALL.exec(statement.slice(ret.index));
      if (call && !/^(nextval|currval)/.test(call[0])) problems.push(`UPDATE ${table} … RETURNING calls ${call[0].replace(/\s*\($/, '()')}: Citus wants IMMUTABLE functions there (read it first, or stamp the rows after)`);
    }
    if (/\bcase\s+(?!when\b)[a-z_][\w.]*\s+when\b/.test(assignments)) problems.push(`UPDATE ${table} SET has a simple CASE (case x when …): Citus deparses it wrongly for its workers; write case when x = …`);
    for (const c of assignments.matchAll(/\b(case|coalesce)\b/g)) {
      // The CASE up to its END at the same depth; the COALESCE up to its closing parenthesis.
      const tail = assignments.slice(c.index!);
      const end = c[1] === 'case' ? /\bend\b/.exec(depth0(tail))?.index : unmatchedClose(tail.slice(tail.indexOf('(') + 1));
      const expr = tail.slice(0, end === undefined ? tail.length : c[1] === 'case' ? end : tail.indexOf('(') + 1 + end);
      const call = NON_IMMUTABLE_CALL.exec(expr);
      if (call) {
        problems.push(`UPDATE ${table} SET has a ${c[1].toUpperCase()} calling ${call[0].replace(/\s*\($/, '()')}: Citus wants IMMUTABLE functions in CASE and COALESCE there (compute it first, pass it in)`);
        break;
      }
    }
  }
  return problems;
}

/**
 * (f) An UPDATE or DELETE of a merchant-owned table that names ctid: a row's physical address is
 * per shard, and Citus refuses it from a subquery it plans first ("Recursively planned distributed
 * modifications with ctid on where clause are not supported"). Delete or update by key.
 */
export function ctidModification(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const s = normalise(sql);
  if (!/\bctid\b/.test(s)) return [];
  const problems: string[] = [];
  for (const m of s.matchAll(/\b(?:delete\s+from|update)\s+(?:only\s+)?([\w.]+)/g)) {
    const table = m[1].replace(/^public\./, '');
    if (merchantOwned.has(table)) problems.push(`${m[0].startsWith('delete') ? 'DELETE' : 'UPDATE'} ${table} by ctid: a row address is per shard; use the key`);
  }
  return problems;
}

const SET_RETURNING = /\b(?:unnest|generate_series|jsonb?_array_elements(?:_text)?|jsonb?_to_recordset|jsonb?_populate_recordset|jsonb?_each(?:_text)?|regexp_split_to_table|string_to_table)\s*\(/;

/** The aliases a FROM clause names: its tables' and those of its parenthesised items (`unnest(…) as t(…)`, `(select …) d`). */
function fromAliases(from: string): Set<string> {
  const aliases = new Set(fromItems(from).map((i) => i.alias));
  for (const m of depth0(from).matchAll(/\)\s*(?:with ordinality\s*)?(?:as\s+)?([a-z_]\w*)/g)) if (!JOIN_WORDS.has(m[1])) aliases.add(m[1]);
  return aliases;
}

/** Whether a raw subquery reads one of these tables (after a FROM or JOIN, at any depth). */
function readsAny(sql: string, tables: ReadonlySet<string>): boolean {
  return [...sql.matchAll(/\b(?:from|join)\s+(?:only\s+)?([a-z_][\w.]*)/g)].some((m) => tables.has(m[1].replace(/^public\./, '')));
}

/**
 * (g) A level whose FROM holds a set-returning function (unnest(), generate_series(), …), directly
 * or in a subquery of its FROM, with a subquery elsewhere in it (SELECT list, WHERE) that reads a
 * merchant-owned table and refers to an alias of that FROM: Citus refuses it ("correlated
 * subqueries are not supported when the FROM clause contains a set returning function"; issue 28,
 * the outbox's ad-hoc webhook targets and the ledger_account_days job). Read the subquery's rows
 * apart, or read the merchant's table in the FROM (a join) pinned to the merchant.
 */
export function correlatedSubqueryBesideSrf(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const level of levelParts(normalise(sql))) {
    const flat = depth0(level.text);
    const fromAt = /\bfrom\b/.exec(flat);
    const from = fromClause(level.text);
    if (!fromAt || from === undefined) continue;
    const fromStart = fromAt.index + 4;
    const fromEnd = fromStart + from.length;
    // The level's subqueries, each with where it stands: inside the FROM or elsewhere.
    const placed: { at: number; sql: string }[] = [];
    let k = 0;
    for (const m of level.text.matchAll(/\(__sub__\)/g)) placed.push({ at: m.index!, sql: level.subqueries[k++] ?? '' });
    const inFrom = (at: number) => at >= fromStart && at < fromEnd;
    const srfInFrom = SET_RETURNING.test(depth0(from)) || placed.some((p) => inFrom(p.at) && /\bfrom\b/.test(p.sql) && SET_RETURNING.test(p.sql.slice(p.sql.search(/\bfrom\b/))));
    if (!srfInFrom) continue;
    const outer = fromAliases(from);
    for (const p of placed.filter((x) => !inFrom(x.at) && readsAny(x.sql, merchantOwned))) {
      const own = fromAliases(fromClause(levels(p.sql).at(-1) ?? '') ?? '');
      const refers = [...outer].find((alias) => !own.has(alias) && new RegExp(`\\b${alias}\\.`).test(p.sql));
      if (refers) {
        problems.push(`a subquery refers to ${refers}.… of a FROM holding a set-returning function: Citus refuses correlated subqueries there (read the rows apart, or join the table pinned to the merchant)`);
        break;
      }
    }
  }
  return problems;
}

/**
 * (h) An INSERT into a merchant-owned table whose RETURNING reads a CTE of its statement
 * (`returning (select count(*) from days)`): Citus plans the RETURNING without the CTE ("relation
 * … does not exist"; issue 28, the ledger_account_days job). Read the CTE in a SELECT of the
 * statement's own.
 */
export function cteInInsertReturning(sql: string, merchantOwned: ReadonlySet<string>): string[] {
  const s = normalise(sql);
  const ctes = new Set([...s.matchAll(/\b([a-z_]\w*)\s+as\s*(?:not\s+)?(?:materialized\s*)?\(\s*(?:with|select|insert|update|delete|values)\b/g)].map((m) => m[1]));
  if (ctes.size === 0) return [];
  const problems: string[] = [];
  for (const m of s.matchAll(/\binsert into ([\w.]+)/g)) {
    const table = m[1].replace(/^public\./, '');
    if (!merchantOwned.has(table)) continue;
    const rest = s.slice(m.index! + m[0].length);
    const statement = rest.slice(0, unmatchedClose(rest) ?? rest.length);
    const ret = /\breturning\b/.exec(depth0(statement));
    if (!ret) continue;
    const read = [...statement.slice(ret.index).matchAll(/\b(?:from|join)\s+([a-z_]\w*)/g)].find((r) => ctes.has(r[1]));
    if (read) problems.push(`INSERT into ${table} … RETURNING reads the CTE ${read[1]}: Citus loses it there; read it in a SELECT of its own`);
  }
  return problems;
}

/** Every finding of the query classes in these SQL texts. */
export function lint(texts: SqlText[], merchantOwned: ReadonlySet<string>): Finding[] {
  const findings: Finding[] = [];
  for (const t of texts) {
    const where = `${t.file}#${t.owner}`;
    const a = insertValuesSubquery(t.sql);
    if (a) findings.push({ cls: 'insert-values-subquery', where, line: t.line, message: a });
    for (const message of multiShardLocks(t.sql, merchantOwned)) findings.push({ cls: 'multi-shard-lock', where, line: t.line, message });
    for (const message of groupByFunctionalDependency(t.sql)) findings.push({ cls: 'group-by-functional-dependency', where, line: t.line, message });
    for (const message of nonImmutableUpsertSet(t.sql, merchantOwned)) findings.push({ cls: 'non-immutable-upsert-set', where, line: t.line, message });
    for (const message of updateCitusRefuses(t.sql, merchantOwned)) findings.push({ cls: 'update-citus-refuses', where, line: t.line, message });
    for (const message of ctidModification(t.sql, merchantOwned)) findings.push({ cls: 'ctid-modification', where, line: t.line, message });
    for (const message of correlatedSubqueryBesideSrf(t.sql, merchantOwned)) findings.push({ cls: 'correlated-subquery-beside-srf', where, line: t.line, message });
    for (const message of cteInInsertReturning(t.sql, merchantOwned)) findings.push({ cls: 'cte-in-insert-returning', where, line: t.line, message });
  }
  return findings;
}
