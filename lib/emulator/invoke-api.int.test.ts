import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventRecords, seededTopic } from '../../test/support/emulator.ts';
import { committedOffsetsByKafkaTool, testBrokers, testKafka } from '../../test/support/kafka.ts';
import type { KafkaEvent } from '../kafka-event/types.ts';
import type { FailureEnvelope } from './destination.ts';
import { createLocalEventSourceMapping, InvokeRequestError, type MappingEvent } from './index.ts';

interface Call {
  path: string;
  event: KafkaEvent;
}

type Reply = { status: number; headers?: Record<string, string>; body: unknown };

/** A Node.js function's error response's `trace`, as Lambda returns it. */
const DEPLOYED_TRACE = ['TypeError: boom', '    at Runtime.handler (file:///var/task/index.mjs:3:11)'];

/** A tiny server speaking the Lambda Invoke API (what `sam local start-lambda` serves). */
let replies: Reply[] = [];
const calls: Call[] = [];
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const match = /^\/2015-03-31\/functions\/([^/?]+)\/invocations(?:\?Qualifier=[^&]+)?$/.exec(
      request.url ?? '',
    );
    if (request.method !== 'POST' || !match) {
      response.writeHead(404).end();
      return;
    }
    calls.push({
      path: request.url!,
      event: JSON.parse(Buffer.concat(chunks).toString('utf8')) as KafkaEvent,
    });
    const reply = replies.shift() ?? { status: 200, body: { batchItemFailures: [] } };
    response.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
    response.end(JSON.stringify(reply.body));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

it('drives a function through the Lambda Invoke API: function errors, partial responses, request failures', async () => {
  const kafka = testKafka('emulator-invoke-api');
  const { topic, group } = await seededTopic(kafka, 'invoke-api', 1, 6);
  const { port } = server.address() as AddressInfo;
  replies = [
    {
      status: 200,
      headers: { 'X-Amz-Function-Error': 'Unhandled' },
      body: { errorType: 'TypeError', errorMessage: 'boom', trace: DEPLOYED_TRACE },
    },
    {
      status: 404,
      body: { Type: 'User', message: 'Function not found' },
      headers: { 'x-amzn-ErrorType': 'ResourceNotFoundException' },
    },
    {
      status: 200,
      body: { batchItemFailures: [{ itemIdentifier: { partition: `${topic}-0`, offset: 3 } }] },
    },
  ];
  const events: MappingEvent[] = [];
  const esm = createLocalEventSourceMapping({
    brokers: testBrokers(),
    topic,
    consumerGroupId: group,
    maximumBatchingWindowInSeconds: 0,
    reportBatchItemFailures: true,
    retryBackoff: { initialMs: 5, maxMs: 20 },
    onEvent: (event) => events.push(event),
    function: { functionName: 'orders-fn', endpoint: `http://127.0.0.1:${port}` },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  expect(calls.map((c) => c.path)).toEqual(Array(4).fill('/2015-03-31/functions/orders-fn/invocations'));
  expect(calls.map((c) => eventRecords(c.event).map((r) => r.offset))).toEqual([
    [0, 1, 2, 3, 4, 5], // function error
    [0, 1, 2, 3, 4, 5], // 404: the request failed, not the function
    [0, 1, 2, 3, 4, 5], // partial failure at 3
    [3, 4, 5],
  ]);
  expect(calls[0]?.event).toMatchObject({
    eventSource: 'aws:kafka',
    bootstrapServers: testBrokers().join(','),
  });
  const invokes = events.filter((e) => e.type === 'invoke');
  expect(invokes.map((e) => [e.outcome, e.attempt])).toEqual([
    ['function-error', 1],
    ['partial', 2],
    ['success', 3],
  ]);
  expect(invokes[0]?.detail).toBe('TypeError');
  expect(invokes[0]?.errorMessage).toBe('boom');
  // The deployed function's stack, as its error response carries it (what dev prints under the line).
  expect(invokes[0]?.type === 'invoke' && invokes[0].trace).toEqual(DEPLOYED_TRACE);
  const errors = events.filter((e) => e.type === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]?.type === 'error' && errors[0].error).toBeInstanceOf(InvokeRequestError);
  expect(await committedOffsetsByKafkaTool(group)).toEqual([
    { topic, partition: 0, currentOffset: 6, logEndOffset: 6 },
  ]);
});

it("reports the invocation as Lambda ran it: the qualified ARN, Lambda's request id and the executed version", async () => {
  const kafka = testKafka('emulator-invoke-api');
  const { topic, group } = await seededTopic(kafka, 'invoke-api-version', 1, 1);
  const { port } = server.address() as AddressInfo;
  calls.length = 0;
  replies = [
    {
      status: 200,
      headers: {
        'X-Amz-Function-Error': 'Unhandled',
        'X-Amz-Executed-Version': '7',
        'x-amzn-RequestId': 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      },
      body: { errorType: 'Error', errorMessage: 'boom', trace: [] },
    },
  ];
  const envelopes: FailureEnvelope[] = [];
  const esm = createLocalEventSourceMapping({
    brokers: testBrokers(),
    topic,
    consumerGroupId: group,
    maximumBatchingWindowInSeconds: 0,
    maximumRetryAttempts: 0,
    retryBackoff: { initialMs: 5, maxMs: 20 },
    onFailure: (envelope) => void envelopes.push(envelope),
    function: { functionName: 'orders-fn', qualifier: 'live', endpoint: `http://127.0.0.1:${port}` },
  });
  await esm.start();
  await esm.idle();
  await esm.stop();

  expect(calls.map((c) => c.path)).toEqual(['/2015-03-31/functions/orders-fn/invocations?Qualifier=live']);
  expect(envelopes).toHaveLength(1);
  expect(envelopes[0]?.requestContext).toMatchObject({
    requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
    functionArn: expect.stringMatching(/^arn:aws:lambda:[a-z0-9-]+:000000000000:function:orders-fn:live$/),
  });
  expect(envelopes[0]?.responseContext).toEqual({
    statusCode: 200,
    executedVersion: '7',
    functionError: 'Unhandled',
  });
});
