import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type StreamTransport from 'nodemailer/lib/stream-transport';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { randomBase62 } from '../../common/ids';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Outbound e-mail. With SMTP_URL set, nodemailer sends over SMTP. Without it (local development and tests) each
 * message is rendered to RFC 822 and written as `<mailDir>/<timestamp>-<random>.eml`, so it can be opened or asserted.
 */
@Injectable()
export class MailService implements OnModuleDestroy {
  private readonly logger = new Logger(MailService.name);
  /** `eml` (no SMTP_URL) renders each message into a buffer, `info.message`. */
  private readonly transport:
    | { kind: 'smtp'; sender: Transporter<SMTPTransport.SentMessageInfo> }
    | { kind: 'eml'; sender: Transporter<StreamTransport.SentMessageInfo> };

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl
      ? { kind: 'smtp', sender: nodemailer.createTransport(config.smtpUrl) }
      : { kind: 'eml', sender: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) };
  }

  /** Sends the message and returns where it went (the SMTP message id or the .eml path). */
  async send(message: MailMessage): Promise<string> {
    const mail = { from: this.config.mailFrom, ...message };
    if (this.transport.kind === 'smtp') return String((await this.transport.sender.sendMail(mail)).messageId);
    const info = await this.transport.sender.sendMail(mail);
    await mkdir(this.config.mailDir, { recursive: true });
    const file = join(this.config.mailDir, `${Date.now()}-${randomBase62(8)}.eml`);
    await writeFile(file, info.message);
    this.logger.log(`mail written to ${file} (SMTP_URL is not set)`);
    return file;
  }

  onModuleDestroy(): void {
    this.transport.sender.close();
  }
}
