/** One of `items` at random; undefined when there are none. */
export const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];

/** A value no other run or operation has: for email addresses and paths. */
export const unique = (): string => `${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}`;
