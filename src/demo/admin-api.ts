/** An API call's `result`; each caller says what shape it expects there. */
export type AdminApi = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Calls the demo's own service with its admin key, as a reader's curl would; a failure names the call. */
export function adminApi(serviceUrl: string, orgId: string, apiKey: string): AdminApi {
  return async (method, path, body) => {
    const response = await fetch(`${serviceUrl}${path}`, {
      method,
      headers: { 'service-orgid': orgId, 'service-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: unknown }).result;
  };
}
