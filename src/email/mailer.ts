import { ApiError } from '../errors/api-error.ts';

/** One email, complete: the transport adds nothing but the envelope. */
export interface MailMessage {
  /** The recipient's address, as the directory holds it (never one a caller supplied). */
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Display name of the From header, e.g. the organisation's sender name. */
  fromName: string;
  /** Address of the From header; null for the transport's own (TESSERA_SMTP_FROM). */
  fromAddress: string | null;
  /**
   * Values that must never reach a log (the one-time code): the development transport masks
   * them. The SMTP transport logs no message content at all.
   */
  secrets?: readonly string[];
}

/** Sends email. Every implementation is bounded in time and fails with `emailNotSent`. */
export interface Mailer {
  /** Resolves once the mail server accepted the message; throws ApiError EMAIL_NOT_SENT (502) otherwise. */
  send(message: MailMessage): Promise<void>;
  /** Where mail goes, for the start-up log; never carries credentials. */
  readonly description: string;
  close(): Promise<void>;
}

/** Why a send failed, in words safe for the caller; the detail goes to the log as the cause. */
export type SendFailure = 'timeout' | 'refused' | 'unreachable' | 'failed';

const failureWording: Record<SendFailure, string> = {
  timeout: 'did not answer in time',
  refused: 'refused the message',
  unreachable: 'could not be reached',
  failed: 'failed while taking the message',
};

/** The one error every transport throws: 502 EMAIL_NOT_SENT, with the reason for the log as its cause. */
export function emailNotSent(failure: SendFailure, detail: string): ApiError {
  return new ApiError('EMAIL_NOT_SENT', `email: the mail server ${failureWording[failure]}; try again later`, {}, new Error(`${failure}: ${detail}`));
}

/** The log a transport writes to: pino's (fastify's) logger fits. */
export interface MailLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}
