import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One message as the listener received it: the envelope, the headers and both bodies decoded. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  /** The authenticated user, when the client logged in. */
  user: string | undefined;
  /** Whether the session was encrypted (smtps, or upgraded with STARTTLS) when the message came. */
  secure: boolean;
  headers: Map<string, string>;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpListener {
  /** smtp://[user:pass@]127.0.0.1:<port> */
  url: string;
  messages: ReceivedMail[];
  /** The next message to arrive (or the first not yet taken). */
  nextMessage(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export interface SmtpListenerOptions {
  /** Refuse every recipient with 550. */
  refuseRecipients?: boolean;
  /** Require this login (PLAIN/LOGIN); others are refused with 535. */
  auth?: { user: string; pass: string };
  /** Offer STARTTLS with this certificate; without it STARTTLS is not offered at all. */
  tls?: { key: string; cert: string };
}

/** A real SMTP server (the smtp-server package) on loopback, port 0, keeping what it receives. */
export async function startSmtpListener(options: SmtpListenerOptions = {}): Promise<SmtpListener> {
  const messages: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  let taken = 0;
  const server = new SMTPServer({
    logger: false,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    disabledCommands: [...(options.tls ? [] : ['STARTTLS']), ...(options.auth ? [] : ['AUTH'])],
    authOptional: options.auth === undefined,
    // Loopback tests without TLS may still log in; a real server would refuse that.
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('Authentication failed'), { responseCode: 535 }));
    },
    onRcptTo(_address, _session, callback) {
      if (options.refuseRecipients) return callback(Object.assign(new Error('5.1.1 mailbox unavailable'), { responseCode: 550 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
        const received: ReceivedMail = {
          ...mail,
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          secure: session.secure,
        };
        messages.push(received);
        waiting.shift()?.(received);
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1');
  await once(server.server, 'listening');
  const { port } = server.server.address() as AddressInfo;
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@` : '';
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    messages,
    nextMessage() {
      const ready = messages[taken];
      if (ready) {
        taken++;
        return Promise.resolve(ready);
      }
      return new Promise((resolve) =>
        waiting.push((mail) => {
          taken++;
          resolve(mail);
        }),
      );
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server that misbehaves below SMTP: says nothing at all, or closes as soon as the client speaks. */
export async function startBrokenListener(kind: 'silent' | 'closes'): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    if (kind === 'closes') {
      socket.write('220 127.0.0.1 ESMTP\r\n');
      socket.once('data', () => socket.destroy());
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The six-digit code a verification email carries, read from its plain-text body. */
export function codeFrom(mail: ReceivedMail): string {
  const match = /verification code is: (\d{6})\b/.exec(mail.text);
  if (!match) throw new Error(`no code in the message:\n${mail.text}`);
  return match[1]!;
}

/**
 * Just enough MIME (RFC 2045/2046) for what nodemailer writes: headers, one level of
 * multipart/alternative, 7bit, quoted-printable or base64 parts.
 */
export function parseMail(raw: string): Pick<ReceivedMail, 'headers' | 'text' | 'html' | 'raw'> {
  const [head, body] = splitHead(raw);
  const headers = parseHeaders(head);
  let text = '';
  let html = '';
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((part) => splitHead(part.replace(/^\r\n/, '')))
    : [[head, body] as const];
  for (const [partHead, partBody] of parts) {
    const partHeaders = parseHeaders(partHead);
    const decoded = decode(partBody.replace(/\r\n$/, ''), partHeaders.get('content-transfer-encoding') ?? '7bit');
    if (/^text\/html/i.test(partHeaders.get('content-type') ?? '')) html = decoded;
    else if (/^text\/plain/i.test(partHeaders.get('content-type') ?? 'text/plain')) text = decoded;
  }
  return { headers, text, html, raw };
}

function splitHead(raw: string): readonly [string, string] {
  const end = raw.indexOf('\r\n\r\n');
  return end < 0 ? [raw, ''] : [raw.slice(0, end), raw.slice(end + 4)];
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

function decode(body: string, encoding: string): string {
  if (/base64/i.test(encoding)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/quoted-printable/i.test(encoding)) {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}
