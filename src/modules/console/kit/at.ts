// Console routes are registered inside the /console scope (http.ts): a full path minus the prefix.
import { CONSOLE_PATH } from './paths.ts';

export function at(fullPath: string): string {
  if (!fullPath.startsWith(CONSOLE_PATH)) throw new Error(`${fullPath} is not a console path`);
  return fullPath.slice(CONSOLE_PATH.length) || '/';
}
