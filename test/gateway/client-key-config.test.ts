import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { ClientKeyFile } from '../../src/gateway/plugins/token-exchange/client-key-file.ts';
import { GatewayConfigError } from '../../src/gateway/settings/config-error.ts';
import { newClientKey, replaceFile } from '../helpers/client-keys.ts';

const P = 'GATEWAY_PLUGINS_0_PARAMETERS_';
const SECRET = `${P}OAUTH_CLIENT_SECRET`;
const KEY_FILE = `${P}OAUTH_CLIENT_PRIVATE_KEY_FILE`;
const KEY_ID = `${P}OAUTH_CLIENT_KEY_ID`;
const AUTH = `${P}OAUTH_CLIENT_AUTH`;
const ID = `${P}OAUTH_CLIENT_ID`;

const dir = mkdtempSync(join(tmpdir(), 'gw-client-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));
/** A file of the temporary folder holding `text`; its path. */
const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
const es256 = newClientKey('ec');
const ES256_FILE = file('es256.pem', es256.pem);

/** An oauth_client plugin with a client id and no way yet to authenticate it, as environment variables. */
const oauthClient: Record<string, string | undefined> = {
  GATEWAY_PLUGINS_0_TYPE: 'token-exchange',
  [`${P}SERVICE_BASE_URL`]: 'http://127.0.0.1:8080',
  [`${P}SUBJECT_HEADER_WITH_TOKEN`]: 'Authorization',
  [`${P}ACTOR_MODE`]: 'oauth_client',
  [ID]: 'cli_gateway',
  [`${P}REQUESTED_TOKEN_TYPE`]: 'urn:ietf:params:oauth:token-type:jwt',
};
const gateSvid = { ...oauthClient, [`${P}ACTOR_MODE`]: 'gate_svid', [`${P}ACTOR_SVID_SOURCE`]: 'env', [`${P}ACTOR_SVID_ENV_VAR`]: 'SVID' };

const load = (env: Record<string, string | undefined>) =>
  loadGatewayConfig({ env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)) });

function refusal(env: Record<string, string | undefined>): GatewayConfigError {
  try {
    load(env);
  } catch (error) {
    assert.ok(error instanceof GatewayConfigError, String(error));
    return error;
  }
  assert.fail('the configuration was accepted');
}

