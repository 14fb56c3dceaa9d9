import { ENCODED_TIME, encodeTime, hashSecret, randomSecret } from '../../crypto/ids.ts';
import { OPAQUE_PREFIX } from './token-types.ts';

/**
 * An opaque token is `tat_`, its issue time (10 base32 characters) and 256 random bits. It is
 * stored under its key: that time, then the SHA-256 of the whole value.
 *
 * The time leads the key so that the rows of the tokens table sort by age. Keyed by the hash
 * alone, every insert landed on a random page of the index and every purged row on another,
 * so a million stored tokens made each commit and each purge write a page per row; keyed by
 * time, new tokens share the index's last page and expired ones are deleted a page at a time.
 * The time is no secret: the holder can introspect the token for it anyway.
 */
export function newOpaqueToken(now: number): string {
  return `${OPAQUE_PREFIX}${encodeTime(now)}${randomSecret()}`;
}

/** The key the token is stored under; only a hash for tokens issued before keys had a time. */
export function opaqueTokenKey(value: string): string {
  const time = value.slice(OPAQUE_PREFIX.length, OPAQUE_PREFIX.length + 10);
  return value.length === NEW_LENGTH && ENCODED_TIME.test(time) ? `${time}.${hashSecret(value)}` : hashSecret(value);
}

/** The prefix, 10 characters of time and 43 of base64url. */
const NEW_LENGTH = OPAQUE_PREFIX.length + 10 + 43;
