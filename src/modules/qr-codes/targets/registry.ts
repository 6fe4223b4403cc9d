import { ApiException } from '../../../common/errors/api.exception';
import { emailHandler, eventHandler, locationHandler, smsHandler, textHandler, vcardHandler, wifiHandler } from './content.targets';
import { linkHandlers, telegramHandler, urlHandler, whatsappHandler } from './link.targets';
import { appstoresHandler, formHandler, linkpageHandler, menupageHandler, reviewHandler } from './page.targets';
import type { TargetHandler } from './target-handler';

const HANDLERS: TargetHandler[] = [
  urlHandler,
  ...linkHandlers,
  textHandler,
  emailHandler,
  smsHandler,
  wifiHandler,
  eventHandler,
  vcardHandler,
  locationHandler,
  whatsappHandler,
  telegramHandler,
  appstoresHandler,
  reviewHandler,
  linkpageHandler,
  formHandler,
  menupageHandler,
];

const BY_TYPE = new Map(HANDLERS.map((h) => [h.type, h]));

export const TARGET_TYPES = HANDLERS.map((h) => h.type);
export const STATIC_CAPABLE_TYPES = HANDLERS.filter((h) => h.staticCapable).map((h) => h.type);
export const LINK_FAMILY = new Set(['url', ...linkHandlers.map((h) => h.type)]);

export function handlerFor(type: unknown, field = 'target.type'): TargetHandler {
  if (type === undefined || type === null || type === '') throw ApiException.invalid(field, `${field} is required`);
  const h = typeof type === 'string' ? BY_TYPE.get(type) : undefined;
  if (!h) throw ApiException.invalid(field, `${field} must be one of ${TARGET_TYPES.join(', ')}`);
  return h;
}

/** The handler of a stored code (its type is already valid). */
export function storedHandler(type: string): TargetHandler {
  const h = BY_TYPE.get(type);
  if (!h) throw new Error(`no target handler for stored type ${type}`);
  return h;
}
