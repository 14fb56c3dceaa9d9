import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { describe, it } from 'node:test';
import { jwtVerify, SignJWT } from 'jose';
import { type JwsProblem, JwsRejected, signEs256, verifyEs256 } from '../../../src/oauth/tokens/es256-jws.ts';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const keyFor = async (kid: string): Promise<KeyObject | undefined> => (kid === 'k1' ? publicKey : kid === 'k2' ? other.publicKey : undefined);
const PAYLOAD = { iss: 'https://tessera.test', sub: 'per_ada', scope: 'orders:read', act: { sub: 'cli_gw' }, iat: 1_900_000_000 };

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
/** A compact JWS over exactly these segments, signed with `key` as ES256. */
function rawJws(header: unknown, payload: unknown, key = privateKey): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
async function problem(token: string, keys = keyFor): Promise<JwsProblem> {
  const error = await verifyEs256(token, keys).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof JwsRejected, `accepted: ${token}`);
  assert.deepEqual([error.name, error.message], ['JwsRejected', `the JWS was refused: ${error.problem}`]);
  return error.problem;
}

describe('ES256 compact JWS through node:crypto', () => {
  it('signs what jose verifies, and verifies what jose signs', async () => {
    const ours = signEs256({ kid: 'k1', typ: 'at+jwt' }, PAYLOAD, privateKey);
    const { payload, protectedHeader } = await jwtVerify(ours, publicKey, { algorithms: ['ES256'], typ: 'at+jwt' });
    assert.deepEqual(payload, PAYLOAD);
    assert.deepEqual(protectedHeader, { alg: 'ES256', kid: 'k1', typ: 'at+jwt' });

    const theirs = await new SignJWT(PAYLOAD).setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' }).sign(privateKey);
    assert.deepEqual((await verifyEs256(theirs, keyFor)).payload, PAYLOAD);
  });

  it('agrees with node:crypto`s own ieee-p1363 encoding on 3,000 signatures, short r and s included (the DER conversion of issue 30)', async () => {
    // About one signature in 128 has an r or s with a leading zero byte: 3,000 make a dozen.
    let short = 0;
    for (let i = 0; i < 3_000; i++) {
      const payload = { ...PAYLOAD, jti: String(i) };
      const ours = signEs256({ kid: 'k1', typ: 'at+jwt' }, payload, privateKey);
      const [h, p, s] = ours.split('.') as [string, string, string];
      const signature = Buffer.from(s, 'base64url');
      assert.ok(verify('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature), `ours #${i} verifies as P1363`);
      if (signature[0] === 0 || signature[32] === 0) short++;
      const theirs = rawJws({ alg: 'ES256', kid: 'k1' }, payload);
      assert.deepEqual((await verifyEs256(theirs, keyFor)).payload, payload, `theirs #${i} verifies`);
      const theirSignature = Buffer.from(theirs.split('.')[2]!, 'base64url');
      if (theirSignature[0] === 0 || theirSignature[32] === 0) short++;
    }
    assert.ok(short > 0, 'some signatures had a short r or s');
  });

  it('refuses every token that differs from a signed one in one character', async () => {
    const token = signEs256({ kid: 'k1', typ: 'at+jwt' }, PAYLOAD, privateKey);
    let refused = 0;
    for (let i = 0; i < token.length; i++) {
      if (token[i] === '.') continue;
      const changed = `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`;
      // The signature's last character has 2 unused low bits (64 bytes in 86 characters): a change
      // there alone may decode to the same signature, which is then rightly accepted.
      const [, , signature] = changed.split('.') as [string, string, string];
      if (i > token.lastIndexOf('.') && Buffer.from(signature, 'base64url').equals(Buffer.from(token.split('.')[2]!, 'base64url'))) continue;
      await problem(changed);
      refused++;
    }
    assert.ok(refused >= token.length - 3, `only ${refused} of ${token.length} changes refused`);
  });

  it('refuses a signature by another key, and a kid it cannot find', async () => {
    assert.equal(await problem(signEs256({ kid: 'k2', typ: 'at+jwt' }, PAYLOAD, privateKey)), 'signature');
    assert.equal(await problem(signEs256({ kid: 'k9', typ: 'at+jwt' }, PAYLOAD, privateKey)), 'unknown_key');
    assert.equal(await problem(rawJws({ alg: 'ES256' }, PAYLOAD)), 'unknown_key');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 7 }, PAYLOAD)), 'unknown_key');
    // A kid that is no string is not even asked for, though every kid would find the right key.
    const anyKid = async () => publicKey;
    assert.ok(await verifyEs256(rawJws({ alg: 'ES256', kid: 'k7' }, PAYLOAD), anyKid));
    for (const kid of [7, ['k1'], { kid: 'k1' }, null]) assert.equal(await problem(rawJws({ alg: 'ES256', kid }, PAYLOAD), anyKid), 'unknown_key');
  });

  it('refuses other algorithms, critical and unencoded-payload headers', async () => {
    assert.equal(await problem(`${b64({ alg: 'none', kid: 'k1' })}.${b64(PAYLOAD)}.`), 'malformed');
    assert.equal(await problem(`${b64({ alg: 'none', kid: 'k1' })}.${b64(PAYLOAD)}.AAAA`), 'algorithm');
    assert.equal(await problem(rawJws({ alg: 'HS256', kid: 'k1' }, PAYLOAD)), 'algorithm');
    assert.equal(await problem(rawJws({ alg: 'es256', kid: 'k1' }, PAYLOAD)), 'algorithm');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1', crit: ['exp'], exp: 1 }, PAYLOAD)), 'unsupported_header');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1', b64: false, crit: ['b64'] }, PAYLOAD)), 'unsupported_header');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1', b64: true }, PAYLOAD)), 'unsupported_header', 'b64 without crit');
  });

  it('refuses malformed serialisations before touching a key', async () => {
    const token = signEs256({ kid: 'k1', typ: 'at+jwt' }, PAYLOAD, privateKey);
    const [h, p, s] = token.split('.') as [string, string, string];
    // A character outside base64url anywhere in a segment, its first included: Buffer's decoder would skip it.
    const outside = [`+${h}.${p}.${s}`, `${h}.=${p}.${s}`, `${h}.${p}.+${s}`, `${h}.${p}.${s.slice(0, 40)}*${s.slice(40)}`];
    for (const bad of [`${h}.${p}`, `${token}.${s}`, `${h}.${p}.${s}=`, `${h}.${p}.${s.slice(0, -2)}+/`, `${h} .${p}.${s}`, `..${s}`, '', ...outside]) {
      assert.equal(await problem(bad), 'malformed', bad);
    }
    assert.equal(await problem(rawJws('not json', PAYLOAD)), 'malformed');
    assert.equal(await problem(rawJws(['ES256'], PAYLOAD)), 'malformed');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1' }, [PAYLOAD])), 'malformed', 'a signed payload that is not an object');
    assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1' }, 'null')), 'malformed');
    // JSON, but no object: a header or a signed payload that is a number, a string or a boolean.
    for (const json of ['5', '"ES256"', 'true']) {
      assert.equal(await problem(rawJws(json, PAYLOAD)), 'malformed', `header ${json}`);
      assert.equal(await problem(rawJws({ alg: 'ES256', kid: 'k1' }, json)), 'malformed', `payload ${json}`);
    }
  });

  it('refuses a DER-encoded signature, which ES256 in JOSE never is', async () => {
    const input = `${b64({ alg: 'ES256', kid: 'k1' })}.${b64(PAYLOAD)}`;
    const der = sign('sha256', Buffer.from(input), privateKey).toString('base64url');
    assert.equal(await problem(`${input}.${der}`), 'signature');
  });

  it('refuses a signature of any length but 64 bytes, the valid one cut short, lengthened or padded', async () => {
    const input = `${b64({ alg: 'ES256', kid: 'k1' })}.${b64(PAYLOAD)}`;
    const valid = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    assert.ok(await verifyEs256(`${input}.${valid.toString('base64url')}`, keyFor));
    const zeros = (n: number) => Buffer.alloc(n);
    const r = valid.subarray(0, 32);
    const s = valid.subarray(32);
    for (const signature of [
      valid.subarray(0, 63),
      Buffer.concat([valid, zeros(1)]),
      Buffer.concat([zeros(1), valid]),
      Buffer.concat([zeros(32), r, zeros(32), s]),
      Buffer.concat([valid, valid]),
    ]) {
      assert.equal(await problem(`${input}.${signature.toString('base64url')}`), 'signature', `${signature.length} bytes`);
    }
  });

  it('is a TypeError to sign with anything but a private EC key', () => {
    // Its own words, not node:crypto's: what went wrong is the key it was given.
    const refusal = new TypeError('signEs256 needs a private EC (P-256) key');
    assert.throws(() => signEs256({ kid: 'k1', typ: 'at+jwt' }, PAYLOAD, publicKey), refusal);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    assert.throws(() => signEs256({ kid: 'k1', typ: 'at+jwt' }, PAYLOAD, rsa.privateKey), refusal);
  });
});
