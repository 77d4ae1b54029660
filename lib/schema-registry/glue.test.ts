import { inspect } from 'node:util';
import { EntityNotFoundException, GetSchemaVersionCommand, GlueClient } from '@aws-sdk/client-glue';
import avsc from 'avsc';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { avroDecoder } from '../avro/index.ts';
import { KafkaRecord } from '../middleware/record.ts';
import { SchemaNotFoundError, SchemaRegistryRequestError } from './errors.ts';
import { glueSchemaRegistry } from './glue.ts';

const glue = mockClient(GlueClient);
afterEach(() => glue.reset());

const versionId = '0f3c5a6e-9b1d-4c2e-8a7f-1234567890ab';
const schema = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] };

function glueFramed(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([3, 0]), Buffer.from(versionId.replaceAll('-', ''), 'hex'), body]);
}

describe('glueSchemaRegistry', () => {
  it('resolves a Glue-framed record by its schema version id, once', async () => {
    glue
      .on(GetSchemaVersionCommand, { SchemaVersionId: versionId })
      .resolves({ SchemaDefinition: JSON.stringify(schema), DataFormat: 'AVRO', SchemaVersionId: versionId });
    const registry = glueSchemaRegistry({ client: new GlueClient({ region: 'eu-west-1' }) });
    const decoder = avroDecoder({ registry });
    const bytes = glueFramed(avsc.Type.forSchema(schema as avsc.Schema).toBuffer({ id: 'g-1' }));
    const record = new KafkaRecord(
      {
        topic: 't',
        partition: 0,
        offset: 1,
        timestamp: 0,
        timestampType: 'CREATE_TIME',
        value: bytes.toString('base64'),
      },
      't',
      0,
      1,
    ) as KafkaRecord<unknown, unknown>;
    const signal = new AbortController().signal;
    expect({ ...((await decoder.decode(bytes, record, 'value', signal)) as object) }).toEqual({ id: 'g-1' });
    expect({ ...(decoder.decode(bytes, record, 'value', signal) as object) }).toEqual({ id: 'g-1' });
    expect(glue.commandCalls(GetSchemaVersionCommand)).toHaveLength(1);
    expect(registry.stats.requests).toBe(1);
  });

  it('answers SchemaNotFoundError for an unknown version and a retryable error otherwise', async () => {
    glue
      .on(GetSchemaVersionCommand)
      .rejectsOnce(new EntityNotFoundException({ message: 'Schema version is not found.', $metadata: {} }))
      .rejectsOnce(
        Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $metadata: { httpStatusCode: 400 },
        }),
      );
    const registry = glueSchemaRegistry({ client: new GlueClient({ region: 'eu-west-1' }) });
    await expect(registry.getSchema(versionId)).rejects.toBeInstanceOf(SchemaNotFoundError);
    await expect(registry.getSchema(versionId)).rejects.toBeInstanceOf(SchemaRegistryRequestError);
    await expect(registry.getSchema('17')).rejects.toBeInstanceOf(SchemaNotFoundError);
  });

  it("keeps the exception's name and status, never its message, which an endpoint may fill with what it was sent", async () => {
    glue.on(GetSchemaVersionCommand).rejects(
      Object.assign(new Error('User is not authorized; token SESSION-TOKEN-XYZ'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 403 },
      }),
    );
    const registry = glueSchemaRegistry({ client: new GlueClient({ region: 'eu-west-1' }) });
    const error: Error = await registry.getSchema(versionId).then(
      () => {
        throw new Error('the request succeeded');
      },
      (rejected: Error) => rejected,
    );
    expect(error).toBeInstanceOf(SchemaRegistryRequestError);
    expect(error.message).toBe(`Glue GetSchemaVersion for ${versionId} failed (AccessDeniedException)`);
    expect((error as SchemaRegistryRequestError).status).toBe(403);
    expect((error.cause as Error).message).toMatch(/^GetSchemaVersion failed \(AccessDeniedException; /);
    expect(inspect(error, { depth: 10 })).not.toContain('SESSION-TOKEN-XYZ');
  });
});
