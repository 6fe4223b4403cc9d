import type { AppConfig } from '../../../common/config/config';
import { FsImageStorage } from './fs-image-storage';
import type { ImageStorage } from './image-storage';
import { S3ImageStorage } from './s3-image-storage';

/** The configured storage driver: STORAGE_DRIVER=s3 → the S3-compatible bucket, else files under STORAGE_DIR. */
export function createStorage(config: AppConfig): ImageStorage {
  if (config.storageDriver === 's3' && config.s3) return new S3ImageStorage(config.s3, config.imageBaseUrl);
  return new FsImageStorage(config.storageDir, config.imageBaseUrl);
}
