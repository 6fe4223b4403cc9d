export { Scanlink, ListIterator, DEFAULT_BASE_URL, SDK_VERSION } from './client';
export type {
  ScanlinkOptions,
  DownloadParams,
  BodyOf,
  QueryOf,
  ListParams,
  Account,
  QrCode,
  CreateQrCodeBody,
  UpdateQrCodeBody,
  DeletedQrCode,
  Folder,
  Batch,
  CreateBatchBody,
  ScanlinkEvent,
  WebhookEndpoint,
  CreatedWebhookEndpoint,
  WebhookDelivery,
  Analytics,
  Domain,
  UploadedFile,
  Template,
  ApiKey,
  CreatedApiKey,
} from './client';
export { ScanlinkError, ScanlinkSignatureError, type SignatureFailure } from './errors';
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS, type VerifyWebhookOptions, type WebhookEvent } from './webhooks';
export type { paths, components, operations } from './schema';
