// Searches match the caller's text literally: `%`, `_` and `\` typed by a merchant are not
// wildcards (PostgreSQL's default LIKE escape character is the backslash).

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A LIKE / ILIKE pattern matching `text` anywhere. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}
