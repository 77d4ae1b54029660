import { describe, expect, it } from 'vitest';
import type { LocalEventSourceMappingOptions } from './emulator.ts';
import { InvalidMappingSettingError } from './errors.ts';
import { provisionedOnlySettings, resolveMappingSettings } from './settings.ts';

function settingOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidMappingSettingError) return error.setting;
    throw error;
  }
  return undefined;
}

describe('resolveMappingSettings', () => {
  it("applies Lambda's defaults for a Kafka trigger", () => {
    const resolved = resolveMappingSettings({ topic: 'orders' });
    expect(resolved).toMatchObject({
      batchSize: 100,
      batchingWindowMs: 500,
      startingPosition: 'TRIM_HORIZON',
      reportBatchItemFailures: false,
      retryLimit: Number.POSITIVE_INFINITY,
      maximumRecordAgeMs: Number.POSITIVE_INFINITY,
      bisectBatchOnFunctionError: false,
      eventSource: 'msk',
      maxConcurrentInvocations: Number.POSITIVE_INFINITY,
    });
    expect(resolved.consumerGroupId).toMatch(/^[0-9a-f-]{36}$/);
    expect(resolved.destination).toBeUndefined();
  });

  it('caps infinite retries at 10 when there is an on-failure destination', () => {
    expect(resolveMappingSettings({ topic: 'orders', onFailure: 'kafka://orders-dlq' }).retryLimit).toBe(10);
    expect(
      resolveMappingSettings({ topic: 'orders', onFailure: 'kafka://dlq', maximumRetryAttempts: 3 })
        .retryLimit,
    ).toBe(3);
    expect(resolveMappingSettings({ topic: 'orders', onFailure: () => {} }).retryLimit).toBe(10);
  });

  it('accepts the bounds of every range', () => {
    const resolved = resolveMappingSettings({
      topic: 'tx',
      batchSize: 10_000,
      maximumBatchingWindowInSeconds: 300,
      maximumRetryAttempts: 10_000,
      maximumRecordAgeInSeconds: 60,
    });
    expect(resolved).toMatchObject({
      batchSize: 10_000,
      batchingWindowMs: 300_000,
      retryLimit: 10_000,
      maximumRecordAgeMs: 60_000,
    });
    expect(
      resolveMappingSettings({ topic: 'tx', batchSize: 1, maximumRecordAgeInSeconds: 604_800 }).batchSize,
    ).toBe(1);
  });

  it.each([
    ['topic', { topic: 'bad topic' }],
    ['topic', { topic: '' }],
    // Kafka takes these; the trigger's API does not (`Topics`: ^[^.]([a-zA-Z0-9\-_.]+)).
    ['topic', { topic: 'a' }],
    ['topic', { topic: '.orders' }],
    ['onFailure', { topic: 'tx', onFailure: 'kafka://.orders-dlq' }],
    ['onFailure', { topic: 'tx', onFailure: 'kafka://d' }],
    ['consumerGroupId', { topic: 'tx', consumerGroupId: 'has space' }],
    ['consumerGroupId', { topic: 'tx', consumerGroupId: 'x'.repeat(201) }],
    ['batchSize', { topic: 'tx', batchSize: 0 }],
    ['batchSize', { topic: 'tx', batchSize: 10_001 }],
    ['batchSize', { topic: 'tx', batchSize: 1.5 }],
    ['maximumBatchingWindowInSeconds', { topic: 'tx', maximumBatchingWindowInSeconds: 301 }],
    ['maximumBatchingWindowInSeconds', { topic: 'tx', maximumBatchingWindowInSeconds: 0.2 }],
    ['maximumRetryAttempts', { topic: 'tx', maximumRetryAttempts: -2 }],
    ['maximumRetryAttempts', { topic: 'tx', maximumRetryAttempts: 10_001 }],
    ['maximumRecordAgeInSeconds', { topic: 'tx', maximumRecordAgeInSeconds: 59 }],
    ['maximumRecordAgeInSeconds', { topic: 'tx', maximumRecordAgeInSeconds: 604_801 }],
    ['startingPosition', { topic: 'tx', startingPosition: 'EARLIEST' as 'LATEST' }],
    ['startingPositionTimestamp', { topic: 'tx', startingPosition: 'AT_TIMESTAMP' as const }],
    [
      'startingPositionTimestamp',
      {
        topic: 'tx',
        startingPosition: 'AT_TIMESTAMP' as const,
        startingPositionTimestamp: Date.now() / 1000 + 3600,
      },
    ],
    ['startingPositionTimestamp', { topic: 'tx', startingPositionTimestamp: 1 }],
    ['onFailure', { topic: 'tx', onFailure: 'arn:aws:sqs:us-east-1:1:q' }],
    ['onFailure', { topic: 'tx', onFailure: 'kafka://tx' }],
    ['eventSource', { topic: 'tx', eventSource: 'confluent' as 'msk' }],
    ['reportBatchItemFailures', { topic: 'tx', reportBatchItemFailures: 'yes' as never }],
  ])('rejects an invalid %s with a typed error', (setting, settings) => {
    expect(settingOf(() => resolveMappingSettings(settings))).toBe(setting);
  });

  it('refuses an unknown setting, naming it and the setting it misspells', () => {
    expect(settingOf(() => resolveMappingSettings({ topic: 'tx', batchSzie: 10 } as never))).toBe(
      'batchSzie',
    );
    expect(() => resolveMappingSettings({ topic: 'tx', batchSzie: 10 } as never)).toThrow(
      /^batchSzie: unknown option "batchSzie" — did you mean "batchSize"\?$/,
    );
    expect(() => resolveMappingSettings({ topic: 'tx', maximumRetryAttempt: 3 } as never)).toThrow(
      'did you mean "maximumRetryAttempts"?',
    );
    expect(() => resolveMappingSettings({ topic: 'tx', brokerz: ['127.0.0.1:9092'] } as never)).toThrow(
      'did you mean "brokers"?',
    );
    expect(settingOf(() => resolveMappingSettings(null as never))).toBe('settings');
  });

  it("accepts createLocalEventSourceMapping's own options beside the settings", () => {
    const options: LocalEventSourceMappingOptions = {
      topic: 'orders',
      brokers: ['127.0.0.1:9092'],
      kafka: { clientId: 'test' },
      function: { handler: async () => undefined },
      redelivery: 'listed',
      destinations: {},
      retryBackoff: { initialMs: 1, maxMs: 2 },
      onEvent: () => {},
      reportBatchItemFailures: true,
      bisectBatchOnFunctionError: false,
    };
    expect(resolveMappingSettings(options).topic).toBe('orders');
  });

  it('names the setting in the message', () => {
    expect(() => resolveMappingSettings({ topic: 'tx', batchSize: 0 })).toThrow(
      /^batchSize: must be an integer 1–10000, got 0$/,
    );
    expect(() => resolveMappingSettings({ topic: 'tx', maximumRetryAttempts: -2 })).toThrow(
      /^maximumRetryAttempts: must be an integer −1 or 0–10000, got -2$/,
    );
  });

  it('provisioned mode: 5 invocations per poller at once, with the API reference’s ranges and defaults', () => {
    const concurrency = (provisionedPollerConfig: object) =>
      resolveMappingSettings({ topic: 'tx', provisionedPollerConfig }).maxConcurrentInvocations;
    expect(concurrency({ minimumPollers: 1, maximumPollers: 3 })).toBe(15);
    expect(concurrency({})).toBe(1_000); // MaximumPollers defaults to 200
    expect(concurrency({ minimumPollers: 200, maximumPollers: 2_000, pollerGroupName: 'shared' })).toBe(
      10_000,
    );
    const refused = (provisionedPollerConfig: unknown) => {
      try {
        resolveMappingSettings({ topic: 'tx', provisionedPollerConfig } as never);
      } catch (error) {
        if (error instanceof InvalidMappingSettingError) return error.message;
        throw error;
      }
      return undefined;
    };
    expect(refused({ minimumPollers: 0 })).toBe(
      'provisionedPollerConfig.minimumPollers: must be an integer 1–200, got 0',
    );
    expect(refused({ maximumPollers: 2_001 })).toBe(
      'provisionedPollerConfig.maximumPollers: must be an integer 1–2000, got 2001',
    );
    expect(refused({ minimumPollers: 4, maximumPollers: 3 })).toBe(
      'provisionedPollerConfig: maximumPollers (3) must be at least minimumPollers (4)',
    );
    expect(refused({ minimumPollers: 1, maximumPoller: 3 })).toMatch(
      /did you mean "provisionedPollerConfig.maximumPollers"\?$/,
    );
    // API_ProvisionedPollerConfig: 0–128 characters of [a-zA-Z0-9-_].
    expect(refused({ pollerGroupName: 'shared pollers' })).toBe(
      'provisionedPollerConfig.pollerGroupName: must be at most 128 characters of a-z A-Z 0-9 - _',
    );
    expect(refused({ pollerGroupName: 'x'.repeat(129) })).toMatch(/pollerGroupName: must be at most 128/);
    expect(concurrency({ maximumPollers: 1, pollerGroupName: 'x'.repeat(128) })).toBe(5);
    expect(refused(3)).toMatch(/^provisionedPollerConfig: must be an object/);
  });
});

