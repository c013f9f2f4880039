// What the reference page (/docs) draws from: the document as OpenAPI 3.0 (issue 30). Swagger UI
// reads a 3.1 document through a second, much slower parser (ApiDOM): on the 2-core machine the
// same operations took about 1.9 s to appear as 3.1 and 0.5 s as 3.0 once the document was
// fetched. /openapi.json stays 3.1 for generators and linters; this view only drops what 3.0 cannot
// say (the webhooks section, whose payloads /openapi.json keeps) and rewrites what it says
// differently (nullable for a null type, example for examples, enum for const).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The 3.0 view of a 3.1 document (a new object; the document is not changed). */
export function asOpenApi30(document: object): object {
  const { webhooks: _webhooks, ...rest } = document as { webhooks?: unknown; [key: string]: unknown };
  return { ...(convert(rest as Json) as object), openapi: '3.0.3' };
}

function convert(node: Json): Json {
  if (Array.isArray(node)) return node.map(convert);
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id' || key === '$schema') continue;
    out[key] = convert(value);
  }
  return schemaAs30(out);
}

/** One schema object's 3.1 spellings in 3.0 (objects that are not schemas pass unchanged). */
function schemaAs30(s: { [key: string]: Json }): { [key: string]: Json } {
  // `examples` is an array in a 3.1 schema, a map of named examples in a media object: only the first changes.
  if (Array.isArray(s.examples)) {
    const [first] = s.examples;
    delete s.examples;
    if (first !== undefined && s.example === undefined) s.example = first;
  }
  if ('const' in s && s.enum === undefined) {
    s.enum = [s.const];
    delete s.const;
  }
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    if (types.length < s.type.length) s.nullable = true;
    if (types.length === 1) s.type = types[0];
    else {
      delete s.type;
      s.anyOf = types.map((t) => ({ type: t }));
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (!Array.isArray(branches) || !branches.some(isNullType)) continue;
    const rest = branches.filter((b) => !isNullType(b));
    s.nullable = true;
    if (rest.length === 1 && typeof rest[0] === 'object' && rest[0] !== null && !Array.isArray(rest[0])) {
      delete s[key];
      Object.assign(s, { ...rest[0], ...s, nullable: true });
    } else s[key] = rest;
  }
  return s;
}

function isNullType(branch: Json): boolean {
  return typeof branch === 'object' && branch !== null && !Array.isArray(branch) && branch.type === 'null' && Object.keys(branch).length === 1;
}
