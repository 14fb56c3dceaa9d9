import { sqliteFile } from '../config/data-dir.ts';
import { adminApi } from './admin-api.ts';
import { DEMO_PERSON } from './demo-organization.ts';

/** What the gateway's demo client may be given on ada's behalf. */
const DEMO_SCOPE = 'orders:read';
/** The longest the demo organisation's ceiling allows (its default). */
const DEMO_TOKEN_SECONDS = 3600;

/** A fresh person JWT of ada's, minted by the demo's service with its admin key. */
export async function mintDemoToken(serviceUrl: string, orgId: string, apiKey: string, personId: string | undefined): Promise<string> {
  const api = adminApi(serviceUrl, orgId, apiKey);
  const id = personId ?? (await findDemoPerson(api));
  const { token } = (await api('POST', `/persons/${id}/mint-token`, { scope: DEMO_SCOPE, expires_in: DEMO_TOKEN_SECONDS })) as { token: string };
  return token;
}

/** ada's id, for a demo whose kept state predates keeping it. */
async function findDemoPerson(api: ReturnType<typeof adminApi>): Promise<string> {
  const persons = (await api('GET', '/persons?limit=100')) as { id: string; handles: { value: string }[] }[];
  const ada = persons.find((p) => p.handles.some((h) => h.value === DEMO_PERSON));
  if (!ada) throw new Error(`the demo organisation has lost ${DEMO_PERSON}; restart the demo`);
  return ada.id;
}

const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

/**
 * The shell command that prints a fresh token of this demo, for the banner's curl. A reader
 * runs it in another shell, which may lack the variables that placed the demo's SQLite file,
 * so those are written in front as the file's path (a path holds no secret; a PostgreSQL URL
 * may, and is left to the reader's environment).
 */
export function demoTokenCommand(databaseUrl: string, given: Record<string, string | undefined>): string {
  const placed = given.TESSERA_DATA_DIR !== undefined || given.TESSERA_DATABASE !== undefined;
  const prefix = placed && sqliteFile(databaseUrl) !== undefined ? `TESSERA_DATABASE=${shellWord(databaseUrl)} ` : '';
  return `${prefix}npm run --silent tessera -- demo token`;
}