describe("Gateway configuration of the plugin's client authentication (design §7)", () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    [
      'a secret and a key file',
      { ...oauthClient, [SECRET]: 'tcs_x', [KEY_FILE]: ES256_FILE },
      `${KEY_FILE}: cannot be set together with ${SECRET}: the client authenticates in one way, with one of ${SECRET} or ${KEY_FILE}`,
    ],
    [
      'a secret and svid (gate_svid)',
      { ...gateSvid, [SECRET]: 'tcs_x', [AUTH]: 'svid' },
      `${AUTH}: cannot be set together with ${SECRET}: the client authenticates in one way, with one of ${SECRET} or ${KEY_FILE} or ${AUTH}=svid`,
    ],
    [
      'a key file and svid (gate_svid)',
      { ...gateSvid, [KEY_FILE]: ES256_FILE, [AUTH]: 'svid' },
      `${AUTH}: cannot be set together with ${KEY_FILE}: the client authenticates in one way, with one of ${SECRET} or ${KEY_FILE} or ${AUTH}=svid`,
    ],
    [
      'all three (gate_svid)',
      { ...gateSvid, [SECRET]: 'tcs_x', [KEY_FILE]: ES256_FILE, [AUTH]: 'svid' },
      `${KEY_FILE}: cannot be set together with ${SECRET} and ${AUTH}=svid: the client authenticates in one way, with one of ${SECRET} or ${KEY_FILE} or ${AUTH}=svid`,
    ],
    ['a client id and no way to authenticate it (oauth_client)', oauthClient, `${ID}: needs one of ${SECRET} or ${KEY_FILE} set: how the client authenticates`],
    [
      'a client id and no way to authenticate it (gate_svid)',
      gateSvid,
      `${ID}: needs one of ${SECRET} or ${KEY_FILE} or ${AUTH}=svid set: how the client authenticates`,
    ],
    [
      'oauth_client without a client',
      { ...oauthClient, [ID]: undefined },
      `${ID}: is required with actor_mode=oauth_client, with one of ${SECRET} or ${KEY_FILE}`,
    ],
    [
      'a key file without a client id',
      { ...gateSvid, [ID]: undefined, [KEY_FILE]: ES256_FILE },
      `${ID}: is required with ${KEY_FILE}: the client they authenticate`,
    ],
    ['svid without a client id', { ...gateSvid, [ID]: undefined, [AUTH]: 'svid' }, `${ID}: is required with ${AUTH}=svid: the client they authenticate`],
    ['a key id without a key file', { ...oauthClient, [SECRET]: 'tcs_x', [KEY_ID]: 'k1' }, `${KEY_ID}: applies only with ${KEY_FILE}: the id of its key`],
    [
      'svid in oauth_client mode',
      { ...oauthClient, [AUTH]: 'svid' },
      `${AUTH}: applies only with actor_mode=gate_svid: the client presents the JWT-SVID of that mode`,
    ],
    [
      'svid in request_actor mode',
      { ...oauthClient, [`${P}ACTOR_MODE`]: 'request_actor', [`${P}ACTOR_HEADER_WITH_TOKEN`]: 'X-Actor', [AUTH]: 'svid' },
      `${AUTH}: applies only with actor_mode=gate_svid: the client presents the JWT-SVID of that mode`,
    ],
    ['another value of oauth_client_auth', { ...gateSvid, [AUTH]: 'private_key_jwt' }, `${AUTH}: must be one of svid`],
  ];
  for (const [name, env, message] of cases) {
    it(`stops at start-up on ${name}, naming the keys`, () => {
      assert.equal(refusal(env).message, message);
    });
  }

  it('reads a key file of each algorithm, with or without a key id, and svid in gate_svid mode', () => {
    for (const type of ['ec', 'ed25519', 'rsa'] as const) {
      const path = file(`${type}.pem`, newClientKey(type).pem);
      assert.deepEqual(load({ ...oauthClient, [KEY_FILE]: path }).plugins[0]!.params.client, { id: 'cli_gateway', method: 'private_key_jwt', keyFile: path });
    }
    assert.deepEqual(load({ ...oauthClient, [KEY_FILE]: ES256_FILE, [KEY_ID]: 'k1' }).plugins[0]!.params.client, {
      id: 'cli_gateway',
      method: 'private_key_jwt',
      keyFile: ES256_FILE,
      keyId: 'k1',
    });
    assert.deepEqual(load({ ...gateSvid, [AUTH]: 'svid' }).plugins[0]!.params.client, { id: 'cli_gateway', method: 'svid' });
    const workloadApi = { ...gateSvid, [`${P}ACTOR_SVID_SOURCE`]: 'workload_api', [`${P}ACTOR_SVID_ENV_VAR`]: undefined };
    assert.equal(
      load({ ...workloadApi, [`${P}ACTOR_WORKLOAD_API_SOCKET`]: 'unix:///run/agent.sock', [AUTH]: 'svid' }).plugins[0]!.params.client?.method,
      'svid',
    );
  });

  const pkcs8 = (key: { export(options: { type: 'pkcs8'; format: 'pem' }): string | Buffer }) => String(key.export({ type: 'pkcs8', format: 'pem' }));
  const TYPE_RULE = 'must hold an EC P-256 (ES256), Ed25519 (EdDSA) or RSA 2048 to 4096 bit (RS256) private key';
  const NOT_PKCS8 = 'must hold a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----); openssl pkcs8 -topk8 -nocrypt converts other formats';
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const files: [string, () => string, string][] = [
    ['a file that is not there', () => join(dir, 'absent.pem'), 'cannot be read (ENOENT)'],
    ['a folder', () => (mkdirSync(join(dir, 'folder'), { recursive: true }), join(dir, 'folder')), 'cannot be read (EISDIR)'],
    ['an empty file', () => file('empty.pem', ''), NOT_PKCS8],
    ['an EC key on P-384', () => file('p384.pem', pkcs8(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey)), TYPE_RULE],
    ['an RSA key of 1024 bits', () => file('rsa1024.pem', pkcs8(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey)), TYPE_RULE],
    ['an Ed448 key', () => file('ed448.pem', pkcs8(generateKeyPairSync('ed448').privateKey)), TYPE_RULE],
    ['an X25519 key (key agreement, not signing)', () => file('x25519.pem', pkcs8(generateKeyPairSync('x25519').privateKey)), TYPE_RULE],
    ['a PKCS#1 RSA key', () => file('pkcs1.pem', String(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }))), NOT_PKCS8],
    [
      'a SEC1 EC key',
      () => file('sec1.pem', String(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }))),
      NOT_PKCS8,
    ],
    ['a public key', () => file('public.pem', String(rsa.publicKey.export({ type: 'spki', format: 'pem' }))), NOT_PKCS8],
    [
      'an encrypted PKCS#8 key',
      () => file('encrypted.pem', String(rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse battery' }))),
      'holds an encrypted key; the gateway reads it unencrypted (PEM PKCS#8), so protect the file instead',
    ],
    ['two keys', () => file('two.pem', `${es256.pem}${newClientKey('ec').pem}`), 'must hold one private key, not several'],
    [
      'a PKCS#8 block whose contents are no key',
      () => file('garbled.pem', es256.pem.replace(/\n[A-Za-z0-9+/]{20}/, '\nAAAAAAAAAAAAAAAAAAAA')),
      'holds a PEM block that is no valid PKCS#8 private key',
    ],
    ['a file larger than 64 KiB', () => file('large.pem', `${es256.pem}${'#'.repeat(70_000)}`), 'is larger than 64 KiB, which no key file is'],
  ];
  for (const [name, path, rule] of files) {
    it(`stops at start-up on ${name} as the key file, naming the key and the rule, quoting nothing of the file`, () => {
      const error = refusal({ ...oauthClient, [KEY_FILE]: path() });
      assert.equal(error.message, `${KEY_FILE}: ${rule}`);
    });
  }

  it('reads a key file that holds a certificate beside the key, as some tools write them', () => {
    const withCertificate = `-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUK\n-----END CERTIFICATE-----\n${es256.pem}`;
    assert.equal(load({ ...oauthClient, [KEY_FILE]: file('with-cert.pem', withCertificate) }).plugins[0]!.params.client?.method, 'private_key_jwt');
  });
});

