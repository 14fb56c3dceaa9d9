import { isoCBOR } from '@simplewebauthn/server/helpers';
import fc from 'fast-check';
import { encodeCbor } from '../../../src/dev/cose-encoding.ts';
import { bytesEditor } from './fuzz-support.ts';

/**
 * Edits of the software authenticator's answers (@simplewebauthn/browser's JSON), made during a
 * run because each answer signs a fresh challenge. Each edit has a name for the failure message.
 */

export type CredentialJson = Record<string, any>;
export interface Edit {
  name: string;
  apply(response: CredentialJson): CredentialJson;
  /** The verifier's reason for refusing the edited answer, where the edit alone decides it. */
  reason?: RegExp;
}

const decode = (text: string) => Uint8Array.from(Buffer.from(text, 'base64url'));
const encode = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
/** A value that is surely not `old`: `value`, or `value` made different when it happens to equal it. */
const other = (old: unknown, value: unknown) => (JSON.stringify(old) === JSON.stringify(value) ? `${String(value)}~` : value);

/** Bytes of a member of `response.response`, edited. */
function bytesOf(field: string): fc.Arbitrary<Edit> {
  return bytesEditor.map((edit) => ({
    name: `${field} bytes edited`,
    apply(r) {
      const copy = structuredClone(r);
      copy.response[field] = encode(edit(decode(copy.response[field])));
      return copy;
    },
  }));
}

/** Why the verifier refuses a clientDataJSON member set to another value, whatever the value (@simplewebauthn's words). */
const CLIENT_DATA_REASONS: Record<string, (ceremony: 'registration' | 'authentication') => RegExp> = {
  type: (ceremony) => new RegExp(`^Unexpected ${ceremony} response type: `),
  challenge: (ceremony) => new RegExp(`^Unexpected ${ceremony} response challenge "`),
  origin: (ceremony) => new RegExp(`^Unexpected ${ceremony} response origin "`),
};

/**
 * The verifier quotes the member in its message (`${type}`), which throws for an object whose
 * own `toString` or `valueOf` is not a function ({"toString": 0}): still a refusal, for that reason.
 */
const UNPRINTABLE = /^Cannot convert object to primitive value$/;
function printable(value: unknown): boolean {
  try {
    return typeof `${value}` === 'string';
  } catch {
    return false;
  }
}

/** clientDataJSON with `member` set to `value` (it still parses), refused for that member's reason. */
export function clientDataEdit(member: string, value: unknown, ceremony: 'registration' | 'authentication'): Edit & { reason?: RegExp } {
  return {
    name: `clientDataJSON.${member} set to ${JSON.stringify(value)}`,
    ...(CLIENT_DATA_REASONS[member] ? { reason: printable(value) ? CLIENT_DATA_REASONS[member](ceremony) : UNPRINTABLE } : {}),
    apply(r) {
      const copy = structuredClone(r);
      const data = JSON.parse(Buffer.from(copy.response.clientDataJSON, 'base64url').toString('utf8'));
      data[member] = other(data[member], value);
      copy.response.clientDataJSON = Buffer.from(JSON.stringify(data)).toString('base64url');
      return copy;
    },
  };
}

function clientDataMember(members: string[], ceremony: 'registration' | 'authentication'): fc.Arbitrary<Edit> {
  return fc.tuple(fc.constantFrom(...members), fc.jsonValue({ maxDepth: 1 })).map(([member, value]) => clientDataEdit(member, value, ceremony));
}

const someId = fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.uint8Array({ minLength: 16, maxLength: 64 }).map(encode));

/** Changes to what an assertion's signature covers, to the credential it names, or to its user handle. */
export const assertionForgeries: fc.Arbitrary<Edit> = fc.oneof(
  bytesOf('authenticatorData'),
  bytesOf('clientDataJSON'),
  bytesOf('signature'),
  clientDataMember(['type', 'challenge', 'origin', 'crossOrigin', 'tokenBinding'], 'authentication'),
  fc.tuple(someId, fc.boolean()).map(
    ([id, both]): Edit => ({
      name: `id${both ? ' and rawId' : ''} set to ${id}`,
      apply: (r) => ({ ...r, id: other(r.id, id), ...(both ? { rawId: other(r.id, id) } : {}) }),
    }),
  ),
  someId.map(
    (handle): Edit => ({
      name: `userHandle set to ${handle}`,
      apply: (r) => ({ ...r, response: { ...r.response, userHandle: other(r.response.userHandle, handle) } }),
    }),
  ),
);

