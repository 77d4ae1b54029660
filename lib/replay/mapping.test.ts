// Reading an event source mapping through the Lambda API, modelled with aws-sdk-client-mock, and against
// a local endpoint that never answers.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalEndpoint, silentEndpoint } from '../../test/support/aws-endpoints.ts';
import { modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { awsApiClientConfig, isAwsTimeout } from './aws-api.ts';
import { AwsApiTimeoutError, MappingNotFoundError, ReplayAbortedError } from './errors.ts';
import { readMapping, setMappingEnabled, waitForMappingState } from './mapping.ts';
import { describeReplayError } from './outcome.ts';

const model = () => modelEventSourceMapping({ uuid: 'esm-1', topic: 'orders', groupId: 'orders-fn' });
const soon = () => Date.now() + 5_000;

describe('readMapping', () => {
  it('reads the mapping’s state, group and topic', async () => {
    const { lambda } = model();
    expect(await readMapping({ lambda, uuid: 'esm-1', deadline: soon() })).toEqual({
      uuid: 'esm-1',
      state: 'Enabled',
      groupId: 'orders-fn',
      topic: 'orders',
      functionArn: 'arn:aws:lambda:eu-west-1:111122223333:function:orders',
    });
  });

  it('a UUID with no mapping (ResourceNotFoundException) is MappingNotFoundError naming it and the region', async () => {
    const { lambda } = model();
    const read = readMapping({ lambda, uuid: 'm-404', deadline: soon() });
    await expect(read).rejects.toBeInstanceOf(MappingNotFoundError);
    await expect(read).rejects.toMatchObject({
      uuid: 'm-404',
      region: 'eu-west-1',
      message:
        'event source mapping m-404 not found in eu-west-1: check the UUID and the region (aws lambda list-event-source-mappings lists them)',
      cause: { name: 'ResourceNotFoundException' },
    });
    expect(describeReplayError(await read.catch((error: unknown) => error)).kind).toBe('invalid');
  });

  it('names no region when the client has none to say', async () => {
    const lambda = new LambdaClient({ region: async () => '' });
    const { lambda: mocked } = model();
    // The model answers for any client whose send it stands in for: borrow its answer for m-404.
    lambda.send = mocked.send.bind(mocked) as typeof lambda.send;
    await expect(readMapping({ lambda, uuid: 'm-404', deadline: soon() })).rejects.toThrow(
      /^event source mapping m-404 not found: /,
    );
  });

  it('a mapping deleted while a replay works on it: updating it or waiting for it is MappingNotFoundError too', async () => {
    const { lambda } = model();
    await expect(
      setMappingEnabled({ lambda, uuid: 'm-404', enabled: false, deadline: soon() }),
    ).rejects.toBeInstanceOf(MappingNotFoundError);
    await expect(
      waitForMappingState({ lambda, uuid: 'm-404', state: 'Disabled', timeoutMs: 5_000, intervalMs: 10 }),
    ).rejects.toBeInstanceOf(MappingNotFoundError);
  });
});

describe('a Lambda API endpoint that accepts connections and never answers', () => {
  const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };
  let silent: LocalEndpoint;
  beforeEach(async () => {
    silent = await silentEndpoint();
  });
  afterEach(() => silent.close());

  it('each attempt is abandoned after its bound and sent again; the deadline ends it, naming the call and what to check', async () => {
    // A client with no request timeout of its own: only the call's bounds end it.
    const lambda = new LambdaClient({
      region: 'eu-west-1',
      endpoint: silent.url,
      credentials,
      maxAttempts: 1,
    });
    const started = Date.now();
    const error = await readMapping({
      lambda,
      uuid: 'esm-1',
      deadline: started + 1_500,
      attemptMs: 400,
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(AwsApiTimeoutError);
    expect(error).toMatchObject({ service: 'Lambda', operation: 'GetEventSourceMapping' });
    expect((error as Error).message).toMatch(
      /^Lambda API call GetEventSourceMapping got no answer in \d+ ms \(\d+ attempt\(s\)\): check that the Lambda API endpoint is reachable from where this runs \(a function in a VPC reaches it through a NAT gateway or a "lambda" interface VPC endpoint; /,
    );
    expect(silent.connections()).toBeGreaterThanOrEqual(2);
    expect(describeReplayError(error)).toMatchObject({ name: 'AwsApiTimeoutError', kind: 'error' });
  });

  it('the replay’s client configuration fails an unanswered request at its request timeout (not a warning), and the call sends it again', async () => {
    const lambda = new LambdaClient({
      region: 'eu-west-1',
      endpoint: silent.url,
      credentials,
      maxAttempts: 1,
      ...awsApiClientConfig({ requestTimeoutMs: 300 }),
    });
    const started = Date.now();
    const error = await setMappingEnabled({
      lambda,
      uuid: 'esm-1',
      enabled: true,
      deadline: started + 1_500,
    }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toMatchObject({ name: 'AwsApiTimeoutError', operation: 'UpdateEventSourceMapping' });
    // The attempt bound (20 s by default) is past the deadline: the request timeout alone ended the
    // attempts before the last (without throwOnRequestTimeout, the first would have waited until the end).
    expect(silent.connections()).toBeGreaterThanOrEqual(2);
  });

  it('an abort ends a call in flight at once', async () => {
    const lambda = new LambdaClient({ region: 'eu-west-1', endpoint: silent.url, credentials });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const error = await readMapping({
      lambda,
      uuid: 'esm-1',
      deadline: started + 60_000,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayAbortedError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('isAwsTimeout', () => {
  it('is the SDK’s timeouts, not a connection the other side closed (which the SDK also names TimeoutError)', () => {
    const named = (name: string, code?: string) =>
      Object.assign(new Error('x'), { name }, code ? { code } : {});
    expect(isAwsTimeout(named('TimeoutError', 'ETIMEDOUT'))).toBe(true); // request timeout
    expect(isAwsTimeout(named('TimeoutError'))).toBe(true); // connection or socket timeout
    expect(isAwsTimeout(named('TimeoutError', 'ECONNRESET'))).toBe(false);
    expect(isAwsTimeout(named('TimeoutError', 'EPIPE'))).toBe(false);
    expect(isAwsTimeout(named('TooManyRequestsException'))).toBe(false);
  });
});
