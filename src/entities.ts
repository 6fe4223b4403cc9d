import { ApiKey } from './modules/accounts/api-key.entity';
import { Organization } from './modules/accounts/organization.entity';
import { Folder } from './modules/folders/folder.entity';
import { Batch, BatchItem } from './modules/batches/batch.entity';
import { QrCode } from './modules/qr-codes/qr-code.entity';
import { EventRecord } from './modules/events/event.entity';
import { WebhookDelivery } from './modules/webhooks/webhook-delivery.entity';
import { WebhookEndpoint } from './modules/webhooks/webhook-endpoint.entity';
import { Domain } from './modules/domains/domain.entity';
import { UploadedFile } from './modules/files/file.entity';
import { Template } from './modules/templates/template.entity';
import { AuditEntry } from './modules/audit/audit-entry.entity';

/** Every entity of the service, in one list for the ORM configuration. */
export const ENTITIES = [Organization, ApiKey, Folder, QrCode, EventRecord, WebhookEndpoint, WebhookDelivery, Batch, BatchItem, Domain, UploadedFile, Template, AuditEntry];
