import type { Agent } from 'undici';
import { checkLiteralHost, forbiddenIn, guardedLookup, type ResolveAll } from '../egress/address-policy.ts';
import { undici } from '../egress/undici.ts';
import { ApiError } from '../errors/api-error.ts';
import { identityFields, isObject } from '../scim-user/user-resource.ts';
import { inSpan, SpanKind, withTraceContext } from '../telemetry/spans.ts';
import { canonicalEmailAddress } from '../validation/email.ts';
import type { DirectoryIdentity, IdentityRef } from './directory-identity.ts';

export interface PullOptions {
  /** The whole exchange, headers and body: verification waits on it. */
  timeoutMs?: number;
  /**
   * Whether the provider may be on loopback (development mode only). Private, link-local,
   * CGNAT, unique-local, unspecified and multicast addresses are never reached.
   */
  allowLoopback?: boolean;
  /** How a provider's name is resolved when connecting; the system resolver unless given (tests answer for a name). */
  resolveAll?: ResolveAll;
}

const MAX_BODY_BYTES = 1_048_576;
const RETRY_AFTER_SECONDS = '5';

/**
 * Reads one User from a provider's SCIM API (type scim_pull). Every failure to get a usable
 * answer (unreachable, a timeout, a status other than 200 or a 404 by id, a body that is not
 * a SCIM User or ListResponse) is IDENTITY_SOURCE_UNAVAILABLE, never "not found": a provider
 * that is down must not read as a provider that removed nobody.
 */
export class ScimPullClient {
  readonly #timeoutMs: number;
  readonly #allowLoopback: boolean;
  /** Every connection resolves through guardedLookup: DNS rebinding after creation gains nothing. */
  #dispatcher: Agent | undefined;
  readonly #resolveAll: PullOptions['resolveAll'];

  constructor({ timeoutMs = 3000, allowLoopback = false, resolveAll }: PullOptions = {}) {
    this.#timeoutMs = timeoutMs;
    this.#allowLoopback = allowLoopback;
    this.#resolveAll = resolveAll;
  }

  async lookup(baseUrl: string, token: string, by: IdentityRef): Promise<DirectoryIdentity | undefined> {
    if ('identityId' in by) {
      const { status, body } = await this.#get(baseUrl, token, `/Users/${encodeURIComponent(by.identityId)}`, [200, 404]);
      if (status === 404) return undefined;
      const identity = toIdentity(body);
      // Another user than the one asked for (a misrouted, cached or hostile answer) must not
      // pass initiate or the deny-gate in its place.
      if (identity.identityId !== by.identityId) throw unavailable('it answered a different user than the id asked for');
      return identity;
    }
    // The work email first (Entra's form); a provider that cannot filter on it (Okta filters
    // only userName, externalId and id) answers 400, and userName, often the email, is asked.
    const quoted = JSON.stringify(by.email);
    let answer = await this.#get(baseUrl, token, `/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq ${quoted}`)}`, [200, 400]);
    if (answer.status === 400) answer = await this.#get(baseUrl, token, `/Users?filter=${encodeURIComponent(`userName eq ${quoted}`)}`, [200]);
    const resources = isObject(answer.body) && Array.isArray(answer.body.Resources) ? answer.body.Resources : undefined;
    if (!resources) throw unavailable('its answer to a filter is not a SCIM ListResponse');
    // The provider's filter semantics are not ours to trust: the email itself (one valid
    // address, toIdentity) must be the one asked for, compared canonically; two such users
    // are ambiguous, and neither may be chosen.
    const wanted = canonicalEmailAddress(by.email);
    const matches = resources.map(toIdentity).filter((identity) => identity.email !== null && canonicalEmailAddress(identity.email) === wanted);
    if (matches.length > 1) throw unavailable('more than one of its users holds the email asked for');
    return matches[0];
  }

  /** A client span per pull (`GET scim directory`), its status set, and the directory's spans its children. */
  #get(baseUrl: string, token: string, path: string, accepted: number[]): Promise<{ status: number; body: unknown }> {
    return inSpan(
      'GET scim directory',
      URL.canParse(baseUrl) ? { 'server.address': new URL(baseUrl).hostname } : {},
      async (span) => {
        const answer = await this.#pull(baseUrl, token, path, accepted);
        span?.setAttribute('http.response.status_code', answer.status);
        return answer;
      },
      SpanKind.CLIENT,
    );
  }

  async #pull(baseUrl: string, token: string, path: string, accepted: number[]): Promise<{ status: number; body: unknown }> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let status: number;
    let text: string;
    const url = new URL(`${baseUrl}${path}`);
    // An IP literal never reaches the lookup: its address is checked here.
    const refused = checkLiteralHost(url, { allowLoopback: this.#allowLoopback });
    if (refused) throw unavailable(refused.message, refused);
    try {
      const { Agent, request } = await undici();
      this.#dispatcher ??= new Agent({ connect: { lookup: guardedLookup({ allowLoopback: this.#allowLoopback, resolveAll: this.#resolveAll }) } });
      const response = await request(url, {
        method: 'GET',
        headers: withTraceContext({ authorization: `Bearer ${token}`, accept: 'application/scim+json, application/json' }),
        signal,
        dispatcher: this.#dispatcher,
      });
      status = response.statusCode;
      if (!accepted.includes(status)) {
        await response.body.dump();
        throw unavailable(`it answered HTTP ${status}`);
      }
      text = await readBounded(response.body);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      const forbidden = forbiddenIn(error);
      if (forbidden) throw unavailable(forbidden.message, error);
      throw unavailable(signal.aborted ? `it did not answer within ${this.#timeoutMs} ms` : 'it could not be reached', error);
    }
    if (status === 404) return { status, body: undefined };
    try {
      return { status, body: JSON.parse(text) };
    } catch (error) {
      throw unavailable('its answer is not JSON', error);
    }
  }
}

async function readBounded(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw unavailable(`its answer is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Read leniently: a provider's resource may carry attributes this server would refuse on push. */
function toIdentity(resource: unknown): DirectoryIdentity {
  if (!isObject(resource) || typeof resource.id !== 'string') throw unavailable('its answer is not a SCIM User');
  // Only an explicit true (or Entra's "True") is active. RFC 7643 makes `active` optional,
  // but for the deny-gate an attribute the provider left out must not mean yes: fail closed.
  const active = resource.active === true || (typeof resource.active === 'string' && resource.active.toLowerCase() === 'true');
  const emails = Array.isArray(resource.emails) ? resource.emails.filter(isObject) : [];
  const name = isObject(resource.name) ? resource.name : undefined;
  const fields = identityFields({ ...resource, active, emails, name });
  // The provider keeps no deactivation history we can read: a missing `active` is already false here.
  return { identityId: resource.id, email: fields.email, active: fields.active, deactivatedBefore: false, displayName: fields.displayName };
}

/**
 * One message for every failure: what the provider answered (a status, a body, unreachable, a
 * refused address) would let whoever names base_url probe what lies behind it. The reason goes
 * to the service log only, as the error's cause.
 */
function unavailable(why: string, cause?: unknown): ApiError {
  // The caller learns only that the provider could not be read; why goes to the log as the cause.
  const detail = new Error(`scim_pull: ${why}`, cause === undefined ? undefined : { cause });
  const message = 'connection: the identity provider could not be read; retry later';
  return new ApiError('IDENTITY_SOURCE_UNAVAILABLE', message, { 'retry-after': RETRY_AFTER_SECONDS }, detail);
}
