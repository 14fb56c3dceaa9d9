import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { type SavedAuthenticator, SoftwareAuthenticator } from '../dev/software-authenticator.ts';
import { type Command, parseOptions, UsageError } from './command.ts';

export const devPasskeyCommand: Command = {
  name: 'dev passkey',
  help: `Usage: tessera dev passkey register --key FILE --origin ORIGIN < creation-options.json
       tessera dev passkey sign --key FILE --origin ORIGIN < request-options.json

A software passkey, to try WebAuthn registration and login from a shell (docs/credentials.md).
It plays the browser and the authenticator: it reads the "options" of
/authn/webauthn/registration/options or /authn/webauthn/options on standard input and prints
the "response" to send to the matching /verify call.

  register  makes a new ES256 passkey for the options' user and RP id, saves it to FILE
            (mode 600; it holds the private key) and prints the attestation
  sign      signs the options' challenge with the passkey in FILE, counts up its signature
            counter there, and prints the assertion

Options:
  --key FILE        where the passkey is kept
  --origin ORIGIN   the page origin to claim, one of the organisation's webauthn_origins
  -h, --help        this text

For development only: a real passkey's private key never leaves its authenticator.
`,
  async run(args) {
    const [action, ...rest] = args;
    if (action === undefined || action === '-h' || action === '--help') return void process.stdout.write(devPasskeyCommand.help);
    if (action !== 'register' && action !== 'sign') throw new UsageError(`unknown action "${action}"\nRun "tessera dev passkey --help" for usage.`);
    const options = parseOptions('dev passkey', rest, { key: { type: 'string' }, origin: { type: 'string' } });
    if (options.help) return void process.stdout.write(devPasskeyCommand.help);
    if (!options.key || !options.origin) throw new UsageError('--key and --origin are required\nRun "tessera dev passkey --help" for usage.');
    const ceremony = readOptions(await text(process.stdin));
    let response: unknown;
    let authenticator: SoftwareAuthenticator;
    if (action === 'register') {
      if (existsSync(options.key))
        throw new UsageError(`--key ${options.key}: already exists; a new passkey would replace the one in it (choose another file, or delete it)`);
      authenticator = new SoftwareAuthenticator();
      response = authenticator.register({ challenge: ceremony.challenge, rpId: ceremony.rpId, origin: options.origin, userId: ceremony.userId });
    } else {
      authenticator = SoftwareAuthenticator.restore(JSON.parse(readFileSync(options.key, 'utf8')) as SavedAuthenticator);
      response = authenticator.assert({ challenge: ceremony.challenge, rpId: ceremony.rpId, origin: options.origin });
    }
    keepPrivately(options.key, `${JSON.stringify(authenticator.save())}\n`);
    process.stdout.write(`${JSON.stringify(response)}\n`);
  },
};

/**
 * Writes the passkey beside its file and renames it over: the private key is never in a file
 * of another mode (a file's mode is set only when it is created), and a crash mid-write
 * leaves the previous passkey whole.
 */
function keepPrivately(path: string, content: string): void {
  const next = `${path}.${process.pid}.tmp`;
  writeFileSync(next, content, { mode: 0o600, flag: 'wx' });
  renameSync(next, path);
}

/** The fields used from creation options (rp.id, user.id) or request options (rpId). */
function readOptions(input: string): { challenge: string; rpId: string; userId?: string } {
  let options: { challenge?: unknown; rpId?: unknown; rp?: { id?: unknown }; user?: { id?: unknown } };
  try {
    options = JSON.parse(input);
  } catch {
    throw new UsageError('standard input: expected the options JSON of a WebAuthn options call (jq .result.options)');
  }
  const rpId = options.rp?.id ?? options.rpId;
  if (typeof options.challenge !== 'string' || typeof rpId !== 'string') {
    throw new UsageError('standard input: the options need "challenge" and "rpId" (or "rp.id"); pass .result.options, not the whole answer');
  }
  return { challenge: options.challenge, rpId, ...(typeof options.user?.id === 'string' ? { userId: options.user.id } : {}) };
}
