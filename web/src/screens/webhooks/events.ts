/** The event types an endpoint can subscribe to (the API's list; `*` is every type). */
export const EVENT_TYPES = ['qr.created', 'qr.updated', 'qr.deleted', 'qr.restored', 'qr.scanned', 'batch.completed', 'batch.failed', 'lead.captured', 'ping'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
