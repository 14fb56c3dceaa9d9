import { invitationDefaults } from '../../config/defaults.ts';
import type { ServiceConfig } from '../../config/service-config.ts';
import type { Mailer } from '../../email/mailer.ts';
import { openMailer } from '../../email/open-mailer.ts';
import { invitePerson } from '../../invitations/invite.ts';
import { InvalidArgumentError } from '../../organizations/create-organization.ts';
import { CommandRefusal } from '../command.ts';
import { adminCommand } from './admin-command.ts';
import { summary } from './output.ts';
import { handlesOf, PERSON_OPTION, personNamed } from './persons.ts';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const LIFETIME_RULE = 'a duration from 5m to 7d: a number of seconds, or one with a unit s, m, h or d (72h, 3d)';

/** --expires-in in seconds: `3600`, `30m`, `72h`, `7d`, within the API's range. */
export function lifetimeSeconds(given: string | undefined): number {
  if (given === undefined) return invitationDefaults.lifetimeSeconds;
  const match = /^([1-9][0-9]{0,6})([smhd]?)$/.exec(given);
  const seconds = match ? Number(match[1]) * UNITS[match[2] || 's']! : Number.NaN;
  if (!(seconds >= invitationDefaults.minSeconds && seconds <= invitationDefaults.maxSeconds)) {
    throw new InvalidArgumentError(`--expires-in: must be ${LIFETIME_RULE} (got ${JSON.stringify(given)})`);
  }
  return seconds;
}

/** The mail transport --send uses: SMTP only; a link written to a log would reach nobody it is meant for. */
async function smtpMailer(config: ServiceConfig): Promise<Mailer> {
  if (config.smtpUrl === undefined) {
    throw new CommandRefusal(
      '--send: TESSERA_SMTP_URL is not set, so the link would only be written to a log; set TESSERA_SMTP_URL and TESSERA_SMTP_FROM, or leave --send out and pass the link on yourself',
    );
  }
  return openMailer(config, { info: () => {}, warn: (_details, message) => void process.stderr.write(`${message}\n`) });
}

/** A stand-in for the commands that send nothing: invitePerson asks for a mailer only when sending. */
const noMailer: Mailer = {
  description: 'none',
  send: () => Promise.reject(new TypeError('invite-person sends mail only with --send')),
  close: async () => {},
};

export const invitePersonCommand = adminCommand({
  name: 'admin invite-person',
  description: `Makes a one-time link where the person chooses their password and, when their roles need
two factors, adds a passkey or an authenticator app (design §9); a new link revokes the one
before. For a person who holds credentials it is a reset: when they use it, what they hold is
replaced and their tokens and console sessions end. The link is printed once (only its hash is
kept), and with --send also emailed to their address. Audited as person.invited, operator cli.`,
  options: {
    person: PERSON_OPTION,
    'expires-in': { value: 'DURATION', help: 'how long the link works: 72h (the default), from 5m to 7d\n(seconds, or with a unit s, m, h or d)' },
    send: { help: 'also email it to their email address (needs TESSERA_SMTP_URL)' },
  },
  json: 'print {"url": …, "expires_at": …, "reset": …, "emailed_to": …} as the API does',
  environment: `  TESSERA_ISSUER              the service's public URL, which the link is on (default: the
                              address TESSERA_HOST and TESSERA_PORT give)
  TESSERA_SMTP_URL, TESSERA_SMTP_FROM   the mail server, for --send`,
  fields: { 'path.person_id': '--person', 'body.send': '--send' },
  async run({ store, org, config, operator }, options) {
    const person = await personNamed(store, org.id, options.person);
    const expiresIn = lifetimeSeconds(options['expires-in']);
    const issuer = config.issuer ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    const mailer = options.send ? await smtpMailer(config) : noMailer;
    try {
      const made = await invitePerson({ store, issuer: () => issuer, now: Date.now, mailer }, org, person.id, { expiresIn, send: options.send }, operator);
      const expiresAt = new Date(made.expiresAt).toISOString();
      const fields: [string, string][] = [
        ['link', made.url],
        ['works until', `${expiresAt}, once`],
        ['emailed', made.emailedTo ?? 'no'],
      ];
      const notes = [
        'The link is shown only now. Give it to them only, through a channel you trust: whoever opens it chooses the password.',
        ...(made.reset ? ['This is a reset: when they use the link, their present password and second factors stop working.'] : []),
        ...(config.issuer === undefined ? [`TESSERA_ISSUER is unset: the link is on ${issuer}; set it to the service's public URL.`] : []),
      ];
      const heading = `${made.reset ? 'Sign-in reset link' : 'Invitation link'} for ${person.id} (${handlesOf(person)})`;
      const text = summary(heading, fields, notes.join('\n'));
      return { text, json: { url: made.url, expires_at: expiresAt, reset: made.reset, emailed_to: made.emailedTo } };
    } finally {
      await mailer.close();
    }
  },
});