describe('The client key file, read again when it changes', () => {
  const publicOf = async (keys: ClientKeyFile) => {
    const { key, alg } = await keys.current();
    return { alg, jwk: createPublicKey(key).export({ format: 'jwk' }) };
  };

  it('signs with a replacing key from the next use on, of another type too; a change that cannot sign keeps the last good key, reported once', async () => {
    const path = join(dir, 'rotating.pem');
    const [first, second, third] = [newClientKey('ec'), newClientKey('ed25519'), newClientKey('ec')];
    replaceFile(path, first.pem);
    const reports: string[] = [];
    const keys = new ClientKeyFile(path, (reason) => reports.push(reason));
    assert.deepEqual(await publicOf(keys), { alg: 'ES256', jwk: first.jwk });

    replaceFile(path, second.pem);
    assert.deepEqual(await publicOf(keys), { alg: 'EdDSA', jwk: second.jwk }, 'the replaced file is read at the next use');

    replaceFile(path, '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n');
    assert.deepEqual(await publicOf(keys), { alg: 'EdDSA', jwk: second.jwk }, 'a broken file keeps the last good key');
    assert.deepEqual(await publicOf(keys), { alg: 'EdDSA', jwk: second.jwk });
    assert.deepEqual(reports, ['holds a PEM block that is no valid PKCS#8 private key'], 'reported once while it stays broken');

    rmSync(path);
    assert.deepEqual(await publicOf(keys), { alg: 'EdDSA', jwk: second.jwk });
    assert.deepEqual(reports.slice(1), ['cannot be read (ENOENT)']);

    // Rewritten in place (same inode, same size as P-256 keys are): its new times tell.
    writeFileSync(path, first.pem);
    assert.deepEqual(await publicOf(keys), { alg: 'ES256', jwk: first.jwk });
    writeFileSync(path, third.pem);
    const later = new Date(Date.now() + 60_000);
    utimesSync(path, later, later);
    assert.deepEqual(await publicOf(keys), { alg: 'ES256', jwk: third.jwk });
    assert.equal(reports.length, 2);
  });
});
