export const EVENT_TYPES = [
  'qr.created',
  'qr.updated',
  'qr.deleted',
  'qr.restored',
  'qr.scanned',
  'batch.completed',
  'batch.failed',
  'lead.captured',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The delivery body: exactly these fields, serialized once and stored, so every attempt sends identical bytes. */
export interface EventEnvelope {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  data: object;
}
