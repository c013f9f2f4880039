// One console text in every language (i18n.ts). Each area of the console keeps its texts in a file
// of this folder, under keys that start with the area's name, and i18n.ts joins them.
import type { Lang } from '../../../http/i18n.ts';

export type Entry = Record<Lang, string>;
