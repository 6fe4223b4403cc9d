import type { Batch } from './batch.entity';
import type { BatchDto, BatchItemDto, BatchSummaryDto } from './batches.dto';

/** An item row as the API shows it (the columns presentBatch needs). */
export interface BatchItemRow {
  name: string;
  type: string;
  status: string;
  qr_code_id: string;
  error: string | null;
  gs1_code: string | null;
}

export function presentItem(i: BatchItemRow): BatchItemDto {
  return { name: i.name, type: i.type, status: i.status, qr_code_id: i.status === 'completed' ? i.qr_code_id : null, error: i.error, gs1_code: i.gs1_code };
}

/** The Batch object; without `items` it is the `data` of batch.* events. */
export function presentBatch(batch: Batch): BatchSummaryDto;
export function presentBatch(batch: Batch, items: BatchItemRow[]): BatchDto;
export function presentBatch(batch: Batch, items?: BatchItemRow[]): BatchSummaryDto | BatchDto {
  const out: BatchSummaryDto = {
    id: batch.id,
    object: 'batch',
    status: batch.status,
    total_count: batch.totalCount,
    completed_count: batch.completedCount,
    error_count: batch.errorCount,
    created_at: batch.createdAt.toISOString(),
  };
  return items ? { ...out, items: items.map(presentItem) } : out;
}
