const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `500ms`, `5s`, `1m`, `1h` → milliseconds; undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})(ms|s|m|h)$/.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2]!]! : undefined;
}
