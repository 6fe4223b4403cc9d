import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { LINK_TYPES } from '../targets/link.targets';
import { FORM_FIELD_TYPES } from '../targets/page.targets';

/** OpenAPI documentation of `target`, one schema per type (a discriminated union on `type`). Validation lives in
 * targets/*.targets.ts; these classes only describe it. */

class UtmSchema {
  @ApiPropertyOptional({ example: 'qr' }) source?: string;
  @ApiPropertyOptional({ example: 'print' }) medium?: string;
  @ApiPropertyOptional({ example: 'spring' }) campaign?: string;
  @ApiPropertyOptional() term?: string;
  @ApiPropertyOptional() content?: string;
}

export class UrlTarget {
  @ApiProperty({ enum: ['url', ...LINK_TYPES], example: 'url', description: 'url or another link type (youtube, googleform, …; dynamic only)' }) type!: string;
  @ApiProperty({ example: 'https://example.com/menu', description: 'http or https URL' }) destination!: string;
  @ApiPropertyOptional({ type: UtmSchema, nullable: true, description: 'Merged into the destination at scan time (dynamic) or into the encoded URL (static)' }) utm?: UtmSchema;
}
export class TextTarget {
  @ApiProperty({ enum: ['text'] }) type!: string;
  @ApiProperty({ example: 'Welcome to our shop!', maxLength: 4000 }) text!: string;
}
export class EmailTarget {
  @ApiProperty({ enum: ['email'] }) type!: string;
  @ApiProperty({ example: 'hello@example.com' }) email!: string;
  @ApiPropertyOptional({ example: 'Question' }) subject?: string;
  @ApiPropertyOptional({ example: 'Hi,' }) message?: string;
  @ApiPropertyOptional({ type: [String], description: 'An array or a comma-separated string' }) cc?: string[];
  @ApiPropertyOptional({ type: [String] }) bcc?: string[];
}
export class SmsTarget {
  @ApiProperty({ enum: ['sms'] }) type!: string;
  @ApiProperty({ example: '+15551234567' }) phone!: string;
  @ApiPropertyOptional({ example: 'JOIN' }) message?: string;
}
export class WifiTarget {
  @ApiProperty({ enum: ['wifi'] }) type!: string;
  @ApiProperty({ example: 'Cafe Guest', maxLength: 32 }) ssid!: string;
  @ApiPropertyOptional({ example: 'espresso42', description: 'Required unless encryption is nopass; 8–63 characters for WPA' }) password?: string;
  @ApiPropertyOptional({ enum: ['WPA', 'WEP', 'nopass'], default: 'WPA' }) encryption?: string;
  @ApiPropertyOptional({ default: false }) hidden?: boolean;
}
export class EventTarget {
  @ApiProperty({ enum: ['event'] }) type!: string;
  @ApiProperty({ example: 'Launch party' }) title!: string;
  @ApiPropertyOptional({ example: 'Hall 1, Berlin' }) location?: string;
  @ApiProperty({ format: 'date-time', example: '2026-05-01T18:00:00Z' }) start!: string;
  @ApiProperty({ format: 'date-time', example: '2026-05-01T21:00:00Z', description: 'After start' }) end!: string;
  @ApiPropertyOptional() description?: string;
}
class VcardFields {
  @ApiProperty({ example: 'Ada Lovelace' }) your_name!: string;
  @ApiPropertyOptional({ example: 'Analytical Engines Ltd' }) company_name?: string;
  @ApiPropertyOptional({ example: 'CTO' }) position?: string;
  @ApiPropertyOptional({ example: 'ada@example.com' }) email?: string;
  @ApiPropertyOptional({ example: '+441234567890' }) phone_mobile?: string;
  @ApiPropertyOptional() phone_work?: string;
  @ApiPropertyOptional() website?: string;
  @ApiPropertyOptional() address?: string;
  @ApiPropertyOptional() note?: string;
}
export class VcardTarget {
  @ApiProperty({ enum: ['vcard'] }) type!: string;
  @ApiProperty({ type: VcardFields }) vcard!: VcardFields;
}
export class LocationTarget {
  @ApiProperty({ enum: ['location'] }) type!: string;
  @ApiProperty({ example: 48.8584, minimum: -90, maximum: 90 }) lat!: number;
  @ApiProperty({ example: 2.2945, minimum: -180, maximum: 180 }) lng!: number;
  @ApiPropertyOptional({ example: 'Eiffel Tower' }) label?: string;
  @ApiPropertyOptional() address?: string;
  @ApiPropertyOptional({ enum: ['google', 'apple', 'waze'], default: 'google' }) map_app?: string;
}
export class WhatsappTarget {
  @ApiProperty({ enum: ['whatsapp'] }) type!: string;
  @ApiPropertyOptional({ example: '+15551234567' }) phone?: string;
  @ApiPropertyOptional({ example: 'Hello!' }) message?: string;
  @ApiPropertyOptional({ description: 'A WhatsApp link instead of phone/message', example: 'https://wa.me/15551234567' }) destination?: string;
}
export class TelegramTarget {
  @ApiProperty({ enum: ['telegram'] }) type!: string;
  @ApiProperty({ example: '@scanlink', description: 'A @username, a phone number or a t.me link' }) destination!: string;
}
export class AppstoresTarget {
  @ApiProperty({ enum: ['appstores'] }) type!: string;
  @ApiPropertyOptional({ example: 'https://apps.apple.com/app/id123' }) ios_url?: string;
  @ApiPropertyOptional({ example: 'https://play.google.com/store/apps/details?id=com.example' }) android_url?: string;
  @ApiPropertyOptional() fallback_url?: string;
}
class ReviewLink {
  @ApiProperty({ example: 'google' }) platform!: string;
  @ApiProperty({ example: 'https://g.page/r/example/review' }) url!: string;
}
class ReviewPage {
  @ApiProperty({ example: 'How did we do?' }) title!: string;
  @ApiProperty({ type: [ReviewLink] }) links!: ReviewLink[];
  @ApiPropertyOptional() feedback_email?: string;
}
export class ReviewTarget {
  @ApiProperty({ enum: ['review'] }) type!: string;
  @ApiProperty({ type: ReviewPage }) review_page!: ReviewPage;
}
class PageLink {
  @ApiProperty({ example: 'Our shop' }) title!: string;
  @ApiProperty({ example: 'https://shop.example.com' }) url!: string;
}
export class LinkpageTarget {
  @ApiProperty({ enum: ['linkpage'] }) type!: string;
  @ApiProperty({ example: 'Find us online' }) title!: string;
  @ApiPropertyOptional() description?: string;
  @ApiProperty({ type: [PageLink] }) links!: PageLink[];
}
class FormField {
  @ApiProperty({ example: 'email', pattern: '^[a-z][a-z0-9_]*$' }) name!: string;
  @ApiProperty({ example: 'Your e-mail' }) label!: string;
  @ApiPropertyOptional({ enum: FORM_FIELD_TYPES, default: 'text' }) type?: string;
  @ApiPropertyOptional({ default: false }) required?: boolean;
}
export class FormTarget {
  @ApiProperty({ enum: ['form'] }) type!: string;
  @ApiProperty({ example: 'Join our newsletter' }) title!: string;
  @ApiProperty({ type: [FormField] }) fields!: FormField[];
  @ApiPropertyOptional({ example: 'I agree to receive e-mails.' }) consent_text?: string;
}
class MenuItem {
  @ApiProperty({ example: 'Espresso' }) name!: string;
  @ApiPropertyOptional({ example: '2.50' }) price?: string;
  @ApiPropertyOptional() description?: string;
}
class MenuSection {
  @ApiProperty({ example: 'Coffee' }) name!: string;
  @ApiProperty({ type: [MenuItem] }) items!: MenuItem[];
}
export class MenupageTarget {
  @ApiProperty({ enum: ['menupage'] }) type!: string;
  @ApiProperty({ example: 'Menu' }) title!: string;
  @ApiProperty({ type: [MenuSection] }) sections!: MenuSection[];
}

export const TARGET_SCHEMAS = [
  UrlTarget, TextTarget, EmailTarget, SmsTarget, WifiTarget, EventTarget, VcardTarget, LocationTarget, WhatsappTarget,
  TelegramTarget, AppstoresTarget, ReviewTarget, LinkpageTarget, FormTarget, MenupageTarget,
];

const MAPPING: Record<string, string> = Object.fromEntries([
  ['url', UrlTarget], ...LINK_TYPES.map((t) => [t, UrlTarget]), ['text', TextTarget], ['email', EmailTarget], ['sms', SmsTarget],
  ['wifi', WifiTarget], ['event', EventTarget], ['vcard', VcardTarget], ['location', LocationTarget], ['whatsapp', WhatsappTarget],
  ['telegram', TelegramTarget], ['appstores', AppstoresTarget], ['review', ReviewTarget], ['linkpage', LinkpageTarget],
  ['form', FormTarget], ['menupage', MenupageTarget],
].map(([type, cls]) => [type as string, getSchemaPath(cls as never)]));

export const TARGET_UNION = {
  oneOf: TARGET_SCHEMAS.map((c) => ({ $ref: getSchemaPath(c) })),
  discriminator: { propertyName: 'type', mapping: MAPPING },
};
