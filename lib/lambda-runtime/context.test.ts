import { describe, expect, it } from 'vitest';
import { createLambdaContext, lambdaLogStreamName } from './context.ts';

describe('createLambdaContext', () => {
  it.each(['done', 'fail', 'succeed'] as const)(
    "%s throws, as calling it does in Lambda's Node.js 24 runtime (which has none), so a failure never passes for a success",
    (method) => {
      const context = createLambdaContext();
      expect(() => context[method](new Error('legacy failure'))).toThrow(
        new TypeError(
          `context.${method} is not a function: Lambda's Node.js 24 runtime removed the context's callback methods; return (or throw) from an async handler instead`,
        ),
      );
    },
  );

  it('names the function, its ARN, log group and a log stream as Lambda does', () => {
    const context = createLambdaContext({
      functionName: 'orders',
      region: 'eu-west-1',
      memoryLimitInMB: 512,
    });
    expect(context).toMatchObject({
      functionName: 'orders',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:orders',
      memoryLimitInMB: '512',
      logGroupName: '/aws/lambda/orders',
      logStreamName: expect.stringMatching(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/),
    });
    expect(lambdaLogStreamName(new Date('2026-03-04T23:59:59Z'))).toMatch(
      /^2026\/03\/04\/\[\$LATEST\][0-9a-f]{32}$/,
    );
  });

  it('falls back to us-east-1 when the region is empty, never an ARN without one', () => {
    expect(createLambdaContext({ functionName: 'f', region: '' }).invokedFunctionArn).toMatch(
      /^arn:aws:lambda:[a-z0-9-]+:/,
    );
  });
});
