import type { JWK } from 'jose';
import type { AuthenticationRequest } from '../../clients/authentication.ts';
import { MAX_CLIENT_KEYS, privateMemberOf, publicPart } from '../../oauth/client-keys.ts';
import { type ClientAuthMethod, SECRET_METHODS } from '../../store/clients/store.ts';
import type { OAuthClient } from '../../store/types.ts';
import { field } from '../form-body.ts';
import { FormRefusal } from '../form-refusals.ts';
import { type Html, html } from '../html.ts';

/**
 * How a client authenticates, as the registration and the switch forms hold it. The fields keep
 * the API's names (token_endpoint_auth_method, jwks, jwks_uri, spiffe_id), so the operation's
 * refusals name them as they are labelled.
 */
export interface AuthenticationForm {
  method: string;
  /** The JWK Set as pasted: JSON text. */
  jwks: string;
  jwksUri: string;
  spiffeId: string;
}

export const emptyAuthenticationForm: AuthenticationForm = { method: 'client_secret_basic', jwks: '', jwksUri: '', spiffeId: '' };

export const isSecretMethod = (method: ClientAuthMethod) => SECRET_METHODS.includes(method);

export function authenticationFormOf(body: unknown): AuthenticationForm {
  return {
    method: field(body, 'token_endpoint_auth_method'),
    jwks: field(body, 'jwks'),
    jwksUri: field(body, 'jwks_uri').trim(),
    spiffeId: field(body, 'spiffe_id').trim(),
  };
}

/** A client's authentication as the switch form starts: what it uses now, the JWK Set as JSON to edit. */
export function authenticationFormOfClient(client: OAuthClient): AuthenticationForm {
  return {
    method: client.authMethod,
    jwks: client.jwks ? JSON.stringify(client.jwks, null, 2) : '',
    jwksUri: client.jwksUri ?? '',
    spiffeId: client.spiffeId ?? '',
  };
}

/**
 * The form's members of POST /oauth2/clients or PATCH: the fields left empty are left out, so
 * the operation's rules say what a method lacks or does not use. A JWK Set that is not JSON is
 * refused here, naming the field; every other rule is the operation's.
 */
export function authenticationRequestOf(form: AuthenticationForm): AuthenticationRequest {
  return {
    ...(form.method === '' ? {} : { token_endpoint_auth_method: form.method as ClientAuthMethod }),
    ...(form.jwks.trim() === '' ? {} : { jwks: parsedJwks(form.jwks) }),
    ...(form.jwksUri === '' ? {} : { jwks_uri: form.jwksUri }),
    ...(form.spiffeId === '' ? {} : { spiffe_id: form.spiffeId }),
  };
}

function parsedJwks(text: string): { keys: object[] } {
  try {
    return JSON.parse(text);
  } catch {
    throw new FormRefusal(400, ['jwks: is not JSON: paste the public keys as a JWK Set, {"keys": [...]}']);
  }
}

/**
 * The form as a refusal shows it again. What was pasted as the JWK Set comes back only when it is
 * a JWK Set of public keys: text that is not JSON may be a PEM private key, and a key with a
 * private member is one; neither is written into a page (as the connections' bearer token is not).
 */
export function shownBack(form: AuthenticationForm): AuthenticationForm {
  return form.jwks.trim() === '' ? form : { ...form, jwks: publicKeySetText(form.jwks) };
}

/**
 * The pasted set rebuilt from its keys' public members only, or '' when it is not a JWK Set or
 * any key carries a private member: members beside `keys`, or unknown ones inside a key, are
 * never shown back (a private key pasted there must not land in the page).
 */
function publicKeySetText(text: string): string {
  let set: unknown;
  try {
    set = JSON.parse(text);
  } catch {
    return '';
  }
  const keys = typeof set === 'object' && set !== null ? (set as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'object' && key !== null && !Array.isArray(key) && !privateMemberOf(key))) return '';
  return JSON.stringify({ keys: keys.map((key) => publicPart(key as JWK)) }, null, 2);
}

const methodNames: Record<ClientAuthMethod, string> = {
  client_secret_basic: 'Secret, sent with HTTP Basic',
  client_secret_post: 'Secret, sent in the request body',
  private_key_jwt: 'Private key',
  spiffe_jwt: 'SPIFFE JWT-SVID',
};

