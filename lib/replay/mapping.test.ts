// Reading an event source mapping through the Lambda API, modelled with aws-sdk-client-mock.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { modelEventSourceMapping } from '../../test/support/esm-model.ts';
import { MappingNotFoundError } from './errors.ts';
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
