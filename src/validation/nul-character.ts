interface Visit {
  value: unknown;
  key: string;
  parent: Visit | undefined;
}

/**
 * The JSON pointer of the first string or member name holding U+0000, if any. Every validated
 * request passes here, so the walk builds no strings; the pointer is spelled only when found.
 */
export function nulAt(root: unknown): string | undefined {
  const pending: Visit[] = [{ value: root, key: '', parent: undefined }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pointerOf(visit);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) pending.push({ value: value[i], key: String(i), parent: visit });
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        const member: Visit = { value: (value as Record<string, unknown>)[key], key, parent: visit };
        if (key.includes('\u0000')) return pointerOf(member);
        pending.push(member);
      }
    }
  }
  return undefined;
}

function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key.replace(/~/g, '~0').replace(/\//g, '~1'));
  return keys
    .reverse()
    .map((key) => `/${key}`)
    .join('');
}
