import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
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
  private readonly transport: Transporter;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.transport = config.smtpUrl
      ? nodemailer.createTransport(config.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  }

  /** Sends the message and returns where it went (the SMTP message id or the .eml path). */
  async send(message: MailMessage): Promise<string> {
    const info = await this.transport.sendMail({ from: this.config.mailFrom, ...message });
    if (this.config.smtpUrl) return String(info.messageId);
    await mkdir(this.config.mailDir, { recursive: true });
    const file = join(this.config.mailDir, `${Date.now()}-${randomBase62(8)}.eml`);
    await writeFile(file, (info as unknown as { message: Buffer }).message);
    this.logger.log(`mail written to ${file} (SMTP_URL is not set)`);
    return file;
  }

  onModuleDestroy(): void {
    this.transport.close();
  }
}
