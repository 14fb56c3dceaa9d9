import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ClientKeyFile } from './client-key-file.ts';
import type { PluginClient } from './client-params.ts';
import { ServiceIssuer } from './service-issuer.ts';

/** RFC 7523 §2.2: a JWT signed with the client's key. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** draft-ietf-oauth-spiffe-client-auth: the workload's JWT-SVID itself. */
export const JWT_SPIFFE_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-spiffe';
/** Short-lived: an assertion is made for one call, sent at once, and its jti spent there. */
const ASSERTION_LIFETIME_S = 60;

/** Where an SVID comes from: the gate_svid actor source. */
type SvidSource = { actor(): Promise<{ token: string }> };

/** How the plugin's client proves itself at the token endpoint, on each call it makes there. */
export interface ClientAuthentication {
  /** Adds the client's credentials to one token-endpoint request (`what` names the call in errors). */
  addTo(form: URLSearchParams, headers: Record<string, string>, what: string): Promise<void>;
  /** The token endpoint refused the client (invalid_client): anything learnt about the service is to be learnt again. */
  refused?(): void;
}

/** oauth_client_secret: HTTP Basic (RFC 6749 §2.3.1, both parts form-encoded). */
export function secretAuthentication(id: string, secret: string): ClientAuthentication {
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
  return {
    async addTo(_form, headers) {
      headers.authorization = basic;
    },
  };
}

/**
 * oauth_client_private_key_file: a private_key_jwt assertion (RFC 7523 §2.2) per call, as the
 * service checks it (design §4): iss and sub the client id, aud the issuer identifier alone,
 * a minute long, a random jti (spent by the service on first use, so never sent twice), and
 * the key's id when one is configured. The key is the file's as it is now.
 */
export function privateKeyJwtAuthentication(id: string, keyFile: ClientKeyFile, keyId: string | undefined, issuer: ServiceIssuer): ClientAuthentication {
  return {
    async addTo(form, _headers, what) {
      const [{ key, alg }, audience] = await Promise.all([keyFile.current(), issuer.issuer(what)]);
      const now = Math.floor(Date.now() / 1000);
      const assertion = await new SignJWT({ jti: randomUUID() })
        .setProtectedHeader({ alg, typ: 'JWT', ...(keyId === undefined ? {} : { kid: keyId }) })
        .setIssuer(id)
        .setSubject(id)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + ASSERTION_LIFETIME_S)
        .sign(key);
      form.set('client_assertion_type', JWT_BEARER_ASSERTION);
      form.set('client_assertion', assertion);
    },
    refused: () => issuer.forget(),
  };
}

/**
 * oauth_client_auth=svid: the JWT-SVID the gate_svid actor presents is the client's assertion
 * too (draft-ietf-oauth-spiffe-client-auth), with client_id beside it, since an SVID names a
 * workload, not a client.
 */
export function svidAuthentication(id: string, svids: SvidSource): ClientAuthentication {
  return {
    async addTo(form) {
      form.set('client_id', id);
      form.set('client_assertion_type', JWT_SPIFFE_ASSERTION);
      form.set('client_assertion', (await svids.actor()).token);
    },
  };
}

/**
 * The authentication of a plugin's client, made once per plugin (its key file and the issuer
 * read once for every call); undefined without a client. `svids` is the gate_svid actor's
 * source, which oauth_client_auth=svid presents; `reportKeyFailure` hears of a key file that
 * changed into one that cannot sign.
 */
export function clientAuthenticationOf(
  params: { serviceBaseUrl: string; timeoutMs: number; client?: PluginClient },
  options: { svids?: SvidSource; reportKeyFailure?: (reason: string) => void } = {},
): ClientAuthentication | undefined {
  const client = params.client;
  if (!client) return undefined;
  if (client.method === 'client_secret_basic') return secretAuthentication(client.id, client.secret);
  if (client.method === 'private_key_jwt') {
    const keyFile = new ClientKeyFile(client.keyFile, options.reportKeyFailure);
    return privateKeyJwtAuthentication(client.id, keyFile, client.keyId, new ServiceIssuer(params.serviceBaseUrl, params.timeoutMs));
  }
  if (!options.svids) throw new TypeError(`client ${client.id}: oauth_client_auth=svid without an SVID source`);
  return svidAuthentication(client.id, options.svids);
}
