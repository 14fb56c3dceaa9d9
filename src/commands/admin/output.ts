/**
 * A stored value as a terminal may show it: control and format characters written as \u
 * escapes. Names come from any admin (a client name may hold an escape sequence), and a
 * terminal obeys what it is sent.
 */
export function printable(value: string): string {
  return value.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = rows.map((row) => row.map(printable));
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[header, ...cells].map(line).join('\n')}\n`;
}

/** Labelled lines under a heading, the values lined up: `  client id:  cli_…`. */
export function summary(heading: string, fields: readonly [label: string, value: string][], note?: string): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  const lines = fields.map(([label, value]) => `  ${`${label}:`.padEnd(width)}  ${printable(value)}`);
  return `${printable(heading)}\n${lines.join('\n')}\n${note === undefined ? '' : `\n${note}\n`}`;
}

/** A list for a summary line; `none` for an empty one. */
export function listed(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}

/** Every item of a keyset-paged list, a page at a time. */
export async function allPages<T>(
  list: (page: { position: { kind: 'first' } | { kind: 'after'; id: string }; limit: number }) => Promise<{ items: T[]; hasNext: boolean }>,
  idOf: (item: T) => string,
): Promise<T[]> {
  const items: T[] = [];
  let page = await list({ position: { kind: 'first' }, limit: 100 });
  items.push(...page.items);
  while (page.hasNext && page.items.length > 0) {
    page = await list({ position: { kind: 'after', id: idOf(page.items.at(-1)!) }, limit: 100 });
    items.push(...page.items);
  }
  return items;
}
