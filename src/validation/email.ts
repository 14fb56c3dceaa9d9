/**
 * A pragmatic address check (no quoted local parts, no IP literals): what real directories
 * hold, strict enough to catch typos such as spaces or a missing domain dot. Compare
 * lower-cased.
 */
export const EMAIL_ADDRESS = /^[^\s@"<>(),;:\\[\]]{1,64}@(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function isEmailAddress(value: string): boolean {
  return EMAIL_ADDRESS.test(value.toLowerCase());
}