describe('provisionedOnlySettings', () => {
  const topic = 'orders';
  it('names, by their API names, what AWS offers only in provisioned mode when no pollers are set', () => {
    expect(
      provisionedOnlySettings({
        topic,
        reportBatchItemFailures: true,
        maximumRetryAttempts: 3,
        maximumRecordAgeInSeconds: 60,
        bisectBatchOnFunctionError: true,
        onFailure: 'kafka://orders-dlq',
        schemaRegistry: {
          SchemaRegistryURI: 'http://127.0.0.1:1',
          EventRecordFormat: 'JSON',
          SchemaValidationConfigs: [{ Attribute: 'VALUE' }],
        },
      }),
    ).toEqual([
      'FunctionResponseTypes (ReportBatchItemFailures)',
      'MaximumRetryAttempts',
      'MaximumRecordAgeInSeconds',
      'BisectBatchOnFunctionError',
      'DestinationConfig.OnFailure (a Kafka topic)',
      'SchemaRegistryConfig',
    ]);
  });

  it('is empty in provisioned mode, for the defaults, and for what on-demand mode offers', () => {
    expect(
      provisionedOnlySettings({
        topic,
        reportBatchItemFailures: true,
        bisectBatchOnFunctionError: true,
        provisionedPollerConfig: { maximumPollers: 2 },
      }),
    ).toEqual([]);
    expect(
      provisionedOnlySettings({
        topic,
        reportBatchItemFailures: false,
        maximumRetryAttempts: -1,
        maximumRecordAgeInSeconds: -1,
        bisectBatchOnFunctionError: false,
        // SQS, SNS and S3 destinations predate provisioned mode.
        onFailure: 'arn:aws:sqs:us-east-1:111122223333:orders-dlq',
        filterCriteria: { Filters: [{ Pattern: '{"value":{"type":["order"]}}' }] },
      }),
    ).toEqual([]);
  });
});