const PATHS = [
  'id',
  'rawId',
  'type',
  'response',
  'response.clientDataJSON',
  'response.authenticatorData',
  'response.signature',
  'response.userHandle',
  'response.attestationObject',
  'response.transports',
  'clientExtensionResults',
  'authenticatorAttachment',
  'added',
];
const jsonish = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.uint8Array({ maxLength: 40 }).map(encode));
const operation = fc.tuple(fc.constantFrom(...PATHS), fc.option(jsonish, { freq: 4 }));

/** One to three members set to any JSON value or removed (null), anywhere in the answer. */
export const structuralEdits: fc.Arbitrary<Edit> = fc.array(operation, { minLength: 1, maxLength: 3 }).map((operations) => ({
  name: operations.map(([path, value]) => (value === null ? `delete ${path}` : `${path} = ${JSON.stringify(value)}`)).join('; '),
  apply(r) {
    const copy = structuredClone(r);
    for (const [path, value] of operations) {
      const [outer, inner] = path.split('.') as [string, string | undefined];
      const holder = inner === undefined ? copy : copy.response;
      if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) continue;
      const key = inner ?? outer;
      if (value === null) delete holder[key];
      else holder[key] = value;
    }
    return copy;
  },
}));

/** The authenticator data inside a registration's attestationObject, edited. */
function authData(name: string, edit: (bytes: Uint8Array) => Uint8Array, reason?: RegExp): Edit {
  return {
    name,
    ...(reason ? { reason } : {}),
    apply(r) {
      const copy = structuredClone(r);
      const object = isoCBOR.decodeFirst<Map<string, unknown>>(decode(copy.response.attestationObject));
      object.set('authData', edit(object.get('authData') as Uint8Array));
      copy.response.attestationObject = encode(encodeCbor(object));
      return copy;
    },
  };
}

const flip = (at: number, bit: number) => (bytes: Uint8Array) => Uint8Array.from(bytes, (byte, i) => (i === at ? byte ^ (1 << bit) : byte));
const FLAG_BYTE = 32;

const NOT_PRESENT = /^User presence was required, but user was not present$/;
const NOT_VERIFIED = /^User verification was required, but user could not be verified$/;

/**
 * What a registration without a signature ("none" attestation) still binds: the challenge, origin,
 * type, RP id, UP and UV. Each edit has the one reason the verifier refuses it for.
 */
export const registrationForgeries: fc.Arbitrary<Edit & { reason: RegExp }> = fc.oneof(
  clientDataMember(['type', 'challenge', 'origin'], 'registration') as fc.Arbitrary<Edit & { reason: RegExp }>,
  fc
    .tuple(fc.integer({ min: 0, max: 31 }), fc.integer({ min: 0, max: 7 }))
    .map(([at, bit]) => authData(`rpIdHash byte ${at} bit ${bit} flipped`, flip(at, bit), /^Unexpected RP ID hash$/) as Edit & { reason: RegExp }),
  fc
    .constantFrom(0, 2)
    .map(
      (bit) => authData(`flag ${bit === 0 ? 'UP' : 'UV'} cleared`, flip(FLAG_BYTE, bit), bit === 0 ? NOT_PRESENT : NOT_VERIFIED) as Edit & { reason: RegExp },
    ),
);

/** Anything: structural edits, byte edits of either encoded member, or of the authenticator data. */
export const registrationEdits: fc.Arbitrary<Edit> = fc.oneof(
  structuralEdits,
  bytesOf('clientDataJSON'),
  bytesOf('attestationObject'),
  bytesEditor.map((edit) => authData('authData bytes edited', edit)),
  registrationForgeries,
);