/** The method in a word or two, for the line under a client's name on a phone, which `client_secret_basic` would widen. */
export function methodInBrief(method: ClientAuthMethod): string {
  return isSecretMethod(method) ? 'secret' : method === 'private_key_jwt' ? 'private key' : 'SPIFFE JWT-SVID';
}

/** The method by its name, and what it uses: the key ids of an inline JWK Set, the jwks_uri, the SPIFFE ID. */
export function authenticationFacts(client: OAuthClient): Html {
  const method = html`<code>${client.authMethod}</code>`;
  if (client.jwksUri) return html`${method}, keys published at <code class="auth-material">${client.jwksUri}</code>`;
  if (client.spiffeId) return html`${method}, as <code class="auth-material">${client.spiffeId}</code>`;
  if (client.jwks) {
    const keys = client.jwks.keys.map((key) => (key.kid === undefined ? `a ${key.kty ?? ''} key without kid` : key.kid));
    return html`${method}, ${keys.length === 1 ? 'key' : 'keys'} <span class="auth-material">${keys.join(', ')}</span>`;
  }
  return method;
}

function methodOption(form: AuthenticationForm, idPrefix: string, method: ClientAuthMethod, hint: Html | string): Html {
  return html`<div><input type="radio" id="${idPrefix}-${method}" name="token_endpoint_auth_method" value="${method}" ${form.method === method && html`checked`}>
    <label for="${idPrefix}-${method}">${methodNames[method]}</label> <span class="hint">${hint}</span></div>`;
}

/** The choice of method and its material: each method's fields follow its choice. `idPrefix` keeps ids unique on a page. */
export function authenticationFieldset(form: AuthenticationForm, dev: boolean, idPrefix = 'auth'): Html {
  const id = (name: string) => `${idPrefix}-${name}`;
  return html`<fieldset>
  <legend>How the client authenticates at the token endpoint</legend>
  ${methodOption(form, idPrefix, 'client_secret_basic', html`<code>client_secret_basic</code>: Tessera makes a secret, shown once`)}
  ${methodOption(form, idPrefix, 'client_secret_post', html`<code>client_secret_post</code>: the same secret; either way of sending it works for both`)}
  ${methodOption(form, idPrefix, 'private_key_jwt', html`<code>private_key_jwt</code> (RFC 7523): no secret; the client signs an assertion with a private key whose public key is registered here, pasted or published`)}
  <div class="field">
    <label for="${id('jwks')}">Public keys, as a JWK Set (private key)</label>
    <textarea id="${id('jwks')}" name="jwks" rows="5" spellcheck="false" autocomplete="off" aria-describedby="${id('jwks-hint')}">${form.jwks}</textarea>
    <p class="hint" id="${id('jwks-hint')}">JSON such as <code>{"keys": [{"kty": "EC", "crv": "P-256", "x": "…", "y": "…", "kid": "k1"}]}</code>: EC P-256, Ed25519 or RSA keys, at most ${MAX_CLIENT_KEYS}, public parts only, each with a kid when there are several. Text that is not JSON, or a set holding a private key, is not shown back.</p>
  </div>
  <div class="field">
    <label for="${id('jwks-uri')}">Or the address where the client publishes them (private key)</label>
    <input id="${id('jwks-uri')}" name="jwks_uri" value="${form.jwksUri}" inputmode="url" autocomplete="off" aria-describedby="${id('jwks-uri-hint')}">
    <p class="hint" id="${id('jwks-uri-hint')}">An https URL, fetched when an assertion comes, for example <code>https://billing.example.org/jwks.json</code>.${dev && ' This service runs in development mode: http on a loopback address is accepted too.'}</p>
  </div>
  ${methodOption(form, idPrefix, 'spiffe_jwt', html`<code>spiffe_jwt</code>: no secret; the workload presents its JWT-SVID, checked against the SPIFFE trust domains of the organisation settings`)}
  <div class="field">
    <label for="${id('spiffe-id')}">SPIFFE ID (SPIFFE JWT-SVID)</label>
    <input id="${id('spiffe-id')}" name="spiffe_id" value="${form.spiffeId}" autocomplete="off" aria-describedby="${id('spiffe-id-hint')}">
    <p class="hint" id="${id('spiffe-id-hint')}">The workload's SPIFFE ID, the <code>sub</code> of its SVIDs, for example <code>spiffe://prod.example.org/billing</code>.</p>
  </div>
</fieldset>`;
}
