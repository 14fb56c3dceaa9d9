/**
 * W3C WebAuthn L3 §7.1 and §7.2: "If C.crossOrigin is present and set to true, verify that the
 * Relying Party expects this credential to be created [used] within an iframe that is not
 * same-origin with its ancestors", and likewise for C.topOrigin. Tessera never expects that: a
 * page of another site framing the organisation's login page could otherwise have a passkey
 * ceremony run under its own top-level page. @simplewebauthn/server 14 checks crossOrigin only
 * when topOrigin is present, and at registration not at all, so both verifiers ask this too.
 *
 * Called once the library has verified the answer: an edited crossOrigin is then refused for what
 * the edit broke (the signature over clientDataJSON), and this names only what the browser said.
 */

/** The reason to refuse an answer whose client data says it came from a cross-origin iframe; undefined otherwise. */
export function crossOriginRefusal(response: unknown): string | undefined {
  const encoded = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  let clientData: unknown;
  try {
    clientData = typeof encoded === 'string' ? JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) : undefined;
  } catch {
    clientData = undefined;
  }
  // The library has read it already; a clientDataJSON that is not an object is refused, not passed.
  if (typeof clientData !== 'object' || clientData === null || Array.isArray(clientData)) return 'the clientDataJSON is not a JSON object';
  const { crossOrigin, topOrigin } = clientData as { crossOrigin?: unknown; topOrigin?: unknown };
  if (crossOrigin === true) return 'the ceremony ran in a cross-origin iframe (clientDataJSON.crossOrigin is true), which this service never expects';
  if (Object.hasOwn(clientData, 'topOrigin')) {
    return `the ceremony ran in a cross-origin iframe under the top origin ${JSON.stringify(topOrigin)?.slice(0, 200)} (clientDataJSON.topOrigin), which this service never expects`;
  }
  return undefined;
}
