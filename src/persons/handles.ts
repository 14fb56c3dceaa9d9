import { invalidField } from '../errors/api-error.ts';
import type { Handle } from '../store/types.ts';
import { canonicalHandle, handleProblem } from '../validation/handle.ts';

/**
 * Puts each handle in its canonical form (see canonicalHandle), then checks it there, so the
 * value that is validated is the one that is compared and stored. A handle repeated within
 * the request, in any spelling, names the first occurrence.
 */
export function normaliseHandles(handles: readonly Handle[], field = 'body.handles'): Handle[] {
  const seen = new Map<string, number>();
  return handles.map((given, index) => {
    const handle = canonicalHandle(given);
    const problem = handleProblem(handle);
    if (problem) throw invalidField(`${field}[${index}].value`, problem);
    const key = `${handle.type}:${handle.value}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalidField(`${field}[${index}]`, `repeats ${field}[${earlier}]`);
    seen.set(key, index);
    return handle;
  });
}
