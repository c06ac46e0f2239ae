/**
 * An in-memory Powertools idempotency persistence layer: the no-network counterpart of
 * DynamoDBPersistenceLayer, as MemoryApprovalStore is of DynamoApprovalStore. It keeps the
 * DynamoDB layer's semantics: a put fails (returning the existing record) unless the key is new,
 * expired, or held by a lapsed in-progress lease; stored data is copied in and out, as a round trip
 * through DynamoDB would.
 */
import {
  IdempotencyItemAlreadyExistsError,
  IdempotencyItemNotFoundError,
  IdempotencyRecordStatus,
} from '@aws-lambda-powertools/idempotency';
import { BasePersistenceLayer, IdempotencyRecord } from '@aws-lambda-powertools/idempotency/persistence';

export class MemoryPersistenceLayer extends BasePersistenceLayer {
  private readonly records = new Map<string, IdempotencyRecord>();

  protected async _getRecord(idempotencyKey: string): Promise<IdempotencyRecord> {
    const record = this.records.get(idempotencyKey);
    if (!record) throw new IdempotencyItemNotFoundError();
    return copy(record);
  }

  protected async _putRecord(record: IdempotencyRecord): Promise<void> {
    const existing = this.records.get(record.idempotencyKey);
    if (existing && !replaceable(existing)) {
      throw new IdempotencyItemAlreadyExistsError(
        `Failed to put record for already existing idempotency key: ${record.idempotencyKey}`,
        copy(existing),
      );
    }
    this.records.set(record.idempotencyKey, copy(record));
  }

  protected async _updateRecord(record: IdempotencyRecord): Promise<void> {
    const existing = this.records.get(record.idempotencyKey);
    this.records.set(
      record.idempotencyKey,
      new IdempotencyRecord({
        idempotencyKey: record.idempotencyKey,
        status: record.getStatus(),
        expiryTimestamp: record.expiryTimestamp,
        inProgressExpiryTimestamp: existing?.inProgressExpiryTimestamp,
        responseData: structuredClone(record.responseData),
        payloadHash: this.isPayloadValidationEnabled() ? record.payloadHash : existing?.payloadHash,
      }),
    );
  }

  protected async _deleteRecord(record: IdempotencyRecord): Promise<void> {
    this.records.delete(record.idempotencyKey);
  }
}

/** What DynamoDBPersistenceLayer's put condition lets through: a new, expired or lapsed in-progress key. */
function replaceable(existing: IdempotencyRecord): boolean {
  const now = Date.now();
  if (existing.expiryTimestamp !== undefined && existing.expiryTimestamp < now / 1000) return true;
  return (
    existing.getStatus() === IdempotencyRecordStatus.INPROGRESS &&
    existing.inProgressExpiryTimestamp !== undefined &&
    existing.inProgressExpiryTimestamp < now
  );
}

function copy(record: IdempotencyRecord): IdempotencyRecord {
  return new IdempotencyRecord({
    idempotencyKey: record.idempotencyKey,
    status: record.getStatus(),
    expiryTimestamp: record.expiryTimestamp,
    inProgressExpiryTimestamp: record.inProgressExpiryTimestamp,
    responseData: structuredClone(record.responseData),
    payloadHash: record.payloadHash,
  });
}
