import { Type } from 'typebox';
import type { CredentialType, CredentialTypeContext, PreparedCredential } from '../../credentials/credential-type.ts';
import { invalidField } from '../../errors/api-error.ts';
import { encodeBase32 } from './base32.ts';
import { KEY_URI_FIELD, parseKeyUri } from './key-uri.ts';
import { MAX_KEY_URI_LENGTH, MAX_RECOVERY_CODE_LENGTH, MAX_RECOVERY_CODES } from './limits.ts';
import { normaliseRecoveryCode, recoveryCodeProblem } from './recovery-codes.ts';
import { readStoredTotp, type StoredTotp } from './stored.ts';

const PARAMS = 'body.params';
const TOTAL_FIELD = `${PARAMS}.recovery_codes_total`;
const CODES_FIELD = `${PARAMS}.unused_recovery_codes`;

const paramsSchema = Type.Object(
  {
    key_uri: Type.String({ minLength: 1, maxLength: MAX_KEY_URI_LENGTH, description: 'otpauth://totp/ key URI (spec §2.3)' }),
    recovery_codes_total: Type.Integer({ minimum: 0, maximum: MAX_RECOVERY_CODES, description: 'Recovery codes originally issued' }),
    unused_recovery_codes: Type.Array(Type.String({ minLength: 1, maxLength: MAX_RECOVERY_CODE_LENGTH }), {
      maxItems: MAX_RECOVERY_CODES,
      description: 'Recovery codes not yet used; each can be used once',
    }),
  },
  { additionalProperties: false, description: 'TOTP credential (spec §2.3)' },
);

interface TotpRequest {
  key_uri: string;
  recovery_codes_total: number;
  unused_recovery_codes: string[];
}

/**
 * The schema's rules again: prepare is given `unknown` and must not store anything it has not
 * checked, whoever calls it.
 */
function readRequest(params: unknown): TotpRequest {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) throw invalidField(PARAMS, 'must be an object');
  const record = params as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !(key in paramsSchema.properties));
  if (unknown !== undefined) throw invalidField(`${PARAMS}.${unknown}`, 'is not a TOTP parameter');
  const { key_uri, recovery_codes_total, unused_recovery_codes } = record;
  if (typeof key_uri !== 'string' || key_uri === '') throw invalidField(KEY_URI_FIELD, 'must be a non-empty string');
  if (!Number.isSafeInteger(recovery_codes_total) || (recovery_codes_total as number) < 0 || (recovery_codes_total as number) > MAX_RECOVERY_CODES) {
    throw invalidField(TOTAL_FIELD, `must be a whole number from 0 to ${MAX_RECOVERY_CODES}`);
  }
  if (!Array.isArray(unused_recovery_codes)) throw invalidField(CODES_FIELD, 'must be an array of strings');
  if (unused_recovery_codes.length > MAX_RECOVERY_CODES) throw invalidField(CODES_FIELD, `must have at most ${MAX_RECOVERY_CODES} codes`);
  unused_recovery_codes.forEach((code, index) => {
    if (typeof code !== 'string') throw invalidField(`${CODES_FIELD}[${index}]`, 'must be a string');
  });
  return { key_uri, recovery_codes_total: recovery_codes_total as number, unused_recovery_codes: unused_recovery_codes as string[] };
}

/** Each code well-formed and different from the others once normalised; their hashes, in order. */
function hashRecoveryCodes(codes: string[], context: CredentialTypeContext): string[] {
  const seen = new Map<string, number>();
  return codes.map((code, index) => {
    const problem = recoveryCodeProblem(code);
    if (problem) throw invalidField(`${CODES_FIELD}[${index}]`, problem);
    // recoveryCodeProblem has refused all but printable ASCII, which always normalises.
    const normalised = normaliseRecoveryCode(code)!;
    const earlier = seen.get(normalised);
    if (earlier !== undefined) throw invalidField(`${CODES_FIELD}[${index}]`, `must differ from code ${earlier} (compared without spaces, hyphens or case)`);
    seen.set(normalised, index);
    return context.hashCode(normalised);
  });
}

async function prepare(params: unknown, context: CredentialTypeContext): Promise<PreparedCredential> {
  const request = readRequest(params);
  const key = parseKeyUri(request.key_uri);
  if (request.recovery_codes_total < request.unused_recovery_codes.length) {
    throw invalidField(TOTAL_FIELD, 'must be at least the number of unused_recovery_codes');
  }
  const recovery_code_hashes = hashRecoveryCodes(request.unused_recovery_codes, context);
  const stored: StoredTotp = {
    params: { recovery_codes_total: request.recovery_codes_total, algorithm: key.algorithm, digits: key.digits, period: key.period },
    secret: { sealed_key: context.seal(encodeBase32(key.secret)), recovery_code_hashes },
  };
  return { params: { ...stored.params }, secret: { ...stored.secret } };
}

function present(stored: PreparedCredential): Record<string, unknown> {
  const { params, secret } = readStoredTotp(stored);
  return { recovery_codes_total: params.recovery_codes_total, recovery_codes_unused: secret.recovery_code_hashes.length };
}

/** TOTP (RFC 6238) with single-use recovery codes: spec §2.3, design §5. */
export const totpCredentialType: CredentialType = { type: 'totp', paramsSchema, prepare, present };
