import { ResourceNotFoundException } from '@aws-sdk/client-lambda';
import { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  GroupNotEmptyError,
  MappingNotFoundError,
  ReplayConflictError,
  ReplayError,
  ReplayExecutionError,
  ReplayInputError,
  ReplayTimeoutError,
} from './errors.ts';
import { describeReplayError, REPLAY_EXIT_CODES } from './outcome.ts';
import type { FailureReport } from './types.ts';

const SECRET = 'S3cr3t-Passw0rd!';
// What Node's JSON.parse says about a secret that is not JSON: it quotes the input.
const parseError = (() => {
  try {
    JSON.parse(SECRET);
  } catch (error) {
    return error;
  }
})();

describe('describeReplayError', () => {
  it('keeps the messages of the replay’s typed errors', () => {
    expect(describeReplayError(new ReplayInputError('bad target'))).toEqual({
      name: 'ReplayInputError',
      kind: 'invalid',
      message: 'bad target',
    });
    expect(describeReplayError(new GroupNotEmptyError('g', 'Stable', 2))).toMatchObject({
      name: 'GroupNotEmptyError',
      kind: 'refused',
      message: expect.stringContaining('consumer group "g" is Stable with 2 member(s)'),
    });
    expect(describeReplayError(new ReplayTimeoutError('x', 5))).toMatchObject({
      kind: 'error',
      message: 'timed out after 5 ms waiting for x',
    });
  });

  it('a conflict with another replay has its own kind and exit code, mid-way too while the mapping is restored', () => {
    const conflict = new ReplayConflictError('g', 'another replay holds the group right now');
    expect(describeReplayError(conflict)).toEqual({
      name: 'ReplayConflictError',
      kind: 'conflict',
      message: 'consumer group "g": another replay holds the group right now',
    });
    expect(REPLAY_EXIT_CODES.conflict).toBe(6);
    expect(new Set(Object.values(REPLAY_EXIT_CODES)).size).toBe(Object.keys(REPLAY_EXIT_CODES).length);
    const report = (restored: boolean): FailureReport => ({
      failedStep: 'plan',
      error: { name: 'ReplayConflictError', message: conflict.message },
      offsets: 'untouched',
      offsetsNow: null,
      mappingStateBefore: 'Enabled',
      mappingStateNow: restored ? 'Enabled' : 'Disabled',
      mappingRestored: restored,
    });
    expect(describeReplayError(new ReplayExecutionError(report(true), conflict)).kind).toBe('conflict');
    expect(describeReplayError(new ReplayExecutionError(report(false), conflict)).kind).toBe(
      'failed-unrestored',
    );
  });

  it('a subclass of ReplayError defined elsewhere (the function’s config errors) keeps its message', () => {
    class ConfigError extends ReplayError {
      override name = 'ConfigError';
    }
    expect(describeReplayError(new ConfigError('KAFKA_AUTH is wrong'))).toEqual({
      name: 'ConfigError',
      kind: 'error',
      message: 'KAFKA_AUTH is wrong',
    });
  });

  it('withholds the message of any other error: it may quote a secret', () => {
    expect(String(parseError)).toContain(SECRET); // the premise: Node quotes the input
    for (const error of [
      parseError,
      new TypeError(`cannot read ${SECRET}`),
      SECRET,
      { message: SECRET },
      new KafkaJSNumberOfRetriesExceeded(new Error(SECRET), { retryCount: 5, retryTime: 100 }),
    ]) {
      const described = describeReplayError(error);
      expect(JSON.stringify(described)).not.toContain('S3cr3t');
      expect(described.kind).toBe('error');
      expect(described.message).toMatch(/withheld/);
    }
    expect(describeReplayError(parseError)).toMatchObject({ name: 'SyntaxError' });
  });

  it('names the error codes of Kafka and Node errors instead of their messages', () => {
    const denied = new KafkaJSProtocolError({
      message: 'Not authorized to access topics',
      type: 'TOPIC_AUTHORIZATION_FAILED',
      code: 29,
      retriable: false,
    } as unknown as string);
    expect(describeReplayError(denied)).toMatchObject({
      name: 'KafkaJSProtocolError',
      message: expect.stringContaining('TOPIC_AUTHORIZATION_FAILED'),
    });
    const refused = new KafkaJSConnectionError(`Connection error: ${SECRET}`, { code: 'ECONNREFUSED' });
    expect(describeReplayError(refused).message).toContain('ECONNREFUSED');
    expect(describeReplayError(refused).message).not.toContain('S3cr3t');
  });

  it('a mapping that does not exist is an invalid request (exit 2), naming it', () => {
    const error = new MappingNotFoundError('m-404', 'eu-west-1');
    expect(describeReplayError(error)).toEqual({
      name: 'MappingNotFoundError',
      kind: 'invalid',
      message:
        'event source mapping m-404 not found in eu-west-1: check the UUID and the region (aws lambda list-event-source-mappings lists them)',
    });
    expect(REPLAY_EXIT_CODES[describeReplayError(error).kind]).toBe(2);
    expect(new MappingNotFoundError('m-404', undefined).message).toMatch(
      /^event source mapping m-404 not found: /,
    );
  });

  it('keeps the messages of AWS service errors (written by the service, e.g. access denied)', () => {
    const error = new ResourceNotFoundException({
      message: 'Function not found: arn:aws:lambda:eu-west-1:111122223333:function:replay',
      $metadata: {},
    });
    expect(describeReplayError(error)).toEqual({
      name: 'ResourceNotFoundException',
      kind: 'error',
      message: 'Function not found: arn:aws:lambda:eu-west-1:111122223333:function:replay',
    });
  });
});
