import { expect } from 'vitest';

/**
 * What `handlers.ts#describe` answers when run as function `orders` (512 MB, region eu-west-1) from
 * `reference`, as Lambda's Node.js 24 runtime would give it: the context and the reserved variables.
 */
export function describedOrders(
  reference: string,
  eventSource: string,
  seen: { logStreamName: string },
  utcOffsetMinutes: unknown,
) {
  return {
    eventSource,
    functionName: 'orders',
    memoryLimitInMB: '512',
    remainingMs: expect.any(Number),
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:orders',
    logGroupName: '/aws/lambda/orders',
    logStreamName: expect.stringMatching(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/),
    utcOffsetMinutes,
    env: {
      name: 'orders',
      memory: '512',
      version: '$LATEST',
      handler: reference,
      taskRoot: process.cwd(),
      executionEnv: 'AWS_Lambda_nodejs24.x',
      initializationType: 'on-demand',
      logGroup: '/aws/lambda/orders',
      logStream: seen.logStreamName,
      region: 'eu-west-1',
      defaultRegion: 'eu-west-1',
    },
  };
}
