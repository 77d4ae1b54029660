// The public options compiled as a project with `exactOptionalPropertyTypes: true` compiles them:
// exact-optional.test-d.ts passes `undefined` for every optional option, which such a project may do
// and the code accepts. Vitest's typecheck compiles it with this project's settings only.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import middy from '@middy/core';
import avsc from 'avsc';
import { describe, expect, it, vi } from 'vitest';
import { avroDecoder } from '../avro/index.ts';
import { jsonSchemaDecoder } from '../json-schema/index.ts';
import { protobufDecoder } from '../protobuf/index.ts';
import { invokeHandler, kafkaEvent, validateKafkaEvent } from '../testing/index.ts';
import { kafkaBatch } from './index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
// typescript's `exports` hide bin/tsc; its folder is found through package.json, which is exported.
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
const project = join(root, 'tsconfig.exact-optional.json');
const typeTest = 'lib/middleware/exact-optional.test-d.ts';

function runTsc(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [tsc, '-p', project, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('public options under exactOptionalPropertyTypes', () => {
  it('are compiled with exactOptionalPropertyTypes: true', () => {
    const shown = runTsc('--showConfig');
    expect(shown.status).toBe(0);
    const config = JSON.parse(shown.output) as {
      compilerOptions: Record<string, unknown>;
      files: string[];
    };
    expect(config.compilerOptions.exactOptionalPropertyTypes).toBe(true);
    expect(config.files.map((file) => file.replace(/^\.\//, ''))).toEqual([typeTest]);
  });

  it('take undefined for every optional option', () => {
    const { output } = runTsc('--noEmit', '--pretty', 'false');
    // Only what a project using the package sees: its own calls against the declarations. The
    // package's implementation is not compiled with this setting (a project reads its .d.ts only).
    const errors = output.split('\n').filter((line) => line.startsWith(typeTest));
    expect(errors).toEqual([]);
  });

  it('are taken as absent when given as undefined: every default applies', async () => {
    const records = [{ value: { n: 1 } }, { value: { n: 2 }, key: 'k' }];
    const explicit = kafkaEvent({
      topic: 'orders',
      timestamp: 1_764_400_000_000,
      records: records.map((record) => ({
        key: undefined,
        headers: undefined,
        partition: undefined,
        offset: undefined,
        timestamp: undefined,
        timestampType: undefined,
        keySchemaMetadata: undefined,
        valueSchemaMetadata: undefined,
        ...record,
      })),
      partitions: undefined,
      startOffset: undefined,
      eventSource: undefined,
      eventSourceArn: undefined,
      bootstrapServers: undefined,
    });
    expect(explicit).toEqual(kafkaEvent({ topic: 'orders', timestamp: 1_764_400_000_000, records }));
    expect(JSON.stringify(explicit)).toBe(
      JSON.stringify(kafkaEvent({ topic: 'orders', timestamp: 1_764_400_000_000, records })),
    );
    expect(
      validateKafkaEvent(explicit, { allowKeyMismatch: undefined, accept: undefined, onWarning: undefined }),
    ).toBe(explicit);

    const seen: unknown[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const handler = middy().use(
        kafkaBatch({
          onRecord: (record) => void seen.push(record.data),
          onPartition: undefined,
          ordering: undefined,
          value: undefined,
          key: undefined,
          concurrency: undefined,
          onPoison: undefined,
          timeoutReserveMs: undefined,
          throwOnBatchFailure: undefined,
          logger: undefined,
          metrics: undefined,
        }),
      );
      const response = await invokeHandler(handler, explicit, {
        timeoutMs: undefined,
        functionName: undefined,
        memoryLimitInMB: undefined,
        awsRequestId: undefined,
        region: undefined,
        logStreamName: undefined,
      });
      expect(response).toEqual({ batchItemFailures: [] });
    } finally {
      log.mockRestore();
    }
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);

    const unset = {
      registry: undefined,
      framing: undefined,
      eventRecordFormat: undefined,
      validate: undefined,
    };
    const schema = { type: 'record', name: 'Ping', fields: [{ name: 'id', type: 'string' }] };
    const body = avsc.Type.forSchema(schema as avsc.Schema).toBuffer({ id: 'a' });
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), body]);
    const decode = (decoder: { decode: (bytes: Buffer, ...rest: never[]) => unknown }, bytes: Buffer) =>
      (decoder.decode as (...args: unknown[]) => unknown)(bytes, {}, 'value', new AbortController().signal);
    expect(decode(avroDecoder({ schema, cacheSize: undefined, ...unset }), framed)).toEqual({ id: 'a' });
    expect(() => avroDecoder({ schema: undefined, ...unset })).toThrow(
      'The Avro decoder needs a schema in code or a registry',
    );
    const json = Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from('{"id":"a"}')]);
    expect(
      decode(jsonSchemaDecoder({ schema: { type: 'object' }, cacheSize: undefined, ...unset }), json),
    ).toEqual({
      id: 'a',
    });
    const Ping = { decode: (bytes: Uint8Array) => ({ length: bytes.length }) };
    const protobuf = protobufDecoder({
      type: Ping,
      framing: undefined,
      validate: undefined,
      eventRecordFormat: undefined,
      confluentMessageIndexes: undefined,
      sourceMessageIndex: undefined,
    });
    expect(decode(protobuf, Buffer.concat([Buffer.from([0, 0, 0, 0, 1, 0]), Buffer.from('xy')]))).toEqual({
      length: 2,
    });
  });
});
