import type { Setting } from './setting.js';
import { SETTINGS } from './settings.js';

export const TABLE_START =
  '<!-- config-table:start (generated from src/config/settings.ts: npm run docs:config) -->';
export const TABLE_END = '<!-- config-table:end -->';

function defaultCell(declared: Setting<unknown>): string {
  if (declared.defaultDoc !== undefined) return declared.defaultDoc;
  if (typeof declared.default === 'function') {
    throw new Error(`${declared.env}: a computed default needs a defaultDoc`);
  }
  return declared.default === undefined ? 'unset' : `\`${String(declared.default)}\``;
}

/** docs/configuration.md's table, one row per setting, aligned the way prettier aligns Markdown tables. */
export function renderConfigTable(settings: Record<string, Setting<unknown>> = SETTINGS): string {
  const rows = [
    ['Variable', 'Default', 'Meaning'],
    ...Object.values(settings).map((declared) => [
      `\`${declared.env}\``,
      defaultCell(declared),
      declared.doc,
    ]),
  ].map((row) => row.map((cell) => cell.replaceAll('|', '\\|')));
  const widths = rows[0]!.map((_, column) => Math.max(3, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const [header, ...body] = rows;
  return [line(header!), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n');
}

/** `page` with the text between the table markers replaced by the current table. */
export function withConfigTable(page: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start === -1 || end < start) {
    throw new Error(`the page lacks the configuration table markers (${TABLE_START} … ${TABLE_END})`);
  }
  return `${page.slice(0, start + TABLE_START.length)}\n\n${renderConfigTable()}\n\n${page.slice(end)}`;
}

const ENV_EXAMPLE_HEADER = `# Every setting of Tollgate, generated from src/config/settings.ts (npm run docs:config). The service reads the
# environment, or a .env file in its working directory (the environment wins): copy this file to .env and uncomment
# what you change. The values shown are the defaults; none is needed for \`npm start\` on a development machine.
`;

/** `.env.example`: each setting's meaning, then its variable commented out with its default (empty when computed). */
export function renderEnvExample(settings: Record<string, Setting<unknown>> = SETTINGS): string {
  const entries = Object.values(settings).map((declared) => {
    const literal =
      typeof declared.default === 'function' ||
      declared.default === undefined ||
      typeof declared.default === 'object'
        ? ''
        : String(declared.default);
    return `# ${declared.doc} Default: ${defaultCell(declared)}.\n# ${declared.env}=${literal}`;
  });
  return `${ENV_EXAMPLE_HEADER}\n${entries.join('\n\n')}\n`;
}
